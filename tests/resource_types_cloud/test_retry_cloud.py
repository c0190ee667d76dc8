"""Retry and rollback of a failed stack through the Orchestration API (``POST .../actions``),
the in-process engine and the sandbox cloud: a create that failed on an injected fault is
retried once the fault is gone and completes without making again what had completed (same
physical ids); a failed create rolled back on request deletes what it made; both refused
(400, nothing changed) for a stack that is not failed."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  rs: {type: OS::Heat::RandomString}
  net: {type: OS::Neutron::Net}
  key:
    type: OS::Nova::KeyPair
    properties: {name: %(prefix)s-key}
  after:
    type: OS::Nova::KeyPair
    depends_on: key
    properties: {name: %(prefix)s-after}
"""


@pytest.fixture()
def api(cloud_settings: Any, db: Any) -> Any:
    from app.api import create_app
    return create_app(cloud_settings).test_client()


def _create(api: Any, name: str) -> str:
    resp = api.post("/v1/admin/stacks", json={"stack_name": name, "disable_rollback": True,
                                              "template": TEMPLATE % {"prefix": name}})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.headers["Location"].split("localhost", 1)[1])


def _state(api: Any, base: str) -> tuple[str, dict[str, tuple[str, str]]]:
    stack = api.get(base).get_json()["stack"]
    rows = api.get(f"{base}/resources").get_json()["resources"]
    return stack["stack_status"], {r["resource_name"]: (r["resource_status"],
                                                        r["physical_resource_id"]) for r in rows}


def _act(api: Any, base: str, action: str) -> Any:
    return api.post(f"{base}/actions", json={action: None})


def test_failed_create_is_retried_keeping_what_completed(api: Any, sandbox: Any) -> None:
    sandbox.admin("POST", "faults", json={"match": "compute.POST.os-keypairs", "status": 400,
                                          "times": 1, "message": "no keys today"})
    base = _create(api, "retry1")
    status, before = _state(api, base)
    assert status == "CREATE_FAILED"
    assert before["key"][0] == "CREATE_FAILED" and before["after"] == ("INIT_COMPLETE", "")
    assert before["rs"][0] == before["net"][0] == "CREATE_COMPLETE"
    # an argument retry and rollback do not take is refused, not ignored: nothing changes
    for body, words in (({"retry": {"resources": ["key"]}}, "Invalid key(s) resources for "
                         "action retry: it takes null."),
                        ({"rollback": {"retain": True}}, "Invalid key(s) retain for action "
                         "rollback: it takes null."),
                        ({"retry": "now"}, "Invalid value for action retry: it takes null.")):
        bad = api.post(f"{base}/actions", json=body)
        assert bad.status_code == 400 and bad.get_json()["error"]["message"] == words
    assert _state(api, base) == ("CREATE_FAILED", before)
    resp = _act(api, base, "retry")
    assert resp.status_code == 200, resp.get_json()
    status, after = _state(api, base)
    assert status == "UPDATE_COMPLETE", api.get(base).get_json()["stack"]["stack_status_reason"]
    assert {n: s for n, (s, _) in after.items()} == dict.fromkeys(before, "CREATE_COMPLETE")
    assert after["rs"] == before["rs"] and after["net"] == before["net"]
    assert after["key"][1] and after["after"][1]
    # retry of a stack that is not failed: 400, nothing changed
    refused = _act(api, base, "retry")
    assert refused.status_code == 400
    assert refused.get_json()["error"]["type"] == "NotSupported"
    assert "UPDATE_COMPLETE" in refused.get_json()["error"]["message"]
    assert _state(api, base) == (status, after)
    assert _act(api, base, "rollback").status_code == 400
    assert api.delete(base).status_code == 204


def test_failed_create_rolled_back_on_request(api: Any, sandbox: Any) -> None:
    sandbox.admin("POST", "faults", json={"match": "compute.POST.os-keypairs", "status": 400,
                                          "times": 1})
    base = _create(api, "rollback1")
    assert _state(api, base)[0] == "CREATE_FAILED"
    assert _act(api, base, "rollback").status_code == 200
    status, rows = _state(api, base)
    assert status == "ROLLBACK_COMPLETE"
    assert all(s in ("DELETE_COMPLETE", "INIT_COMPLETE") or not p for s, p in rows.values())
    assert api.delete(base).status_code == 204


ROLLING = """
heat_template_version: 2018-08-31
resources:
  rs: {type: OS::Heat::RandomString}
  net: {type: OS::Neutron::Net}
  key:
    type: OS::Nova::KeyPair
    depends_on: [net, rs]
    properties: {name: %(prefix)s-key}
"""


