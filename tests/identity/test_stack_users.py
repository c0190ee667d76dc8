"""Heat's stack users in keystone mode, against the sandbox's Keystone and a real one.

Expected values follow heat_keystoneclient (``create_stack_domain_project``: a project of the
stack user domain named ``<project>-<stack id>`` cut to 64, description ``Heat stack user
project``; ``create_stack_domain_user``: a user of the domain with only ``heat_stack_user`` on
that project; ``create_stack_domain_user_keypair``: an ``ec2`` credential; ``delete_*``), the
native handle's TOKEN_SIGNAL (a token of the handle's stack user; the endpoint carries the
stack-user project) and heat-api-cfn's ec2token path (Keystone's ``/v3/ec2tokens``).
"""
from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlparse

import pytest
import requests
from sqlalchemy import select

from app.clients import stack_users
from app.resource_types import _ec2sign
from tests.identity.conftest import World, unique

pytestmark = pytest.mark.usefixtures("ks_settings")


def heat_domain(world: World) -> Any:
    return world.admin().domains.list(name="heat")[0]


def _token_info(world: World, token: str) -> dict[str, Any]:
    admin = world.session("admin").get_token()
    resp = requests.get(f"{world.auth_url}/auth/tokens", timeout=30,
                        headers={"X-Auth-Token": admin, "X-Subject-Token": token})
    assert resp.status_code == 200, resp.text
    return dict(resp.json()["token"])


def _ec2tokens(world: World, access: str, secret: str, timestamp: str | None) -> int:
    """Status of Keystone's /v3/ec2tokens for a request signed as heat-api-cfn gets it."""
    params = {"SignatureMethod": "HmacSHA256", "SignatureVersion": "2",
              "AWSAccessKeyId": access}
    if timestamp:
        params["Timestamp"] = timestamp
    sig = _ec2sign.signature_v2(secret, "PUT", "127.0.0.1:8000", "/v1/waitcondition/x", params)
    body = {"ec2Credentials": {"access": access, "signature": sig, "host": "127.0.0.1:8000",
                               "verb": "PUT", "path": "/v1/waitcondition/x", "params": params,
                               "headers": {}, "body_hash": ""}}
    resp = requests.post(f"{world.auth_url}/ec2tokens", json=body, timeout=30)
    return resp.status_code


def test_a_stack_user_lives_in_its_stacks_project_of_the_heat_domain(world, ks_settings):
    users = stack_users.for_settings(ks_settings)
    assert isinstance(users, stack_users.KeystoneStackUsers)
    tenant, stack_id = world.project_of("alice"), unique("stack")
    project = users.project_for(tenant, stack_id)
    assert users.project_for(tenant, stack_id) == project  # found, not made twice
    kc = world.admin()
    made = kc.projects.get(project)
    domain = heat_domain(world)
    assert made.domain_id == domain.id
    assert made.name == f"{tenant}-{stack_id}"[:64]
    assert made.description == "Heat stack user project"

    user_id = users.create_user("s-handle-abcdefgh", project, "pw-123456")
    user = kc.users.get(user_id)
    assert user.domain_id == domain.id and user.default_project_id == project
    roles = [kc.roles.get(a.role["id"]).name
             for a in kc.role_assignments.list(user=user_id)]
    assert roles == ["heat_stack_user"]
    assert users.find_user("s-handle-abcdefgh") == user_id

    token = users.user_token(user_id, project, "pw-123456")
    info = _token_info(world, token)
    assert info["project"]["id"] == project
    assert [r["name"] for r in info["roles"]] == ["heat_stack_user"]

    kp = users.create_keypair(user_id, project)
    assert len(kp.access) == 32
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    assert _ec2tokens(world, kp.access, kp.secret, stamp) == 200
    # Keystone's [credential] auth_ttl (15 minutes): an older Timestamp is refused
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 16 * 60))
    assert _ec2tokens(world, kp.access, kp.secret, old) == 401
    assert _ec2tokens(world, kp.access, "not-the-secret", stamp) == 401

    users.delete_keypair(user_id, project, kp.id)
    assert [c for c in kc.credentials.list(user_id=user_id)] == []
    users.delete_keypair(user_id, project, kp.id)  # gone already: fine

    # a user left behind goes with the project
    users.delete_project(project)
    assert kc.projects.list(domain=domain.id, name=made.name) == []
    assert kc.users.list(domain=domain.id, name="s-handle-abcdefgh") == []
    users.delete_project(project)  # gone already: fine


NATIVE = {"heat_template_version": "2018-08-31",
          "resources": {
              "handle": {"type": "OS::Heat::WaitConditionHandle"},
              "wait": {"type": "OS::Heat::WaitCondition",
                       "properties": {"handle": {"get_resource": "handle"}, "timeout": 600}}},
          "outputs": {"data": {"value": {"get_attr": ["wait", "data"]}}}}
