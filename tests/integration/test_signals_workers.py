"""Signals and wait conditions through the API with real Celery workers, Redis and PostgreSQL.

A waiting wait condition holds no task (its node is parked); a signal to its handle wakes it;
an unsignalled one fails at its own timeout with Heat's reason, never a stuck IN_PROGRESS.
"""
from __future__ import annotations

import json

import pytest

from app.context import RequestContext
from tests.fixtures.stacks import api_create, final, parked, rows, wait_for
from tests.integration.conftest import module_fleet

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest")
HOT = "2018-08-31"


# one database and fleet for the module: every test works on a stack of its own, none kills a worker
engine_settings, workers = module_fleet("signals")


@pytest.fixture()
def api(engine_settings, workers):  # type: ignore[no-untyped-def]
    from app.cli.wsgi import create_app
    client = create_app(engine_settings).test_client()
    # noauth takes the project from X-Project-Id (Heat's noauth middleware), not the URL
    client.environ_base["HTTP_X_PROJECT_ID"] = "itest"
    return client


def _template(count: int = 1, timeout: int = 600) -> dict:
    return {"heat_template_version": HOT, "resources": {
        "h": {"type": "OS::Heat::WaitConditionHandle"},
        "wc": {"type": "OS::Heat::WaitCondition",
               "properties": {"handle": {"get_resource": "h"}, "count": count,
                              "timeout": timeout}}},
        "outputs": {"data": {"value": {"get_attr": ["wc", "data"]}}}}


def _waiting(sid: str) -> bool:
    return parked(sid, "wc")


def test_two_api_signals_a_and_b_complete_a_count_two_wait_condition(api):
    sid, base = api_create(api, "wc-two", _template(count=2))
    wait_for(lambda: _waiting(sid), 60, what="the wait condition to park")
    assert rows(sid)["wc"].handle["wait"] == f"signal:{rows(sid)['h'].physical_resource_id}"
    assert api.post(f"{base}/resources/h/signal",
                    json={"id": "a", "data": "first"}).status_code == 200
    wait_for(lambda: _waiting(sid), 60, what="the wait condition to park again")
    assert api.post(f"{base}/resources/h/signal",
                    json={"id": "b", "data": "second"}).status_code == 200
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    assert json.loads(outs["data"]) == {"a": "first", "b": "second"}


def test_an_unsignalled_wait_condition_fails_at_its_timeout(api):
    sid, _ = api_create(api, "wc-timeout", _template(timeout=5))
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == \
        "Resource CREATE failed: WaitConditionTimeout: resources.wc: 0 of 1 received"
    wc = rows(sid)["wc"]
    assert (wc.action, wc.status) == ("CREATE", "FAILED")
    assert wc.status_reason == "WaitConditionTimeout: resources.wc: 0 of 1 received"


def test_a_signal_during_an_update_completes_the_wait_of_the_superseded_create(api):
    tmpl = _template()
    sid, base = api_create(api, "wc-update", tmpl)
    wait_for(lambda: _waiting(sid), 60, what="the wait condition to park")
    parks = rows(sid)["wc"].poll_attempt
    tmpl = json.loads(json.dumps(tmpl))
    tmpl["resources"]["extra"] = {"type": "OS::Heat::None"}
    resp = api.put(base, json={"template": tmpl})
    assert resp.status_code == 202, resp.get_json()
    wait_for(lambda: rows(sid).get("extra") is not None, 60, what="the update to start")

    def parked_by_update() -> bool:  # the update's node took the wait over, holding no task
        wc = rows(sid)["wc"]  # (a poll would store no "wait")
        return bool(wc.status == "IN_PROGRESS" and wc.engine_id is None
                    and wc.poll_attempt > parks and isinstance(wc.handle, dict)
                    and wc.handle.get("wait"))

    wait_for(parked_by_update, 60, what="the update's node to park")
    assert api.post(f"{base}/resources/h/signal", json={"id": "u", "data": "d"}).status_code \
        == 200
    st = final(CTX, sid, 120)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    got = rows(sid)
    assert (got["wc"].status, got["extra"].status) == ("COMPLETE", "COMPLETE")
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    assert json.loads(outs["data"]) == {"u": "d"}


def test_a_signal_to_a_type_that_takes_none_and_after_delete(api):
    sid, base = api_create(api, "nosig", {"heat_template_version": HOT, "resources": {
        "n": {"type": "OS::Heat::None"}}})
    assert final(CTX, sid, 60).stack_status == "CREATE_COMPLETE"
    resp = api.post(f"{base}/resources/n/signal", json={})
    assert resp.status_code == 400
    assert resp.get_json()["error"]["type"] == "ResourceActionNotSupported"
    assert api.delete(base).status_code == 204
    assert final(CTX, sid, 60).stack_status == "DELETE_COMPLETE"
    resp = api.post(f"{base}/resources/n/signal", json={})
    assert resp.status_code == 404


