"""AWS::IAM::User, AWS::IAM::AccessKey, OS::Heat::AccessPolicy and the native handle's signal
transports through the API in noauth mode (SQLite, tasks in-process: the stack users are the
local equivalent of Keystone's). Expected values from Heat's aws/iam/user.py,
access_policy.py and signal_responder.py (``_get_signal``)."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

IAM = {"HeatTemplateFormatVersion": "2012-12-12",
       "Resources": {
           "Config": {"Type": "OS::Heat::RandomString"},
           "Policy": {"Type": "OS::Heat::AccessPolicy",
                      "Properties": {"AllowedResources": ["Config"]}},
           "User": {"Type": "AWS::IAM::User",
                    "Properties": {"Policies": [{"Ref": "Policy"}, {"an": "IAM policy"}],
                                   "LoginProfile": {"Password": "pw"}}},
           "Key": {"Type": "AWS::IAM::AccessKey", "Properties": {"UserName": {"Ref": "User"}}}},
       "Outputs": {"Access": {"Value": {"Ref": "Key"}},
                   "Secret": {"Value": {"Fn::GetAtt": ["Key", "SecretAccessKey"]}},
                   "Name": {"Value": {"Fn::GetAtt": ["Key", "UserName"]}},
                   "User": {"Value": {"Ref": "User"}}}}


@pytest.fixture()
def api(db):  # type: ignore[no-untyped-def]
    from app.api import create_app
    return create_app(db).test_client()


def _create(api: Any, name: str, template: dict[str, Any]) -> dict[str, Any]:
    resp = api.post("/v1/admin/stacks", json={"stack_name": name, "template": template})
    assert resp.status_code == 201, resp.get_json()
    base = f"/v1/admin/stacks/{name}/{resp.get_json()['stack']['id']}"
    return dict(api.get(base).get_json()["stack"], base=base)


def _outputs(stack: dict[str, Any]) -> dict[str, Any]:
    return {o["output_key"]: o.get("output_value") for o in stack["outputs"]}


def test_a_user_and_its_access_key(api):
    st = _create(api, "iam", IAM)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    outs = _outputs(st)
    assert re.fullmatch(r"iam-User-[a-z2-7]{12}", outs["User"])
    assert outs["Name"] == outs["User"]
    assert re.fullmatch(r"[0-9a-f]{32}", outs["Access"])
    assert len(outs["Secret"]) >= 20 and outs["Secret"] != "000-000-000"
    rows = {r["resource_name"]: r for r in
            api.get(f"{st['base']}/resources").get_json()["resources"]}
    assert rows["Key"]["physical_resource_id"] == outs["Access"]
    assert re.fullmatch(r"[0-9a-f]{32}", rows["User"]["physical_resource_id"])
    assert rows["Policy"]["resource_status"] == "CREATE_COMPLETE"
    resp = api.delete(st["base"])
    assert resp.status_code == 204
    assert api.get(st["base"]).get_json()["stack"]["stack_status"] == "DELETE_COMPLETE"


def test_a_policy_that_is_not_an_access_policy_fails_the_user(api):
    tmpl = {"HeatTemplateFormatVersion": "2012-12-12",
            "Resources": {"Config": {"Type": "OS::Heat::RandomString"},
                          "User": {"Type": "AWS::IAM::User",
                                   "Properties": {"Policies": [{"Ref": "Config"}]}}}}
    st = _create(api, "iam-bad-policy", tmpl)
    assert st["stack_status"] == "CREATE_FAILED"
    assert st["stack_status_reason"] == ("Resource CREATE failed: InvalidTemplateAttribute: "
                                         "resources.User: The Referenced Attribute (User "
                                         "Policies) is incorrect.")


def test_an_access_key_of_no_stack_user_fails(api):
    tmpl = {"HeatTemplateFormatVersion": "2012-12-12",
            "Resources": {"Key": {"Type": "AWS::IAM::AccessKey",
                                  "Properties": {"UserName": "nobody"}}},
            "Outputs": {"Secret": {"Value": {"Fn::GetAtt": ["Key", "SecretAccessKey"]}}}}
    st = _create(api, "iam-no-user", tmpl)
    assert st["stack_status"] == "CREATE_FAILED"
    assert st["stack_status_reason"] == ("Resource CREATE failed: NotFound: resources.Key: "
                                         "could not find user nobody")


def test_an_access_policy_naming_no_resource_is_heats_validation_error(api):
    tmpl = {"heat_template_version": "2013-05-23",
            "resources": {"policy": {"type": "OS::Heat::AccessPolicy",
                                     "properties": {"AllowedResources": ["nope"]}}}}
    # Heat's /validate checks the template only (validate_res_tmpl_only): no plugin checks
    assert api.post("/v1/admin/validate", json={"template": tmpl}).status_code == 200
    resp = api.post("/v1/admin/stacks", json={"stack_name": "ap", "template": tmpl})
    assert resp.status_code == 400, resp.get_json()
    error = resp.get_json()["error"]
    assert error["type"] == "StackValidationFailed"
    assert error["message"] == "AccessPolicy resource nope not in stack"
    assert api.get("/v1/admin/stacks").get_json()["stacks"] == []


def _handle(transport: str) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31",
            "resources": {"h": {"type": "OS::Heat::WaitConditionHandle",
                                "properties": {"signal_transport": transport}}},
            "outputs": {"signal": {"value": {"get_attr": ["h", "signal"]}},
                        "token": {"value": {"get_attr": ["h", "token"]}}}}


def test_the_handles_signal_transports(api):
    cfn = _create(api, "h-cfn", _handle("CFN_SIGNAL"))
    outs = _outputs(cfn)
    signal = json.loads(outs["signal"])
    assert list(signal) == ["alarm_url"]
    assert signal["alarm_url"].startswith("http://127.0.0.1:8000/v1/waitcondition/arn%3A")
    assert outs["token"] is None

    heat = _create(api, "h-heat", _handle("HEAT_SIGNAL"))
    signal = json.loads(_outputs(heat)["signal"])
    assert sorted(signal) == ["alarm_url", "auth_url", "domain_id", "password", "project_id",
                              "region_name", "user_id", "username"]
    assert signal["alarm_url"] == (f"http://127.0.0.1:8004/v1/admin/stacks/h-heat/"
                                   f"{heat['id']}/resources/h/signal")
    assert signal["project_id"] == "admin" and signal["username"].startswith("h-heat-h-")
    # the alarm_url takes the API's signal
    resp = api.post(signal["alarm_url"].split("8004", 1)[1], json={"status": "SUCCESS"})
    assert resp.status_code == 200

    none = _create(api, "h-none", _handle("NO_SIGNAL"))
    assert json.loads(_outputs(none)["signal"]) == {}
