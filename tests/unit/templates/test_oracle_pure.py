"""Every oracle vector (real Heat 27.0.1 results) through the product's own code in memory:
the API's request checks, the engine's plan and walk, the runtime's create step, passed-on data
and output resolution (oracle_product.py; no database, no Celery). Vectors needing the
request's environment merging (CFN, environments, the resource registry) or the runtime's child
stacks (template resources, ResourceGroup) are collected as pending and counted: every vector
runs through the whole engine in tests/corpus/test_oracle_engine.py. Vectors where Heat answers
500 must get a clear 4xx here (test_heat_500_vectors_get_a_clear_4xx).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app import errors

from . import oracle_product
from .oracle_facts import refusal_problem

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
    if v["expect"]["outcome"] != "invalid" and _has_template_resource(v):
        return "needs child stacks"
    return None


def _has_template_resource(v: dict[str, Any]) -> bool:
    files = v.get("files") or {}
    try:
        resources = (yaml.safe_load(v["template"]) or {}).get("resources") or {}
    except yaml.YAMLError:
        return False
    return any(isinstance(r, dict) and r.get("type") in files for r in resources.values())


RUNNABLE = [v for v in ALL if pending_reason(v) is None and v["id"] not in HEAT_500]
PENDING = [v for v in ALL if pending_reason(v) is not None and v["id"] not in HEAT_500]


def run(v: dict[str, Any]) -> oracle_product.Created:
    """The vector's create on the product's code, or raises the validation error."""
    return oracle_product.run(oracle_product.instantiate(v))


def check_invalid(v: dict[str, Any]) -> None:
    exp = v["expect"]
    with pytest.raises(errors.StokerError) as info:
        run(v)
    exc = info.value
    problem = refusal_problem(exp, v.get("unstable"), exc.http_status, exc.heat_type,
                              exc.message)
    assert problem is None, problem


def _match(pattern: str, value: Any) -> bool:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                          separators=(",", ":"))
    return re.fullmatch(pattern, text) is not None


def check_create(v: dict[str, Any]) -> None:
    exp = v["expect"]
    unstable = set(v.get("unstable") or [])
    created = run(v)
    stack = created.definition
    if "stack_status" not in unstable:
        assert created.status == exp["stack_status"], created.reasons
    outputs = {o["output_key"]: o for o in created.outputs()}
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


def test_vectors_run_elsewhere_are_counted() -> None:
    """CFN, environment and registry vectors run in tests/unit/templates_env (pure), and every
    vector (nested stacks included) runs through the whole engine in
    tests/corpus/test_oracle_engine.py; this in-memory run covers the rest."""
    assert len(RUNNABLE) + len(PENDING) + len(HEAT_500) == len(ALL) == 347
    print(f"\noracle (in-memory product run): {len(RUNNABLE)} run here, {len(PENDING)} in "
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