def test_a_delay_parks_its_node_then_completes_on_create_and_delete(api):
    sid, base = api_create(api, "delay", {"heat_template_version": HOT, "resources": {
        "d": {"type": "OS::Heat::Delay",
              "properties": {"min_wait": 2, "actions": ["CREATE", "DELETE"]}},
        "after": {"type": "OS::Heat::None", "depends_on": ["d"]}}})

    def parked() -> bool:
        d = rows(sid)["d"]
        return bool(d.status == "IN_PROGRESS" and d.engine_id is None
                    and isinstance(d.handle, dict) and d.handle.get("wait") == "delay")

    wait_for(parked, 60, what="the delay to park without a task")
    assert rows(sid)["after"].action == "INIT"
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert api.delete(base).status_code == 204
    st = final(CTX, sid, 120)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason


def test_an_os_heat_stack_with_an_inline_template_exposes_its_childs_outputs(api):
    import yaml
    child = yaml.safe_dump({"heat_template_version": HOT,
                            "parameters": {"n": {"type": "number"}},
                            "resources": {"r": {"type": "OS::Heat::RandomString",
                                                "properties": {"length": {"get_param": "n"}}}},
                            "outputs": {"secret": {"value": {"get_attr": ["r", "value"]}}}})
    sid, _ = api_create(api, "remote", {"heat_template_version": HOT, "resources": {
        "s": {"type": "OS::Heat::Stack",
              "properties": {"template": child, "parameters": {"n": 9}}}},
        "outputs": {"secret": {"value": {"get_attr": ["s", "outputs", "secret"]}},
                    "all": {"value": {"get_attr": ["s", "outputs"]}}}})
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    assert len(outs["secret"]) == 9 and outs["all"] == {"secret": outs["secret"]}
    from app.services import stacks
    kid = stacks.get_by_id(CTX, rows(sid)["s"].physical_resource_id)
    assert kid.stack_status == "CREATE_COMPLETE"
    assert {o["output_key"]: o["output_value"] for o in kid.outputs} == {"secret": outs["secret"]}


def test_an_aws_wait_condition_completes_on_a_put_to_its_presigned_url(api, engine_settings):
    from urllib.parse import urlparse

    from app.cli.wsgi import create_cfn_app
    sid, _ = api_create(api, "aws-wc", {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"H": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
                      "W": {"Type": "AWS::CloudFormation::WaitCondition",
                            "Properties": {"Handle": {"Ref": "H"}, "Timeout": 300}}},
        "Outputs": {"Data": {"Value": {"Fn::GetAtt": ["W", "Data"]}}}})
    wait_for(lambda: (rows(sid).get("W") is not None and rows(sid)["W"].status == "IN_PROGRESS"
                      and rows(sid)["W"].engine_id is None), 60, what="W to park")
    url = urlparse(rows(sid)["H"].rsrc_data["ec2_signed_url"])
    client = create_cfn_app(engine_settings).test_client()
    body = json.dumps({"Status": "SUCCESS", "Reason": "ok", "Data": "hello", "UniqueId": "1"})
    bad = url.query.replace("Signature=", "Signature=x")
    resp = client.put(f"{url.path}?{bad}", base_url=f"{url.scheme}://{url.netloc}", data=body)
    assert resp.status_code == 403 and b"SignatureDoesNotMatch" in resp.data
    resp = client.put(f"{url.path}?{url.query}", base_url=f"{url.scheme}://{url.netloc}",
                      data=body)
    assert resp.status_code == 200, resp.data
    st = final(CTX, sid, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert json.loads({o["output_key"]: o["output_value"] for o in st.outputs}["Data"]) == \
        {"1": "hello"}


def test_outputs_are_resolved_from_the_current_template_while_the_stack_waits(api):
    """Heat's list_outputs / show_output resolve the current template's outputs while an action
    is in progress: the handle's curl_cli is readable while its wait condition waits, the wait
    condition's data is null until it completes, and an update's new outputs appear at once."""
    tmpl = _template()
    tmpl["outputs"]["curl"] = {"value": {"get_attr": ["h", "curl_cli"]}}
    sid, base = api_create(api, "wc-outputs", tmpl)
    wait_for(lambda: _waiting(sid), 60, what="the wait condition to park")
    shown = api.get(f"{base}/outputs/curl")
    assert shown.status_code == 200, shown.get_json()
    curl = shown.get_json()["output"]["output_value"]
    assert curl.startswith("curl -i -X POST") and f"/stacks/wc-outputs/{sid}/resources/h/signal" in curl
    assert api.get(f"{base}/outputs/data").get_json()["output"]["output_value"] is None
    assert {o["output_key"] for o in api.get(base).get_json()["stack"]["outputs"]} \
        == {"curl", "data"}
    updated = json.loads(json.dumps(tmpl))
    updated["outputs"] = {"handle": {"value": {"get_resource": "h"}}}
    assert api.put(base, json={"template": updated}).status_code == 202
    wait_for(lambda: api.get(base).get_json()["stack"]["stack_status"] == "UPDATE_IN_PROGRESS",
             60, what="the update to start")
    listed = api.get(f"{base}/outputs").get_json()["outputs"]
    assert [o["output_key"] for o in listed] == ["handle"]
    assert api.get(f"{base}/outputs/curl").status_code == 404
    assert api.get(f"{base}/outputs/handle").get_json()["output"]["output_value"] \
        == rows(sid)["h"].physical_resource_id
    assert api.post(f"{base}/resources/h/signal", json={"id": "1"}).status_code == 200
    st = final(CTX, sid, 120)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
