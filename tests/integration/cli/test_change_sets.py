"""``stoker stack change-set-*`` against the real Orchestration API (a werkzeug server over the
``app`` fixture): create shows the planned changes and writes nothing else, execute applies
them, a second execute and an unknown change set end with one line and exit status 2."""
from __future__ import annotations

import json

from tests.integration.cli.test_update import files, outputs, run, stack  # noqa: F401


def test_change_set_create_show_execute_list_delete(app, url, files):  # noqa: F811
    assert run(url, "stack", "create", "-t", files["v1"], "s1").exit_code == 0
    res = run(url, "stack", "change-set-create", "s1", "hi", "-t", files["v2"],
              "-P", "greeting=hi", "-f", "json")
    assert res.exit_code == 0, res.output
    made = json.loads(res.output)
    assert sorted((c["logical_resource_id"], c["action"]) for c in made["changes"]) == [
        ("msg", "Modify"), ("new", "Add"), ("old", "Remove")]
    assert stack(app, "s1")["stack_status"] == "CREATE_COMPLETE"
    shown = run(url, "stack", "change-set-show", "s1", "hi")
    assert shown.exit_code == 0 and "Modify" in shown.output and "'hello' → 'hi'" in shown.output
    res = run(url, "stack", "change-set-execute", "s1", "hi", "--wait")
    assert res.exit_code == 0, res.output
    assert "UPDATE_COMPLETE" in res.output and outputs(app, "s1")["msg"] == "hi"
    listed = run(url, "stack", "change-set-list", "s1", "-f", "json")
    assert [(c["name"], c["execution_status"]) for c in json.loads(listed.output)] == [
        ("hi", "EXECUTE_COMPLETE")]
    again = run(url, "stack", "change-set-execute", "s1", "hi")
    assert again.exit_code == 2 and "HTTP 400" in again.output, again.output
    assert "cannot be executed" in again.output
    assert run(url, "stack", "change-set-delete", "s1", "hi").exit_code == 0
    gone = run(url, "stack", "change-set-show", "s1", "hi")
    assert gone.exit_code == 2 and "does not exist" in gone.output


def test_retry_and_rollback_of_a_failed_stack(app, url, files):  # noqa: F811
    from pathlib import Path
    failing = Path(files["failing"])
    res = run(url, "stack", "create", "-t", str(failing), "bad", "--wait")
    assert res.exit_code == 1 and stack(app, "bad")["stack_status"] == "CREATE_FAILED"
    refused = run(url, "stack", "retry", "s-none")
    assert refused.exit_code == 2
    retried = run(url, "stack", "retry", "bad", "--wait")  # fails again: same template
    assert retried.exit_code == 1 and stack(app, "bad")["stack_status"] == "UPDATE_FAILED"
    res = run(url, "stack", "rollback", "bad", "--wait")  # never completed: all deleted
    assert res.exit_code == 0 and stack(app, "bad")["stack_status"] == "ROLLBACK_COMPLETE"
    assert run(url, "stack", "create", "-t", files["v1"], "good").exit_code == 0
    res = run(url, "stack", "retry", "good")
    assert res.exit_code == 2 and "CREATE_COMPLETE" in res.output


def test_continue_rollback_refused_for_a_stack_whose_rollback_did_not_fail(app, url, files):  # noqa: F811
    assert run(url, "stack", "create", "-t", files["v1"], "fine").exit_code == 0
    res = run(url, "stack", "continue-rollback", "fine", "--skip", "msg")
    assert res.exit_code == 2 and "ROLLBACK_FAILED" in res.output
    assert stack(app, "fine")["stack_status"] == "CREATE_COMPLETE"


def test_change_set_for_a_new_stack(app, url, files):  # noqa: F811
    res = run(url, "stack", "change-set-create", "born", "c1", "--new", "-t", files["v1"],
              "-f", "json")
    assert res.exit_code == 0, res.output
    assert {c["action"] for c in json.loads(res.output)["changes"]} == {"Add"}
    assert stack(app, "born")["stack_status"] == "REVIEW_IN_PROGRESS"
    res = run(url, "stack", "change-set-execute", "born", "c1", "--wait")
    assert res.exit_code == 0, res.output
    assert stack(app, "born")["stack_status"] == "CREATE_COMPLETE"
