"""Abandon and adopt through the in-process engine against the sandbox cloud: nested stacks
(a template resource, a resource group, an OS::Heat::Stack) are abandoned with their children's
resources in the data (Heat's ``StackResource.prepare_abandon``) and adopted from it
(``TemplateResource`` / ``ResourceGroup.handle_adopt``: the child stack is ADOPTed), so every
physical id is kept and no cloud object is made twice; an adopt that fails during the action
is ADOPT_FAILED and, when rollback is enabled, rolls back as Heat's ``Stack.adopt`` does (the
abandon flow: the stack goes, what it took over stays in the cloud)."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from app import config
from app.context import RequestContext
from app.services import resources, stack_abandon, stacks
from tests.sandbox.conftest import connect

CTX = RequestContext(tenant_id="admin")

PARENT = """
heat_template_version: 2018-08-31
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: adopt-top}
  child:
    type: child.yaml
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: OS::Nova::KeyPair
        properties: {name: adopt-member-%index%}
  remote:
    type: OS::Heat::Stack
    properties:
      template: |
        heat_template_version: 2018-08-31
        resources:
          rvol: {type: OS::Cinder::Volume, properties: {size: 1}}
outputs:
  vol: {value: {get_attr: [child, vol_id]}}
"""
CHILD = """
heat_template_version: 2018-08-31
resources:
  vol: {type: OS::Cinder::Volume, properties: {size: 1}}
  rs: {type: OS::Heat::RandomString}
outputs:
  vol_id: {value: {get_resource: vol}}
