"""Change sets, retry from failure and cross-stack exports with real Celery workers,
PostgreSQL, Redis and the sandbox cloud: a change set shows a volume's replacement and its
reason, executes exactly that plan, and a stale one is refused; a create failed on a cloud
fault is retried once the fault is gone, keeping what completed (same physical ids); an
export imported by a second stack cannot change while it is imported."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.context import RequestContext
from app.services import change_sets, recovery, stacks, updates
from tests.fixtures.stacks import final, rows

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="admin")  # a project the sandbox knows


def volume(size: int, image: str | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {"size": size}
    if image:
        props["image"] = image  # not update_allowed: a new image replaces the volume
    return {"heat_template_version": "2018-08-31", "resources": {
        "db": {"type": "OS::Cinder::Volume", "properties": props}}}


def test_change_set_replaces_as_planned_and_a_stale_one_is_refused(
        cloud_workers, sandbox):
    st = final(CTX, stacks.create_stack(CTX, stack_name="csw", template=volume(1)).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    old = rows(st.id)["db"].physical_resource_id
    cs = change_sets.create_change_set(CTX, st.name, st.id, "reimage",
                                       template=volume(1, "cirros"))
    (change,) = cs["changes"]
    assert (change["logical_resource_id"], change["action"], change["replacement"]) == \
        ("db", "Modify", "True")
    stale = change_sets.create_change_set(CTX, st.name, st.id, "grow", template=volume(2))
    change_sets.execute_change_set(CTX, st.name, st.id, "reimage")
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + cloud_workers.logs()
    assert rows(st.id)["db"].physical_resource_id != old
    assert change_sets.show_change_set(CTX, st.name, st.id, "reimage")[
        "execution_status"] == "EXECUTE_COMPLETE"
    with pytest.raises(errors.NotFound):  # AWS deletes the others on an execution
        change_sets.execute_change_set(CTX, st.name, st.id, stale["id"])
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id).stack_status == "DELETE_COMPLETE"


KEYS = """
heat_template_version: 2018-08-31
resources:
  net: {type: OS::Neutron::Net}
  key:
    type: OS::Nova::KeyPair
    depends_on: net
    properties: {name: retried-key}
"""


def test_failed_create_is_retried_keeping_what_completed(cloud_workers, sandbox):
    sandbox.admin("POST", "faults", json={"match": "compute.POST.os-keypairs", "status": 400,
                                          "times": 1, "message": "no keys today"})
    st = stacks.create_stack(CTX, stack_name="retryw", template=KEYS, disable_rollback=True)
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_FAILED", cloud_workers.logs()
    net = rows(st.id)["net"].physical_resource_id
    recovery.retry(CTX, st.name, st.id)
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + cloud_workers.logs()
    assert rows(st.id)["net"].physical_resource_id == net
    assert rows(st.id)["key"].physical_resource_id == "retried-key"
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id).stack_status == "DELETE_COMPLETE"


def exporter(value: str) -> dict[str, Any]:
    return {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
        "v": {"Type": "OS::Heat::Value", "Properties": {"value": value}}},
        "Outputs": {"net": {"Value": value, "Export": {"Name": "shared-net"}}}}


IMPORTER = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
    "w": {"Type": "OS::Heat::Value", "Properties": {"value": {"Fn::ImportValue": "shared-net"}}}},
    "Outputs": {"got": {"Value": {"Fn::GetAtt": ["w", "value"]}}}}


def test_an_imported_export_cannot_change(cloud_workers, sandbox):
    first = final(CTX, stacks.create_stack(CTX, stack_name="exporter", template=exporter("a")).id)
    assert first.stack_status == "CREATE_COMPLETE", first.status_reason + cloud_workers.logs()
    second = final(CTX, stacks.create_stack(CTX, stack_name="importer", template=IMPORTER).id)
    assert second.stack_status == "CREATE_COMPLETE", second.status_reason + cloud_workers.logs()
    outs = {o["output_key"]: o["output_value"] for o in stacks.stack_outputs(second)}
    assert outs["got"] == "a"
    with pytest.raises(errors.StokerError, match="in use by importer"):
        updates.update_stack(CTX, first.name, first.id, template=exporter("b"))
    with pytest.raises(errors.StokerError, match="in use by importer"):
        stacks.delete_stack(CTX, first.name, first.id)
    stacks.delete_stack(CTX, second.name, second.id)
    assert final(CTX, second.id).stack_status == "DELETE_COMPLETE"
    stacks.delete_stack(CTX, first.name, first.id)
    assert final(CTX, first.id).stack_status == "DELETE_COMPLETE"
