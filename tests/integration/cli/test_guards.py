"""``stoker stack`` guard options and commands against the real Orchestration API (a werkzeug
server over the ``app`` fixture: SQLite, tasks in-process): ``create
--enable-termination-protection``, ``termination-protection --disable``, ``create
--stack-policy``, ``policy-show``, ``policy-set`` and ``update
--stack-policy-during-update``; a refusal exits 2 with the API's message."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.integration.cli.test_update import files, run, stack  # noqa: F401  (fixtures)

DENY_ALL = {"Statement": [{"Effect": "Deny", "Action": "Update:*", "Principal": "*",
                           "Resource": "*"}]}
ALLOW_ALL = {"Statement": [{"Effect": "Allow", "Action": "Update:*", "Principal": "*",
                            "Resource": "*"}]}


def _write(tmp_path: Path, name: str, doc: Any) -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_termination_protection_commands(app, url, files):  # noqa: F811
    res = run(url, "stack", "create", "-t", files["v1"], "keep", "--enable-termination-protection")
    assert res.exit_code == 0, res.output
    assert stack(app, "keep")["stack_status"] == "CREATE_COMPLETE"
    res = run(url, "stack", "delete", "keep", "-y")
    assert res.exit_code == 2
    assert "cannot be deleted while TerminationProtection is enabled" in res.output
    assert "enabled" in run(url, "stack", "termination-protection", "keep").output
    for both in (("--enable", "--disable"), ("--disable", "--enable")):
        res = run(url, "stack", "termination-protection", "keep", *both)
        assert res.exit_code == 2 and "mutually exclusive" in res.output
    assert "enabled" in run(url, "stack", "termination-protection", "keep").output  # kept
    res = run(url, "stack", "termination-protection", "keep", "--disable")
    assert res.exit_code == 0 and "disabled" in res.output
    assert run(url, "stack", "delete", "keep", "-y").exit_code == 0


def test_policy_commands(app, url, files, tmp_path):  # noqa: F811
    deny = _write(tmp_path, "deny.json", DENY_ALL)
    allow = _write(tmp_path, "allow.json", ALLOW_ALL)
    res = run(url, "stack", "create", "-t", files["v1"], "pol", "--stack-policy", deny)
    assert res.exit_code == 0, res.output
    assert json.loads(run(url, "stack", "policy-show", "pol").output) == DENY_ALL
    res = run(url, "stack", "update", "pol", "-t", files["v2"])
    assert res.exit_code == 2 and "Action denied by stack policy" in res.output
    res = run(url, "stack", "update", "pol", "-t", files["v2"],
              "--stack-policy-during-update", allow)
    assert res.exit_code == 0, res.output
    assert stack(app, "pol")["stack_status"] == "UPDATE_COMPLETE"
    res = run(url, "stack", "policy-set", "pol", _write(tmp_path, "bad.json", "{nope"))
    assert res.exit_code == 2 and "Invalid stack policy" in res.output
    assert run(url, "stack", "policy-set", "pol", allow).exit_code == 0
    assert json.loads(run(url, "stack", "policy-show", "pol").output) == ALLOW_ALL
