"""``stoker stack failures`` / ``stoker stack timeline`` against the real Orchestration API (a
werkzeug server over the ``app`` fixture: SQLite, tasks in-process): a failed nested update's
root cause with its path and message; the table marks the root cause and critical path."""
from __future__ import annotations

from tests.integration.api.test_timeline import FILES, _top, failed_nested_update
from tests.integration.cli.test_update import run


def test_failures_prints_the_root_cause_and_its_path(app, url):
    failed_nested_update(app.test_client(), "nested")
    res = run(url, "stack", "failures", "nested")
    assert res.exit_code == 1, res.output
    lines = res.output.splitlines()
    assert lines[0] == "Root cause of UPDATE_FAILED of stack nested:"
    assert "resource  top/inner/v (OS::Heat::TestResource)" in res.output
    assert "path      nested > top > inner > v" in res.output
    assert "message   ValueError: resources.v: Test Resource failed v" in res.output
    res = run(url, "stack", "failures", "nested", "--operation", "CREATE")
    assert res.exit_code == 0 and "no failure (CREATE_COMPLETE)" in res.output


def test_timeline_prints_a_compact_table(app, url):
    failed_nested_update(app.test_client(), "table")
    res = run(url, "stack", "timeline", "table")
    assert res.exit_code == 0, res.output
    rows = {line.split()[-1] if "(" not in line else line.split("(")[0].split()[-1]: line
            for line in res.output.splitlines()[2:-1]}
    assert "UPDATE_FAILED" in rows["top/inner/v"] and "!" in rows["top/inner/v"]
    assert "!" not in rows["top"]
    assert res.output.splitlines()[0].startswith("Stack table: UPDATE_FAILED")


def test_failures_after_a_rollback_shows_the_cause_in_the_operation_rolled_back(app, url):
    client = app.test_client()
    sid = client.post("/v1/admin/stacks", json={"stack_name": "rb", "template": _top(False),
                                               "files": FILES}).get_json()["stack"]["id"]
    client.put(f"/v1/admin/stacks/rb/{sid}", json={"template": _top(True), "files": FILES,
                                                  "disable_rollback": False})
    assert client.get(f"/v1/admin/stacks/rb/{sid}").get_json()["stack"]["stack_status"] == \
        "ROLLBACK_COMPLETE"
    res = run(url, "stack", "failures", "rb")
    assert res.exit_code == 1, res.output
    assert res.output.splitlines()[0] == "Root cause of UPDATE_FAILED of stack rb:"
    assert "path      rb > top > inner > v" in res.output
    res = run(url, "stack", "timeline", "rb")
    assert res.output.splitlines()[0].startswith("Stack rb: ROLLBACK_COMPLETE")
