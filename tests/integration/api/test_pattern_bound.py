"""An ``allowed_pattern`` made to backtrack without end fails its value within the bound
(``app.templates.constraints.PATTERN_SECONDS``) and the create is Heat's 400 for a parameter that
does not match, with nothing written; Heat's ``re.match`` spins until its server is killed.
``(a+)+$`` the matcher refuses at once; ``(a|aa)+$`` it tries until the bound."""
from __future__ import annotations

import time
from typing import Any

from app.templates import constraints

PATTERN = "(a|aa)+$"


def _template(pattern: str) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {}, "parameters": {
        "p": {"type": "string", "constraints": [{"allowed_pattern": pattern}]}}}


def test_a_catastrophic_pattern_fails_its_value_within_the_bound(client: Any) -> None:
    value = "a" * 60 + "!"  # Fibonacci(60) ways to split the a's: Python's re never answers
    started = time.monotonic()
    resp = client.post("/v1/admin/stacks", json={"stack_name": "redos", "template": _template(PATTERN),
                                                 "parameters": {"p": value}})
    took = time.monotonic() - started
    assert resp.status_code == 400, resp.get_json()
    assert resp.get_json()["error"]["message"] == (
        f'Parameter \'p\' is invalid: "{value}" does not match pattern "{PATTERN}": matching '
        f"took longer than {constraints.PATTERN_SECONDS:g} s")
    assert took < constraints.PATTERN_SECONDS + 5
    assert client.get("/v1/admin/stacks").get_json()["stacks"] == []


def test_patterns_still_match_and_refuse_as_re_does(client: Any) -> None:
    ok = client.post("/v1/admin/stacks", json={"stack_name": "fine", "template": _template(
        PATTERN), "parameters": {"p": "aaaa"}})
    assert ok.status_code == 201, ok.get_json()
    value = "a" * 40 + "!"
    started = time.monotonic()
    bad = client.post("/v1/admin/stacks/preview", json={"stack_name": "short", "template":
                                                        _template("(a+)+$"),
                                                        "parameters": {"p": value}})
    assert time.monotonic() - started < constraints.PATTERN_SECONDS + 5
    assert bad.status_code == 400
    assert bad.get_json()["error"]["message"] == (
        f'Parameter \'p\' is invalid: "{value}" does not match pattern "(a+)+$"')