"""


@pytest.fixture()
def adopt_on(db: Any, cloud_settings: Any) -> Any:
    config.set_current(cloud_settings.replace(enable_stack_abandon=True,
                                              enable_stack_adopt=True))
    return cloud_settings


def _tree(stack_id: str) -> dict[str, tuple[str, str, str | None]]:
    """``{path: (action, status, physical id)}`` over the stack and its descendants."""
    out: dict[str, tuple[str, str, str | None]] = {}
    todo = [("", stack_id)]
    while todo:
        prefix, sid = todo.pop()
        st = stacks.get_by_id(CTX, sid)
        for r, _ in resources.list_resources(CTX, st):
            out[prefix + r.name] = (r.action, r.status, r.physical_resource_id)
            if (r.rsrc_data or {}).get("nested") and r.physical_resource_id:
                todo.append((f"{prefix}{r.name}/", r.physical_resource_id))
    return out


def _leaves(tree: dict[str, tuple[str, str, str | None]]) -> dict[str, str | None]:
    """The physical ids of the non-nested resources, by path."""
    nested = {p.rsplit("/", 1)[0] for p in tree if "/" in p}
    return {p: v[2] for p, v in tree.items() if p not in nested}


def test_nested_stacks_round_trip_through_abandon_and_adopt(adopt_on: Any,
                                                           sandbox: Any) -> None:
    st = stacks.create_stack(CTX, stack_name="nestab", template=PARENT,
                             files={"child.yaml": CHILD})
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    before = _leaves(_tree(st.id))
    assert set(before) == {"key", "child/vol", "child/rs", "group/0", "group/1",
                           "remote/rvol"}
    child_id = _tree(st.id)["child"][2]
    rs_value = resources.get_resource(CTX, stacks.get_by_id(CTX, child_id), "rs")[2]["value"]

    data = stack_abandon.abandon_stack(CTX, st.name, st.id)
    # Heat's StackResource.prepare_abandon: a nested resource is its child stack's data
    child = data["resources"]["child"]
    assert (child["id"], child["action"], child["status"]) == (child_id, "CREATE", "COMPLETE")
    assert set(child) >= {"name", "id", "template", "environment", "files", "resources"}
    assert child["resources"]["vol"]["resource_id"] == before["child/vol"]
    assert set(data["resources"]["group"]["resources"]) == {"0", "1"}
    assert data["resources"]["remote"]["resources"]["rvol"]["resource_id"] == \
        before["remote/rvol"]
    inventory = sandbox.created()  # abandon left every cloud object

    adopted = stack_abandon.adopt_stack(CTX, data, stack_name="nestad",
                                        template=data["template"], files=data["files"])
    adopted = stacks.get_by_id(CTX, adopted.id)
    assert (adopted.stack_status, adopted.status_reason) == (
        "ADOPT_COMPLETE", "Stack ADOPT completed successfully")
    tree = _tree(adopted.id)
    assert _leaves(tree) == before  # every physical id kept
    assert {(a, s) for a, s, _ in tree.values()} == {("ADOPT", "COMPLETE")}
    for name in ("child", "group", "remote"):
        child_stack = stacks.get_by_id(CTX, str(tree[name][2]))
        assert child_stack.stack_status == "ADOPT_COMPLETE"
        assert child_stack.parent_id == adopted.id
    assert sandbox.created() == inventory  # nothing made twice
    outputs = {o["output_key"]: o["output_value"] for o in adopted.outputs or []}
    assert outputs["vol"] == before["child/vol"]
    new_child = stacks.get_by_id(CTX, str(tree["child"][2]))
    assert resources.get_resource(CTX, new_child, "rs")[2]["value"] == rs_value  # its data

    stacks.delete_stack(CTX, adopted.name, adopted.id)
    assert stacks.get_by_id(CTX, adopted.id).stack_status == "DELETE_COMPLETE"
    left = sandbox.created()
    assert before["child/vol"] not in left.get("volumes", set())
    assert before["remote/rvol"] not in left.get("volumes", set())


SERVER_AND_KEY = {"heat_template_version": "2018-08-31", "resources": {
    "key": {"type": "OS::Nova::KeyPair", "properties": {"name": "adopt-rollback"}},
    "server": {"type": "OS::Nova::Server", "properties": {
        "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}]}}}}


def _abandoned(name: str) -> dict[str, Any]:
    st = stacks.create_stack(CTX, stack_name=name, template=SERVER_AND_KEY)
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    return stack_abandon.abandon_stack(CTX, name, st.id)


def test_a_failed_adopt_rolls_back_keeping_what_it_took_over(adopt_on: Any,
                                                            sandbox: Any) -> None:
    """A resource the adopt data lacks fails the ADOPT (Heat: "Resource ID was not
    provided."); with rollback enabled the stack is deleted from Stoker as Heat's
    ``Stack.adopt`` rollback does (``delete(action=ROLLBACK, abandon=True)``): the server it
    had taken over stays in the cloud, nothing was created. (Heat's convergence engine rolls
    back to an empty template instead, deleting the very server it was asked to adopt.)"""
    data = _abandoned("rbsrc")
    server_id = data["resources"]["server"]["resource_id"]
    broken = copy.deepcopy(data)
    del broken["resources"]["key"]
    inventory = sandbox.created()
    st = stack_abandon.adopt_stack(CTX, broken, stack_name="rbadopt",
                                   template=broken["template"], disable_rollback=False)
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == ("ROLLBACK_COMPLETE",
                                                   "Stack ROLLBACK completed successfully")
    stack_events = [(e.action, e.status, e.status_reason)
                    for e in resources.list_events(CTX, st) if e.resource_name == "rbadopt"]
    assert stack_events == [
        ("ADOPT", "IN_PROGRESS", "Stack ADOPT started"),
        ("ADOPT", "FAILED", "Resource ADOPT failed: Exception: resources.key: Resource ID was "
                            "not provided."),
        ("ROLLBACK", "IN_PROGRESS", "Stack ROLLBACK started"),
        ("ROLLBACK", "COMPLETE", "Stack ROLLBACK completed successfully")]
    assert sandbox.created() == inventory  # the server kept, nothing new
    assert str(connect(sandbox).compute.get_server(server_id).status) == "ACTIVE"

    # with rollback disabled (Heat's default) the stack stays ADOPT_FAILED, the server its own
    st = stack_abandon.adopt_stack(CTX, broken, stack_name="rbkeep",
                                   template=broken["template"])
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == (
        "ADOPT_FAILED",
        "Resource ADOPT failed: Exception: resources.key: Resource ID was not provided.")
    rows = {r.name: r for r, _ in resources.list_resources(CTX, st)}
    assert (rows["server"].action, rows["server"].status,
            rows["server"].physical_resource_id) == ("ADOPT", "COMPLETE", server_id)
    assert (rows["key"].action, rows["key"].status) == ("ADOPT", "FAILED")
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert connect(sandbox).compute.find_server(server_id) is None or \
        str(connect(sandbox).compute.get_server(server_id).status) == "DELETED"
    connect(sandbox).compute.delete_keypair("adopt-rollback")  # abandoned, never adopted


def test_a_failed_nested_adopt_rolls_back_without_leaks(adopt_on: Any, sandbox: Any) -> None:
    """A child's resource missing from the data fails the child's ADOPT, then the parent's
    (the failure under the resource's path, as a nested create's); the rollback removes both
    stacks from Stoker and leaves the cloud as it found it."""
    st = stacks.create_stack(CTX, stack_name="nrbsrc", template={
        "heat_template_version": "2018-08-31", "resources": {"child": {"type": "child.yaml"}}},
        files={"child.yaml": CHILD})
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    data = stack_abandon.abandon_stack(CTX, st.name, st.id)
    vol_id = data["resources"]["child"]["resources"]["vol"]["resource_id"]
    del data["resources"]["child"]["resources"]["rs"]
    inventory = sandbox.created()
    adopted = stack_abandon.adopt_stack(CTX, data, stack_name="nrbad",
                                        template=data["template"], files=data["files"],
                                        disable_rollback=False)
    adopted = stacks.get_by_id(CTX, adopted.id)
    assert adopted.stack_status == "ROLLBACK_COMPLETE", adopted.status_reason
    assert sandbox.created() == inventory
    assert vol_id in inventory.get("volumes", set())
    from app.services import stack_list
    assert [s.name for s in stack_list.list_stacks(CTX, show_nested=True)] == ["nrbad"]
    connect(sandbox).block_storage.delete_volume(vol_id)
