"""Every oracle vector (real Heat 27.0.1 results) through parse -> instantiate -> resolve.

A small evaluator (oracle_evaluator.py) stands in for the engine. Vectors needing things outside
app/templates (CFN format, environment merging and the resource registry, nested/template
resources, ResourceGroup) are collected as pending and counted. Vectors where Heat answers 500
must get a clear 4xx here (test_heat_500_vectors_get_a_clear_4xx).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app import errors
from app.templates import StackIdentity, parse

from .oracle_evaluator import create, plugin_validate, type_schema_for

VECTORS = (Path(__file__).resolve().parents[3] / "../shared/oracle/vectors").resolve()
PENDING_FEATURES = {"cfn", "environments", "resource_registry", "ResourceGroup", "merge",
                    "wildcard", "parameter_defaults"}


def _load() -> list[dict[str, Any]]:
    if not VECTORS.is_dir():
        return []
    return [json.loads(p.read_text()) for p in sorted(VECTORS.glob("*.json"))]


ALL = _load()
#: Heat answers 500 here; Stoker must answer a clear 4xx.
HEAT_500 = {v["id"] for v in ALL if v["expect"].get("http_status") == 500}


def pending_reason(v: dict[str, Any]) -> str | None:
    hit = sorted(set(v["features"]) & PENDING_FEATURES)
    if hit:
        return "needs " + ", ".join(hit)
    if v.get("environments"):
        return "needs environments"
    head = v["template"].lstrip()[:200]
    if "AWSTemplateFormatVersion" in head or "HeatTemplateFormatVersion" in head:
        return "needs cfn"
    return None


RUNNABLE = [v for v in ALL if pending_reason(v) is None and v["id"] not in HEAT_500]
PENDING = [v for v in ALL if pending_reason(v) is not None and v["id"] not in HEAT_500]


def run(v: dict[str, Any]) -> tuple[Any, Any]:
    """(stack, created) or raises the validation error."""
    files = v.get("files") or {}
    tmpl = parse(v["template"], files=files)
    stack = tmpl.instantiate(v.get("parameters") or {}, None,
                             StackIdentity("vstack", "8c1a-stack-id", "project-id"),
                             type_schema_for(files))
    plugin_validate(stack)
    return stack, create(stack)


def key_facts(message: str) -> list[str]:
    """Facts from Heat's message that ours must contain: a leading dotted path, the
    "Parameter 'x'" it names, the first double-quoted token."""
    facts = []
    m = re.match(r"^([\w:$.-]+\.[\w:$.-]+): ", message)
    if m:
        facts.append(m.group(1))
    m = re.search(r"Parameter '([^']+)'", message)
    if m:
        facts.append(f"'{m.group(1)}'")
    m = re.search(r'"([^"]{1,40})"', message)
    if m:
        facts.append(m.group(1))
    return facts


def check_invalid(v: dict[str, Any]) -> None:
    exp = v["expect"]
    with pytest.raises(errors.StokerError) as info:
        run(v)
    exc = info.value
    assert (exc.heat_type, exc.http_status) == (exp["error_type"], exp["http_status"]), exc.message
    if "message" not in (v.get("unstable") or []):
        for fact in key_facts(exp["message"]):
            assert fact in exc.message, f"{fact!r} not in {exc.message!r}"


def _match(pattern: str, value: Any) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                          separators=(",", ":"))
    return re.fullmatch(pattern, text) is not None


def check_create(v: dict[str, Any]) -> None:
    exp = v["expect"]
    unstable = set(v.get("unstable") or [])
    stack, created = run(v)
    if "stack_status" not in unstable:
        assert created.status == exp["stack_status"], created.reasons
    outputs = {o["output_key"]: o for o in stack.resolve_outputs(created)}
    assert set(outputs) == set(exp["outputs"])
    for key, want in exp["outputs"].items():
        got = outputs[key]
        if f"outputs.{key}" in unstable:
            continue
        if "output_value_match" in want:
            assert _match(want["output_value_match"], got["output_value"]), got
        else:
            assert json.dumps(got["output_value"], sort_keys=True) == \
                json.dumps(want["output_value"], sort_keys=True), (key, got)
        if "output_error" in want and f"outputs.{key}.output_error" not in unstable:
            assert got.get("output_error"), (key, got)
        elif "output_error" not in want:
            assert "output_error" not in got, (key, got)
    if "parameters" not in unstable:
        shown = stack.parameters_for_show()
        shown.pop("OS::stack_id", None)
        shown.pop("OS::project_id", None)
        assert shown == exp["parameters"]
    if "resources" not in unstable:
        assert created.states == exp["resources"]


@pytest.mark.parametrize("v", RUNNABLE, ids=[v["id"] for v in RUNNABLE])
def test_vector(v: dict[str, Any]) -> None:
    if v["expect"]["outcome"] == "invalid":
        check_invalid(v)
    else:
        check_create(v)


def test_vectors_outside_this_evaluator_are_counted() -> None:
    """CFN, environment and registry vectors run in tests/unit/templates_env (pure), and every
    vector (ResourceGroup included) runs through the whole engine in
    tests/corpus/test_oracle_engine.py; this evaluator covers the rest."""
    assert len(RUNNABLE) + len(PENDING) + len(HEAT_500) == len(ALL) == 347
    print(f"\noracle (pure evaluator): {len(RUNNABLE)} run here, {len(PENDING)} in "
          f"templates_env / the engine test, {len(HEAT_500)} Heat-500 vectors")


@pytest.mark.parametrize("vid", sorted(HEAT_500))
def test_heat_500_vectors_get_a_clear_4xx(vid: str) -> None:
    """Heat answers these with an HTTP 500; Stoker must refuse them with a clear 4xx."""
    v = next(x for x in ALL if x["id"] == vid)
    with pytest.raises(errors.StokerError) as info:
        if v.get("environments"):
            from app.templates import merge_request
            files = {f"env-{i}.yaml": e for i, e in enumerate(v["environments"], start=1)}
            merge_request(None, v.get("parameters") or {}, sorted(files), files)
        run(v)
    assert 400 <= info.value.http_status < 500
    assert info.value.message


def test_oracle_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Print the counts (runnable / pending / heat-500) so CI logs show them."""
    assert ALL, f"no vectors found in {VECTORS}"
    with capsys.disabled():
        print(f"\noracle vectors: {len(ALL)} total, {len(RUNNABLE)} run here, "
              f"{len(PENDING)} pending (cfn/environments/registry/ResourceGroup), "
              f"{len(HEAT_500)} where Heat answers 500 (a 4xx is asserted; "
              f"{sum(1 for v in ALL if v['id'] in HEAT_500 and pending_reason(v))} of them "
              f"pending)")
