"""The stack guards with real Celery workers, PostgreSQL, Redis and the sandbox cloud (Cinder
volumes): a stack policy denying ``Update:Replace`` of a database volume refuses an update that
would replace it (nothing changes in the cloud) and allows one that modifies it in place;
``update_replace_policy: Snapshot`` backs the replaced volume up before deleting it;
``RetainExceptOnCreate`` keeps the volume when the stack is deleted; a stack delete after a
failed replacement applies the deletion policy (no backup)."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.context import RequestContext
from app.services import stack_policy, stacks
from tests.fixtures.stacks import final, rows
from tests.sandbox.conftest import connect

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="admin")  # a project the sandbox knows
DENY_REPLACE = {"Statement": [
    {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
    {"Effect": "Deny", "Action": "Update:Replace", "Principal": "*",
     "Resource": "LogicalResourceId/db"}]}


def volume(size: int, image: str | None = None, **policies: str) -> dict[str, Any]:
    props: dict[str, Any] = {"size": size}
    if image:
        props["image"] = image  # not update_allowed: a new image replaces the volume
    return {"heat_template_version": "stoker-2026-12-01", "resources": {
        "db": {"type": "OS::Cinder::Volume", "properties": props, **policies}}}


def test_policy_denies_replacing_the_volume_and_allows_extending_it(
        cloud_workers, sandbox):
    st = stacks.create_stack(CTX, stack_name="dbpol", template=volume(1),
                             stack_policy=DENY_REPLACE)
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    vol = rows(st.id)["db"].physical_resource_id
    with pytest.raises(errors.Conflict, match=r"Update:Replace of resource \[db\]"):
        stack_policy.update_stack(CTX, st.name, st.id, template=volume(1, "cirros"))
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    stack_policy.update_stack(CTX, st.name, st.id, template=volume(2))
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + cloud_workers.logs()
    assert rows(st.id)["db"].physical_resource_id == vol
    assert connect(sandbox).block_storage.get_volume(vol).size == 2
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id).stack_status == "DELETE_COMPLETE"


def test_update_replace_snapshot_and_retain_except_on_create(cloud_workers, sandbox):
    cinder = connect(sandbox).block_storage
    st = stacks.create_stack(CTX, stack_name="dbsnap", template=volume(
        1, update_replace_policy="Snapshot", deletion_policy="RetainExceptOnCreate"))
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    old = rows(st.id)["db"].physical_resource_id
    stack_policy.update_stack(CTX, st.name, st.id, template=volume(
        1, "cirros", update_replace_policy="Snapshot", deletion_policy="RetainExceptOnCreate"))
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + cloud_workers.logs()
    new = rows(st.id)["db"].physical_resource_id
    assert new != old
    assert old in {b.volume_id for b in cinder.backups()}  # backed up before it was deleted
    assert cinder.find_volume(old) is None
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert cinder.get_volume(new).id == new  # RetainExceptOnCreate: kept on a later delete


def test_a_stack_delete_after_a_failed_replacement_makes_no_backup(
        cloud_workers, sandbox):
    """AWS: UpdateReplacePolicy applies only to a resource a replacement removes; deleting the
    stack after the replacement failed applies the DeletionPolicy (default Delete: no
    backup of the old volume, which is deleted)."""
    cinder = connect(sandbox).block_storage
    st = final(CTX, stacks.create_stack(CTX, stack_name="dbfail", template=volume(
        1, update_replace_policy="Snapshot")).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + cloud_workers.logs()
    old = rows(st.id)["db"].physical_resource_id
    sandbox.admin("POST", "faults", json={"match": "volume.POST.volumes", "status": 400,
                                          "times": 1})
    stack_policy.update_stack(CTX, st.name, st.id, template=volume(
        1, "cirros", update_replace_policy="Snapshot"))
    st = final(CTX, st.id)
    assert st.stack_status == "UPDATE_FAILED", st.status_reason + cloud_workers.logs()
    assert cinder.get_volume(old).id == old  # nothing replaced it
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert old not in {b.volume_id for b in cinder.backups()}
    assert cinder.find_volume(old) is None
