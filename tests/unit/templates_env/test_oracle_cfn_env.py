"""The oracle vectors of CFN, environments, the registry and template resources
(``cfn-``, ``env-``, ``nested-``, ``rg-``, ``ver-cfn-``) through merge -> the API's request
checks -> the product's create in memory (support.run). Nested stacks need the runtime's child
stacks in the database (ResourceGroup's member expansion, a template resource's child): those
vectors (``rg-``, and creates with a template resource) run in
tests/corpus/test_oracle_engine.py instead, and are counted here."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app import errors
from tests.unit.templates.oracle_facts import refusal_problem

from .support import needs_child_stacks, run, vectors

ELSEWHERE = [v for v in vectors() if needs_child_stacks(v) or (
    v["id"].startswith("rg-") and v["expect"]["outcome"] != "invalid")]
ALL = [v for v in vectors() if v not in ELSEWHERE]
#: Heat answers 500 there; a clear 4xx is required instead.
HEAT_500 = {"env-merge-strategy-conflict"}


def _same(want: Any, got: Any) -> bool:
    return json.dumps(want, sort_keys=True) == json.dumps(got, sort_keys=True)


@pytest.mark.parametrize("v", ALL, ids=[v["id"] for v in ALL])
def test_vector(v: dict[str, Any]) -> None:
    exp = v["expect"]
    unstable = set(v.get("unstable") or [])
    if exp["outcome"] == "invalid":
        with pytest.raises(errors.StokerError) as info:
            run(v)
        exc = info.value
        if v["id"] in HEAT_500:
            assert exc.http_status == 400, exc.message
        problem = refusal_problem(exp, v.get("unstable"), exc.http_status, exc.heat_type,
                                  exc.message)
        assert problem is None, problem
        return
    created = run(v)
    stack = created.definition
    if "stack_status" not in unstable:
        assert created.status == exp["stack_status"], created.reasons
    outputs = {o["output_key"]: o for o in created.outputs()}
    for key, want in exp["outputs"].items():
        got = outputs[key]
        if "output_error" in want:
            assert got.get("output_error") and got["output_value"] is None, got
        elif "output_value_match" in want:
            value = got["output_value"]
            text = value if isinstance(value, str) else json.dumps(value, sort_keys=True,
                                                                   separators=(",", ":"))
            assert re.fullmatch(want["output_value_match"], text), got
        else:
            assert "output_error" not in got, got
            assert _same(want["output_value"], got["output_value"]), (key, got)
    if "parameters" not in unstable:
        shown = stack.parameters_for_show()
        for hidden in ("OS::stack_id", "OS::project_id", "AWS::StackId"):
            shown.pop(hidden, None)
        assert shown == exp["parameters"]
    if "resources" not in unstable:
        assert created.states == exp["resources"]


def test_vectors_run_elsewhere_are_counted() -> None:
    """Every vector of these areas runs here or (a nested stack) in the engine test."""
    assert len(ALL) + len(ELSEWHERE) == len(vectors())
    assert all(v["id"].startswith(("rg-", "nested-", "env-")) for v in ELSEWHERE), \
        [v["id"] for v in ELSEWHERE]