AWS = {"AWSTemplateFormatVersion": "2010-09-09",
       "Resources": {
           "H": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
           "W": {"Type": "AWS::CloudFormation::WaitCondition",
                 "Properties": {"Handle": {"Ref": "H"}, "Timeout": 600}}},
       "Outputs": {"Data": {"Value": {"Fn::GetAtt": ["W", "Data"]}}}}
IAM = {"HeatTemplateFormatVersion": "2012-12-12",
       "Resources": {
           "Config": {"Type": "OS::Heat::RandomString"},
           "Policy": {"Type": "OS::Heat::AccessPolicy",
                      "Properties": {"AllowedResources": ["Config"]}},
           "User": {"Type": "AWS::IAM::User", "Properties": {"Policies": [{"Ref": "Policy"}]}},
           "Key": {"Type": "AWS::IAM::AccessKey", "Properties": {"UserName": {"Ref": "User"}}}},
       "Outputs": {"Access": {"Value": {"Ref": "Key"}},
                   "Secret": {"Value": {"Fn::GetAtt": ["Key", "SecretAccessKey"]}},
                   "Name": {"Value": {"Fn::GetAtt": ["Key", "UserName"]}},
                   "User": {"Value": {"Ref": "User"}}}}


def _create(api: Any, world: World, template: dict[str, Any]) -> dict[str, Any]:
    token, project = world.token("alice"), world.project_of("alice")
    name = unique("su")
    resp = api.post(f"/v1/{project}/stacks", headers={"X-Auth-Token": token},
                    json={"stack_name": name, "template": template})
    assert resp.status_code == 201, resp.get_json()
    base = f"/v1/{project}/stacks/{name}/{resp.get_json()['stack']['id']}"
    return {"base": base, "token": token, "project": project, "name": name,
            "id": resp.get_json()["stack"]["id"]}


def _show(api: Any, st: dict[str, Any]) -> dict[str, Any]:
    resp = api.get(st["base"], headers={"X-Auth-Token": st["token"]})
    assert resp.status_code == 200, resp.get_json()
    return dict(resp.get_json()["stack"])


def _data(stack_id: str, name: str) -> dict[str, Any]:
    from app.models import Resource, read_session
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == stack_id,
                                               Resource.name == name)).scalar_one()
    return dict(row.rsrc_data or {})


def _delete(api: Any, st: dict[str, Any]) -> None:
    resp = api.delete(st["base"], headers={"X-Auth-Token": st["token"]})
    assert resp.status_code == 204
    assert _show(api, st)["stack_status"] == "DELETE_COMPLETE"


def _nothing_left(world: World, st: dict[str, Any], user_ids: list[str]) -> None:
    kc = world.admin()
    domain = heat_domain(world)
    assert kc.projects.list(domain=domain.id, name=f"{st['project']}-{st['id']}"[:64]) == []
    from keystoneauth1 import exceptions
    for user_id in user_ids:
        with pytest.raises(exceptions.NotFound):
            kc.users.get(user_id)
        assert kc.credentials.list(user_id=user_id) == []


def test_a_token_signal_handle_gets_a_stack_users_token_that_only_signals(api, world):
    st = _create(api, world, NATIVE)
    assert _show(api, st)["stack_status"] == "CREATE_IN_PROGRESS"
    data = _data(st["id"], "handle")
    user_project = data["stack_user_project_id"]
    assert user_project != st["project"]
    # Heat's _get_resource_endpoint: the stack user's project in place of the stack's
    endpoint = urlparse(data["endpoint"]).path
    assert endpoint == (f"/v1/{user_project}/stacks/{st['name']}/{st['id']}/resources/"
                        "handle/signal")
    info = _token_info(world, data["token"])
    assert info["user"]["id"] == data["user_id"]
    assert info["project"]["id"] == user_project
    assert [r["name"] for r in info["roles"]] == ["heat_stack_user"]
    assert info["user"]["domain"]["id"] == heat_domain(world).id

    stack_user = {"X-Auth-Token": data["token"]}
    # a stack user reads nothing else: its project's stack list and the owner's project
    assert api.get(f"/v1/{user_project}/stacks", headers=stack_user).status_code == 403
    assert api.get(st["base"], headers=stack_user).status_code == 403
    resp = api.post(endpoint, headers=stack_user, json={"status": "SUCCESS", "data": "hello"})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    shown = _show(api, st)
    assert shown["stack_status"] == "CREATE_COMPLETE", shown["stack_status_reason"]
    assert json.loads(shown["outputs"][0]["output_value"]) == {"1": "hello"}
    # another stack's stack user may not signal this one
    other = _create(api, world, NATIVE)
    foreign = _data(other["id"], "handle")
    resp = api.post(endpoint, headers={"X-Auth-Token": foreign["token"]}, json={})
    assert resp.status_code == 403

    _delete(api, st)
    _delete(api, other)
    _nothing_left(world, st, [data["user_id"]])
    _nothing_left(world, other, [foreign["user_id"]])


