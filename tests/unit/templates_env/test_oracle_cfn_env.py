"""The oracle vectors of CFN, environments, the registry and template resources
(``cfn-``, ``env-``, ``nested-``, ``rg-``, ``ver-cfn-``) through merge -> parse -> instantiate
-> the templates tests' evaluator. ResourceGroup is the engine's (member expansion, the check of
``resource_def``'s type): ``rg-`` vectors run in tests/corpus/test_oracle_engine.py instead."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from app import errors

from .support import run, vectors

ALL = [v for v in vectors() if not v["id"].startswith("rg-")]
#: Heat answers 500 there; a clear 4xx is required instead.
HEAT_500 = {"env-merge-strategy-conflict"}


def _same(want: Any, got: Any) -> bool:
    return json.dumps(want, sort_keys=True) == json.dumps(got, sort_keys=True)


@pytest.mark.parametrize("v", ALL, ids=[v["id"] for v in ALL])
def test_vector(v: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    exp = v["expect"]
    unstable = set(v.get("unstable") or [])
    if exp["outcome"] == "invalid":
        with pytest.raises(errors.StokerError) as info:
            run(v, monkeypatch)
        exc = info.value
        assert exc.heat_type == exp["error_type"], exc.message
        want_status = 400 if v["id"] in HEAT_500 else exp["http_status"]
        assert exc.http_status == want_status, exc.message
        return
    stack, created = run(v, monkeypatch)
    if "stack_status" not in unstable:
        assert created.status == exp["stack_status"], created.reasons
    outputs = {o["output_key"]: o for o in stack.resolve_outputs(created)}
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
