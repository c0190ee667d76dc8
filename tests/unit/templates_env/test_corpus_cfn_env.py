"""The public corpus (../shared/corpus): every CFN template loads and gets Heat 27.0.1's
/validate verdict (heat-verdicts.json), and every environment file loads (sections, merge,
registry, hooks). Type schemas come from heat-reference as in the HOT corpus test; resource
types a CFN template uses that Stoker's own plugins do not implement are reported by name
(they do not fail this test: the template language is what is checked here)."""
from __future__ import annotations

from typing import Any

import pytest
import yaml

from app import errors
from app.templates import StackIdentity, parse
from app.templates.env_merge import merge_request
from tests.unit.templates.corpus_support import (
    CORPUS,
    Entry,
    corpus_type_schema,
    entries,
    files_map,
)
from tests.unit.templates.nesting import HEAT_NESTING, bind

ALL = entries()
CFN = [e for e in ALL if e.kind == "cfn"]
SCORED = [e for e in CFN if e.verdict in ("valid", "invalid")]
ENVS = [e for e in ALL if e.kind == "env"]
_RESULTS: dict[str, tuple[str, str]] = {}


def cfn_verdict(entry: Entry) -> tuple[str, str]:
    """('valid'|'invalid', error text) as POST /validate would answer (cached)."""
    if entry.path not in _RESULTS:
        path = CORPUS / entry.path
        files = files_map(path)
        try:
            tmpl = parse(path.read_bytes(), files=files)
            bind(tmpl, {}, None, StackIdentity("validate"), corpus_type_schema(files),
                             strict=False, nesting=HEAT_NESTING)
            _RESULTS[entry.path] = ("valid", "")
        except errors.StokerError as exc:
            _RESULTS[entry.path] = ("invalid", f"{exc.heat_type}: {exc.message}")
    return _RESULTS[entry.path]


@pytest.mark.parametrize("entry", CFN, ids=[e.path for e in CFN])
def test_cfn_template_loads(entry: Entry) -> None:
    tmpl = parse((CORPUS / entry.path).read_bytes(), files=files_map(CORPUS / entry.path))
    assert tmpl.version[0] in ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")


@pytest.mark.parametrize("entry", SCORED, ids=[e.path for e in SCORED])
def test_cfn_same_verdict_as_heat(entry: Entry) -> None:
    verdict, message = cfn_verdict(entry)
    assert verdict == entry.verdict, message or "Heat found this template invalid"


@pytest.mark.parametrize("entry", ENVS, ids=[e.path for e in ENVS])
def test_environment_loads(entry: Entry) -> None:
    text = (CORPUS / entry.path).read_text()
    doc = yaml.safe_load(text) or {}
    env = merge_request(None, None, ["env.yaml"], {"env.yaml": text}, None)
    assert env.parameters == (doc.get("parameters") or {})
    assert env.parameter_defaults == (doc.get("parameter_defaults") or {})
    env.registry()
    for name, value in (env.resource_registry or {}).items():
        if name != "resources" and isinstance(value, str):
            # Heat's ResourceRegistry: a template file keeps the type name and names the
            # template; anything else maps the type to another type
            expected = (name, value) if value.endswith((".yaml", ".template")) else (value, None)
            assert env.resolve_type("r", name) == expected


def _stoker_types() -> set[str] | None:
    try:
        from app.resource_types import registry
    except Exception:
        return None
    return set(registry.types())


def _types_of(tmpl: Any) -> set[str]:
    return {r.type for r in tmpl.resources.values()}


def test_corpus_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the figures (CI logs show them) and the types Stoker lacks, by name."""
    assert ALL, "corpus not present"
    agree = sum(1 for e in SCORED if cfn_verdict(e)[0] == e.verdict)
    used: dict[str, int] = {}
    for e in CFN:
        path = CORPUS / e.path
        for t in _types_of(parse(path.read_bytes(), files=files_map(path))):
            used[t] = used.get(t, 0) + 1
    stoker = _stoker_types()
    missing = sorted(t for t in used if stoker is not None and t not in stoker
                     and not t.endswith((".yaml", ".template")))
    with capsys.disabled():
        print(f"\ncorpus CFN: {len(CFN)} templates load; {len(SCORED)} scored, {agree} agree "
              f"with Heat's /validate ({sum(e.verdict == 'valid' for e in SCORED)} valid, "
              f"{sum(e.verdict == 'invalid' for e in SCORED)} invalid), "
              f"{len(CFN) - len(SCORED)} not scored; environments: {len(ENVS)} load")
        if stoker is not None:
            print(f"corpus CFN resource types not implemented by Stoker ({len(missing)} of "
                  f"{len(used)}): " + ", ".join(f"{t} ({used[t]})" for t in missing))
    assert agree == len(SCORED)