def _put(cfn: Any, url: str, body: dict[str, Any]) -> Any:
    parts = urlparse(url)
    return cfn.put(parts.path + "?" + parts.query, base_url=f"{parts.scheme}://{parts.netloc}",
                   data=json.dumps(body), content_type="application/json")


def _code(resp: Any) -> str | None:
    from xml.etree import ElementTree as ET
    return ET.fromstring(resp.data).findtext("Error/Code")


def test_an_aws_handles_url_is_signed_by_its_stack_user_and_checked_by_keystone(
        api, world, ks_settings):
    from app import cfn as cfn_app
    cfn = cfn_app.create_app(ks_settings).test_client()
    st = _create(api, world, AWS)
    data = _data(st["id"], "H")
    kc = world.admin()
    creds = kc.credentials.list(user_id=data["user_id"])
    assert [json.loads(c.blob)["access"] for c in creds] == [data["access_key"]]
    url = data["ec2_signed_url"]
    query = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
    assert query["AWSAccessKeyId"] == data["access_key"]

    tampered = url.replace("Signature=", "Signature=x")
    resp = _put(cfn, tampered, {"Status": "SUCCESS", "UniqueId": "1"})
    # Keystone's 401 reason says "signature" only when it shows its messages (the sandbox;
    # a real Keystone without insecure_debug hides it): Heat's EC2Token then says AccessDenied
    expected = "AccessDenied" if world.name == "keystone" else "SignatureDoesNotMatch"
    assert resp.status_code == 403 and _code(resp) == expected
    # the same URL signed with a Timestamp older than Keystone's auth_ttl: refused
    old = dict(query, Timestamp=time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                              time.gmtime(time.time() - 16 * 60)))
    old.pop("Signature")
    parts = urlparse(url)
    old["Signature"] = _ec2sign.signature_v2(data["secret_key"], "PUT", parts.netloc,
                                             unquote(parts.path), old)
    resp = _put(cfn, f"{parts.scheme}://{parts.netloc}{parts.path}?{urlencode(old)}",
                {"Status": "SUCCESS", "UniqueId": "1"})
    assert resp.status_code == 403 and _code(resp) == "AccessDenied"
    assert _show(api, st)["stack_status"] == "CREATE_IN_PROGRESS"

    resp = _put(cfn, url, {"Status": "SUCCESS", "Reason": "up", "Data": "hi", "UniqueId": "1"})
    assert resp.status_code == 200, resp.data
    shown = _show(api, st)
    assert shown["stack_status"] == "CREATE_COMPLETE", shown["stack_status_reason"]
    assert json.loads(shown["outputs"][0]["output_value"]) == {"1": "hi"}
    _delete(api, st)
    _nothing_left(world, st, [data["user_id"]])


def test_iam_user_and_access_key_are_keystone_users_and_credentials(api, world):
    st = _create(api, world, IAM)
    shown = _show(api, st)
    assert shown["stack_status"] == "CREATE_COMPLETE", shown["stack_status_reason"]
    outs = {o["output_key"]: o["output_value"] for o in shown["outputs"]}
    user = _data(st["id"], "User")
    kc = world.admin()
    made = kc.users.get(user["user_id"])
    assert made.name == outs["User"] == outs["Name"]
    assert outs["User"].startswith(f"{st['name']}-User-")
    assert made.domain_id == heat_domain(world).id
    assert made.default_project_id == user["stack_user_project_id"]
    creds = kc.credentials.list(user_id=user["user_id"])
    assert [json.loads(c.blob) for c in creds] == [
        {"access": outs["Access"], "secret": outs["Secret"]}]
    # Heat's StackUser.handle_suspend / handle_resume: the user is disabled, then enabled
    for action, enabled in (("suspend", False), ("resume", True)):
        resp = api.post(f"{st['base']}/actions", headers={"X-Auth-Token": st["token"]},
                        json={action: None})
        assert resp.status_code == 200, resp.get_json()
        shown = _show(api, st)
        assert shown["stack_status"] == f"{action.upper()}_COMPLETE", \
            shown["stack_status_reason"]
        assert kc.users.get(user["user_id"]).enabled is enabled
    _delete(api, st)
    _nothing_left(world, st, [user["user_id"]])
