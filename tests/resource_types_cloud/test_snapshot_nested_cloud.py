"""Snapshots of stacks with nested stacks, through the in-process engine against the sandbox
cloud. The snapshot's data holds each child stack's data (Heat's ``StackResource
.prepare_abandon`` shape, as Heat's legacy ``stack_snapshot`` stores it), the child's resources
are snapshotted too (a volume inside a template resource or a group is backed up: better than
Heat, whose ``StackResource`` has no ``handle_snapshot``), restore restores each child from its
part (the volume's ``backup_id`` set, Heat's ``CinderVolume.handle_restore``; a RandomString's
value kept), and deleting the snapshot deletes the nested backups."""
from __future__ import annotations

import time
from typing import Any

import pytest

from app import errors
from app.context import RequestContext
from app.services import resources, snapshots, stacks, updates
from tests.sandbox.conftest import connect

CTX = RequestContext(tenant_id="admin")

PARENT = """
heat_template_version: 2018-08-31
parameters:
  length: {type: number, default: 12}
resources:
  child:
    type: child.yaml
    properties: {length: {get_param: length}}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 1
      resource_def: {type: OS::Cinder::Volume, properties: {size: 1}}
"""
CHILD = """
heat_template_version: 2018-08-31
parameters:
  length: {type: number}
resources:
  vol: {type: OS::Cinder::Volume, properties: {size: 1}}
  rs: {type: OS::Heat::RandomString, properties: {length: {get_param: length}}}
"""


def _child(st: Any, name: str) -> Any:
    rows = {r.name: r for r, _ in resources.list_resources(CTX, st)}
    return stacks.get_by_id(CTX, rows[name].physical_resource_id)


def _row(st: Any, name: str) -> Any:
    """A resource's row, every column (a listing reads only the columns it shows)."""
    from app.models import Resource, read_session
    with read_session() as s:
        return s.query(Resource).filter_by(stack_id=st.id, name=name).one()


def test_snapshot_and_restore_reach_the_nested_stacks(db: Any, cloud_settings: Any,
                                                      sandbox: Any) -> None:
    st = stacks.create_stack(CTX, stack_name="nsnap", template=PARENT,
                             files={"child.yaml": CHILD})
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    child, group = _child(st, "child"), _child(st, "group")
    vol_id = _row(child, "vol").physical_resource_id
    value = resources.get_resource(CTX, child, "rs")[2]["value"]

    snap = snapshots.create_snapshot(CTX, st.name, st.id, "deep")
    assert (snap["status"], snap["status_reason"]) == ("COMPLETE",
                                                       "Stack SNAPSHOT completed successfully")
    assert stacks.get_by_id(CTX, child.id).stack_status == "SNAPSHOT_COMPLETE"
    assert _row(st, "child").action == "SNAPSHOT"
    part = snap["data"]["resources"]["child"]
    assert (part["id"], part["name"]) == (child.id, child.name)
    backup_id = part["resources"]["vol"]["resource_data"]["backup_id"]
    member_backup = snap["data"]["resources"]["group"]["resources"]["0"]["resource_data"][
        "backup_id"]
    cloud = connect(sandbox)
    assert (cloud.block_storage.get_backup(backup_id).volume_id,
            cloud.block_storage.get_backup(backup_id).status) == (vol_id, "available")
    assert cloud.block_storage.get_backup(member_backup).volume_id == \
        _row(group, "0").physical_resource_id

    # a new RandomString value in the child; restore brings the snapshot's back
    updates.update_stack(CTX, st.name, st.id, template=PARENT, files={"child.yaml": CHILD},
                         parameters={"length": 20})
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    assert resources.get_resource(CTX, child, "rs")[2]["value"] != value
    snapshots.restore_snapshot(CTX, st.name, st.id, snap["id"])
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "RESTORE_COMPLETE", st.status_reason
    child = stacks.get_by_id(CTX, child.id)
    assert child.stack_status == "RESTORE_COMPLETE", child.status_reason
    assert _row(child, "vol").physical_resource_id == vol_id  # restored in place
    assert _row(child, "vol").properties_data["backup_id"] == backup_id
    assert resources.get_resource(CTX, child, "rs")[2]["value"] == value
    group = stacks.get_by_id(CTX, group.id)
    assert group.stack_status == "RESTORE_COMPLETE"
    assert _row(group, "0").properties_data["backup_id"] == member_backup

    snapshots.delete_snapshot(CTX, st.name, st.id, snap["id"])
    for _ in range(200):
        if cloud.block_storage.find_backup(backup_id) is None \
                and cloud.block_storage.find_backup(member_backup) is None:
            break
        time.sleep(0.05)
    assert cloud.block_storage.find_backup(backup_id) is None
    assert cloud.block_storage.find_backup(member_backup) is None
    with pytest.raises(errors.NotFound):
        snapshots.show_snapshot(CTX, st.name, st.id, snap["id"])
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