def _rolled_back_failed(api: Any, sandbox: Any, name: str) -> str:
    """A stack whose create failed (a keypair refused) and whose rollback failed too (the
    network's delete refused)."""
    sandbox.admin("POST", "faults", json={"match": "compute.POST.os-keypairs", "status": 400,
                                          "times": 1})
    sandbox.admin("POST", "faults", json={"match": "network.DELETE.networks*", "status": 400,
                                          "message": "network in use"})
    resp = api.post("/v1/admin/stacks", json={"stack_name": name, "disable_rollback": False,
                                              "template": ROLLING % {"prefix": name}})
    assert resp.status_code == 201, resp.get_json()
    base = str(resp.headers["Location"].split("localhost", 1)[1])
    assert _state(api, base)[0] == "ROLLBACK_FAILED"
    return base


def test_failed_rollback_continued_skipping_a_resource(api: Any, sandbox: Any) -> None:
    from tests.sandbox.conftest import connect
    base = _rolled_back_failed(api, sandbox, "cont1")
    status, rows = _state(api, base)
    net_id = rows["net"][1]
    assert rows["net"][0] == "DELETE_FAILED" and net_id
    # bad input: a clear 400, nothing changed
    for body, words in (({"resources_to_skip": ["nope"]}, "not in the stack"),
                        ({"resources_to_skip": "net"}, "list of resource names"),
                        ({"resources_to_skip": ["net"], "force": True},
                         'Invalid key(s) force for action continue_rollback: it takes null or '
                         '{"resources_to_skip": [...]}.'),
                        (["net"], "Invalid value for action continue_rollback")):
        bad = api.post(f"{base}/actions", json={"continue_rollback": body})
        assert bad.status_code == 400 and words in bad.get_json()["error"]["message"]
    assert _state(api, base) == (status, rows)
    resp = api.post(f"{base}/actions",
                    json={"continue_rollback": {"resources_to_skip": ["net"]}})
    assert resp.status_code == 200, resp.get_json()
    status, after = _state(api, base)
    assert status == "ROLLBACK_COMPLETE" and "net" not in after
    events = api.get(f"{base}/events?resource_name=net").get_json()["events"]
    assert any("kept in the cloud" in e["resource_status_reason"] for e in events)
    # the continued ROLLBACK's timeline shows what it did: the skipped resource
    line = api.get(f"{base}/timeline?operation=ROLLBACK").get_json()["timeline"]
    assert (line["operation"]["action"], line["operation"]["status"]) == ("ROLLBACK",
                                                                          "COMPLETE")
    assert [(r["id"], r["outcome"]) for r in line["resources"]] == [("net", "COMPLETE")]
    sandbox.admin("DELETE", "faults")
    conn = connect(sandbox)
    assert conn.network.get_network(net_id).id == net_id  # kept in the cloud
    conn.network.delete_network(net_id)
    assert _act(api, base, "continue_rollback").status_code == 400  # not failed any more
    assert api.delete(base).status_code == 204


def test_failed_rollback_continued_once_the_fault_is_gone(api: Any, sandbox: Any) -> None:
    base = _rolled_back_failed(api, sandbox, "cont2")
    sandbox.admin("DELETE", "faults")
    assert _act(api, base, "continue_rollback").status_code == 200
    assert _state(api, base)[0] == "ROLLBACK_COMPLETE"
    assert api.delete(base).status_code == 204


def test_cfn_continue_update_rollback_skips_a_resource(cloud_settings: Any, db: Any,
                                                      sandbox: Any) -> None:
    from tests.fixtures.cfn import served
    from tests.sandbox.conftest import connect
    sandbox.admin("POST", "faults", json={"match": "compute.POST.os-keypairs", "status": 400,
                                          "times": 1})
    sandbox.admin("POST", "faults", json={"match": "network.DELETE.networks*", "status": 400})
    with served(cloud_settings) as cf:
        cf.create_stack(StackName="cfnstuck", TemplateBody=ROLLING % {"prefix": "cfnstuck"},
                        DisableRollback=False)
        stack = cf.describe_stacks(StackName="cfnstuck")["Stacks"][0]
        assert stack["StackStatus"] == "ROLLBACK_FAILED"
        net = {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in
               cf.describe_stack_resources(StackName="cfnstuck")["StackResources"]}["net"]
        with pytest.raises(cf.exceptions.ClientError) as unknown:
            cf.continue_update_rollback(StackName="cfnstuck", ResourcesToSkip=["nope"])
        assert unknown.value.response["Error"]["Code"] == "ValidationError"
        cf.continue_update_rollback(StackName="cfnstuck", ResourcesToSkip=["net"])
        assert cf.describe_stacks(StackName="cfnstuck")["Stacks"][0]["StackStatus"] == \
            "ROLLBACK_COMPLETE"
        events = cf.describe_stack_events(StackName="cfnstuck")["StackEvents"]
        assert any(e["LogicalResourceId"] == "net" and "kept in the cloud" in
                   e.get("ResourceStatusReason", "") for e in events)
        with pytest.raises(cf.exceptions.ClientError) as again:
            cf.continue_update_rollback(StackName="cfnstuck")
        assert again.value.response["Error"]["Code"] == "ValidationError"
        sandbox.admin("DELETE", "faults")
        connect(sandbox).network.delete_network(net)
        cf.delete_stack(StackName="cfnstuck")
