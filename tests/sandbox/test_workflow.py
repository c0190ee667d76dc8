"""Mistral v2 of the sandbox (catalog type ``workflowv2``): workflows from YAML text,
executions that run the DSL subset asynchronously to SUCCESS or ERROR, cron triggers, errors
and project scoping, as Mistral's v2 API reference."""
from __future__ import annotations

import json
import time
import uuid

WF = {"service_type": "workflowv2", "interface": "public"}

DEFINITION = """
version: '2.0'
{name}:
  type: direct
  input: [who, greeting: hello]
  output:
    said: <% $.said %>
    upper: <% $.said.toUpper() %>
  tasks:
    say:
      action: std.echo output="<% $.greeting %> <% $.who %>"
      publish:
        said: <% task().result %>
"""

FAILING = """
version: '2.0'
{name}:
  tasks:
    first:
      action: std.noop
      on-success: [boom]
    boom:
      action: std.fail
"""


def _name() -> str:
    return f"wf_{uuid.uuid4().hex[:8]}"


def _post(conn, path, **kw):
    return conn.session.post(path, endpoint_filter=WF, raise_exc=False, **kw)


def _create_wf(conn, text):
    return _post(conn, "/workflows", data=text, headers={"Content-Type": "text/plain"})


def _settled(conn, ex_id, timeout=5.0):
    deadline = time.monotonic() + timeout
    while True:
        ex = conn.session.get(f"/executions/{ex_id}", endpoint_filter=WF).json()
        if ex["state"] != "RUNNING" or time.monotonic() > deadline:
            return ex
        time.sleep(0.05)


def _delete(conn, path):
    return conn.session.delete(path, endpoint_filter=WF, raise_exc=False)


def test_a_workflow_runs_to_success_with_its_output(conn, no_leaks):
    name = _name()
    resp = _create_wf(conn, DEFINITION.format(name=name))
    assert resp.status_code == 201, resp.text
    wf = resp.json()["workflows"][0]
    assert wf["name"] == name and wf["input"] == 'who, greeting="hello"'
    resp = _post(conn, "/executions", json={"workflow_name": name,
                                             "input": json.dumps({"who": "heat"})})
    assert resp.status_code == 201
    ex = resp.json()
    assert ex["state"] == "RUNNING"
    done = _settled(conn, ex["id"])
    assert done["state"] == "SUCCESS", done["state_info"]
    assert json.loads(done["output"]) == {"said": "hello heat", "upper": "HELLO HEAT"}
    assert _delete(conn, f"/executions/{ex['id']}").status_code == 204
    assert _delete(conn, f"/workflows/{name}").status_code == 204


def test_a_failing_task_makes_the_execution_error_with_mistrals_state_info(conn, no_leaks):
    name = _name()
    assert _create_wf(conn, FAILING.format(name=name)).status_code == 201
    ex = _post(conn, "/executions", json={"workflow_name": name}).json()
    done = _settled(conn, ex["id"])
    assert done["state"] == "ERROR"
    assert done["state_info"].startswith("Failure caused by error in tasks: boom")
    assert "Fail action expected exception." in done["state_info"]
    _delete(conn, f"/workflows/{name}")


def test_errors_are_mistrals(conn, demo_conn, no_leaks):
    name = _name()
    assert _create_wf(conn, DEFINITION.format(name=name)).status_code == 201
    dup = _create_wf(conn, DEFINITION.format(name=name))
    assert dup.status_code == 409 and "Duplicate entry for WorkflowDefinition" in dup.json()["faultstring"]
    bad = _create_wf(conn, "version: '2.0'\nwf: {tasks: {}}\n")
    assert bad.status_code == 400 and bad.json()["faultstring"].startswith("Invalid DSL:")
    unknown = _post(conn, "/executions", json={"workflow_name": name, "input": {"nope": 1}})
    assert unknown.status_code == 400
    assert "unexpected_inputs=['nope']" in unknown.json()["faultstring"]
    missing = _post(conn, "/executions", json={"workflow_name": "no-such-wf"})
    assert missing.status_code == 404
    assert missing.json()["faultstring"] == ("Workflow not found [workflow_identifier="
                                             "no-such-wf, namespace=]")
    # another project's workflow is not found
    other = demo_conn.session.get(f"/workflows/{name}", endpoint_filter=WF, raise_exc=False)
    assert other.status_code == 404
    assert _delete(conn, f"/workflows/{name}").status_code == 204


def test_cron_triggers_compute_their_next_execution(conn, no_leaks):
    name = _name()
    assert _create_wf(conn, DEFINITION.format(name=name)).status_code == 201
    resp = _post(conn, "/cron_triggers", json={"name": "t1", "pattern": "*/5 * * * *",
                                                "workflow_name": name, "remaining_executions": 3,
                                                "workflow_input": {"who": "x"}})
    assert resp.status_code == 201, resp.text
    trig = resp.json()
    assert trig["remaining_executions"] == 3
    minute = int(trig["next_execution_time"][14:16])
    assert minute % 5 == 0
    first = _post(conn, "/cron_triggers", json={"name": "t2", "workflow_name": name,
                                                 "workflow_input": {"who": "y"},
                                                 "first_execution_time": "2099-01-01 10:30"})
    assert first.json()["next_execution_time"] == "2099-01-01 10:30:00"
    none = _post(conn, "/cron_triggers", json={"name": "t3", "workflow_name": name})
    assert none.status_code == 400
    busy = _delete(conn, f"/workflows/{name}")
    assert busy.status_code == 400
    for t in ("t1", "t2"):
        assert _delete(conn, f"/cron_triggers/{t}").status_code == 204
    assert _delete(conn, f"/workflows/{name}").status_code == 204


def test_cron_triggers_start_executions_on_schedule(conn, no_leaks):
    name = _name()
    assert _create_wf(conn, DEFINITION.format(name=name)).status_code == 201
    resp = _post(conn, "/cron_triggers", json={"name": "every-second", "workflow_name": name,
                                                "pattern": "* * * * * */1",
                                                "remaining_executions": 2,
                                                "workflow_input": {"who": "cron"}})
    assert resp.status_code == 201, resp.text
    trigger = resp.json()
    deadline = time.monotonic() + 10
    while True:
        runs = [e for e in conn.session.get("/executions", endpoint_filter=WF).json()["executions"]
                if e["workflow_name"] == name]
        if len(runs) == 2 and all(e["state"] == "SUCCESS" for e in runs) \
                or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert [json.loads(e["output"])["said"] for e in runs] == ["hello cron", "hello cron"]
    assert runs[0]["description"] == \
        f"Workflow execution created by cron trigger '({trigger['id']})'."
    assert runs[0]["created_at"] < runs[1]["created_at"]
    # its count spent, the trigger is gone, as Mistral deletes it
    gone = conn.session.get("/cron_triggers/every-second", endpoint_filter=WF, raise_exc=False)
    assert gone.status_code == 404
    bad = _post(conn, "/cron_triggers", json={"name": "bad", "workflow_name": name,
                                               "pattern": "* * * * * */1",
                                               "workflow_input": {"nope": 1}})
    assert bad.status_code == 400 and "unexpected_inputs=['nope']" in bad.json()["faultstring"]
    for run in runs:
        assert _delete(conn, f"/executions/{run['id']}").status_code == 204
    assert _delete(conn, f"/workflows/{name}").status_code == 204
