"""Software deployments through the API with real Celery workers, Redis and PostgreSQL (the
server is a plain id here; the sandbox agent's side is in test_up_software.py).

As Heat's software_deployment.py: the deployment stores a derived config and a deployment
record IN_PROGRESS, then waits holding no task; a signal with ``deploy_status_code`` 0 and the
outputs completes it and sets its attributes; a non-zero code fails it with Heat's reason; a
PUT of the deployment's status through the API ends the wait too; NO_SIGNAL completes at once.
"""
from __future__ import annotations

import pytest

from app.context import RequestContext
from tests.fixtures.stacks import api_create, final, parked, rows, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest")


@pytest.fixture()
def api(engine_settings, workers):  # type: ignore[no-untyped-def]
    from app.cli.wsgi import create_app
    client = create_app(engine_settings).test_client()
    client.environ_base["HTTP_X_PROJECT_ID"] = "itest"
    return client


def _template(transport: str = "HEAT_SIGNAL") -> dict:
    return {"heat_template_version": "2018-08-31", "resources": {
        "config": {"type": "OS::Heat::SoftwareConfig", "properties": {
            "group": "script", "config": "#!/bin/sh\necho hi > $heat_outputs_path.result",
            "inputs": [{"name": "foo"}, {"name": "bar", "default": "B"}],
            "outputs": [{"name": "result"}]}},
        "deployment": {"type": "OS::Heat::SoftwareDeployment", "properties": {
            "config": {"get_resource": "config"}, "server": "srv-1",
            "input_values": {"foo": "F", "extra": 2}, "signal_transport": transport}}},
        "outputs": {"result": {"value": {"get_attr": ["deployment", "result"]}},
                    "stdout": {"value": {"get_attr": ["deployment", "deploy_stdout"]}},
                    "code": {"value": {"get_attr": ["deployment", "deploy_status_code"]}}}}


def _waiting(sid: str) -> bool:
    return parked(sid, "deployment")


def test_a_signalled_deployment_completes_with_its_outputs(api):
    sid, base = api_create(api, "sd-ok", _template())
    wait_for(lambda: _waiting(sid), 60, what="the deployment to park")
    dep_id = rows(sid)["deployment"].physical_resource_id
    sd = api.get(f"/v1/itest/software_deployments/{dep_id}").get_json()["software_deployment"]
    assert (sd["server_id"], sd["action"], sd["status"], sd["status_reason"]) == \
        ("srv-1", "CREATE", "IN_PROGRESS", "Deploy data available")
    (derived,) = api.get("/v1/itest/software_deployments/metadata/srv-1").get_json()["metadata"]
    assert derived["id"] == sd["config_id"] and derived["group"] == "script"
    values = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert values["foo"] == "F" and values["bar"] == "B" and values["extra"] == 2
    assert values["deploy_server_id"] == "srv-1" and values["deploy_action"] == "CREATE"
    assert values["deploy_stack_id"] == f"sd-ok/{sid}"
    assert values["deploy_resource_name"] == "deployment"
    assert values["deploy_signal_transport"] == "HEAT_SIGNAL"
    assert "deploy_password" in values and "deploy_auth_url" in values
    assert derived["outputs"] == [{"name": "result", "type": "String", "error_output": False}]
    resp = api.post(f"{base}/resources/deployment/signal", json={
        "deploy_stdout": "done", "deploy_stderr": "", "deploy_status_code": 0,
        "result": "hi\n"})
    assert resp.status_code == 200
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    assert outs == {"result": "hi\n", "stdout": "done", "code": 0}
    sd = api.get(f"/v1/itest/software_deployments/{dep_id}").get_json()["software_deployment"]
    assert (sd["status"], sd["status_reason"]) == ("COMPLETE", "Outputs received")
    events = api.get(f"{base}/resources/deployment/events").get_json()["events"]
    assert any(e["resource_status_reason"] == f"Signal: deployment {dep_id} succeeded"
               for e in events), events
    assert api.delete(base).status_code == 204
    assert final(CTX, sid, 60).stack_status == "DELETE_COMPLETE"
    assert api.get(f"/v1/itest/software_deployments/{dep_id}").status_code == 404
    assert api.get("/v1/itest/software_configs").get_json() == {"software_configs": []}


def test_a_non_zero_status_code_fails_the_deployment_with_heats_reason(api):
    sid, base = api_create(api, "sd-fail", _template())
    wait_for(lambda: _waiting(sid), 60, what="the deployment to park")
    bad = api.post(f"{base}/resources/deployment/signal", json=["not", "an", "object"])
    assert bad.status_code == 400  # Heat 27: a 500 (AttributeError)
    assert bad.get_json()["error"]["message"] == \
        "ValueError: resources.deployment: The signal's body must be a JSON object"
    api.post(f"{base}/resources/deployment/signal", json={
        "deploy_stdout": "", "deploy_stderr": "boom", "deploy_status_code": 3})
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == (
        "Resource CREATE failed: Error: resources.deployment: Deployment to server failed: "
        "deploy_status_code : Deployment exited with non-zero status code: 3")


def test_a_put_of_the_deployment_status_ends_the_wait_and_no_signal_does_not_wait(api):
    sid, _ = api_create(api, "sd-put", _template())
    wait_for(lambda: _waiting(sid), 60, what="the deployment to park")
    dep_id = rows(sid)["deployment"].physical_resource_id
    resp = api.put(f"/v1/itest/software_deployments/{dep_id}",
                   json={"status": "COMPLETE", "status_reason": "by hand"})
    assert resp.status_code == 200
    assert final(CTX, sid, 60).stack_status == "CREATE_COMPLETE"
    sid2, _ = api_create(api, "sd-none", _template("NO_SIGNAL"))
    assert final(CTX, sid2, 60).stack_status == "CREATE_COMPLETE"
    dep2 = rows(sid2)["deployment"].physical_resource_id
    sd = api.get(f"/v1/itest/software_deployments/{dep2}").get_json()["software_deployment"]
    assert (sd["status"], sd["status_reason"]) == ("COMPLETE", "Not waiting for outputs signal")


@pytest.mark.parametrize("group_type", ["OS::Heat::SoftwareDeploymentGroup",
                                        "OS::Heat::SoftwareDeployments"])  # Heat's HIDDEN name
def test_a_deployment_group_deploys_to_each_server_and_maps_their_outputs(api, group_type):
    from app.models import Stack, read_session
    tmpl = _template()
    tmpl["resources"]["deployment"] = {"type": group_type,
                                       "properties": {
                                           "config": {"get_resource": "config"},
                                           "servers": {"a": "srv-a", "b": "srv-b"},
                                           "input_values": {"foo": "F"},
                                           "signal_transport": "HEAT_SIGNAL"}}
    tmpl["outputs"] = {"stdouts": {"value": {"get_attr": ["deployment", "deploy_stdouts"]}},
                       "codes": {"value": {"get_attr": ["deployment", "deploy_status_codes"]}},
                       "results": {"value": {"get_attr": ["deployment", "result"]}}}
    sid, _ = api_create(api, "sdg", tmpl)
    wait_for(lambda: rows(sid).get("deployment") is not None
             and rows(sid)["deployment"].physical_resource_id, 60, what="the member stack")
    child_id = rows(sid)["deployment"].physical_resource_id
    with read_session() as s:
        child = s.get(Stack, child_id).name
    wait_for(lambda: all(r.status == "IN_PROGRESS" and r.engine_id is None and r.handle
                         for r in rows(child_id).values()) and len(rows(child_id)) == 2,
             60, what="both member deployments to park")
    for name in ("a", "b"):
        server = api.get(f"/v1/itest/software_deployments?server_id=srv-{name}").get_json()
        assert [d["status"] for d in server["software_deployments"]] == ["IN_PROGRESS"]
        resp = api.post(f"/v1/itest/stacks/{child}/{child_id}/resources/{name}/signal",
                        json={"deploy_stdout": f"out-{name}", "deploy_status_code": 0,
                              "result": f"r-{name}"})
        assert resp.status_code == 200
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    assert outs == {"stdouts": {"a": "out-a", "b": "out-b"}, "codes": {"a": 0, "b": 0},
                    "results": {"a": "r-a", "b": "r-b"}}


def test_an_update_deploys_again_with_a_new_derived_config(api):
    tmpl = _template()
    sid, base = api_create(api, "sd-upd", tmpl)
    wait_for(lambda: _waiting(sid), 60, what="the deployment to park")
    api.post(f"{base}/resources/deployment/signal", json={"deploy_status_code": 0,
                                                          "result": "first"})
    assert final(CTX, sid, 120).stack_status == "CREATE_COMPLETE"
    dep_id = rows(sid)["deployment"].physical_resource_id
    first = api.get(f"/v1/itest/software_deployments/{dep_id}").get_json()[
        "software_deployment"]["config_id"]
    tmpl["resources"]["deployment"]["properties"]["input_values"] = {"foo": "G"}
    assert api.put(base, json={"template": tmpl}).status_code == 202

    def updating() -> bool:
        d = rows(sid)["deployment"]
        return bool(d.action == "UPDATE" and _waiting(sid))

    wait_for(updating, 60, what="the update's deployment to park")
    sd = api.get(f"/v1/itest/software_deployments/{dep_id}").get_json()["software_deployment"]
    assert (sd["action"], sd["status"]) == ("UPDATE", "IN_PROGRESS")
    assert sd["config_id"] != first
    assert api.get(f"/v1/itest/software_configs/{first}").status_code == 404  # Heat deletes it
    (derived,) = api.get("/v1/itest/software_deployments/metadata/srv-1").get_json()["metadata"]
    values = {i["name"]: i.get("value") for i in derived["inputs"]}
    assert (values["foo"], values["deploy_action"]) == ("G", "UPDATE")
    api.post(f"{base}/resources/deployment/signal", json={"deploy_status_code": 0,
                                                          "result": "second"})
    st = final(CTX, sid, 120)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert {o["output_key"]: o["output_value"] for o in st.outputs}["result"] == "second"
