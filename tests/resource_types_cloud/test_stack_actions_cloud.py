"""Stack suspend, resume and check through the in-process engine against the sandbox cloud:
the Nova server really is suspended and resumed (its status in Nova), a check reads the live
server (Heat's Server.handle_check: ACTIVE expected) and fails with Heat's reasons when the
server was stopped or deleted behind the stack's back (heat/engine/check_resource.py
check_stack_complete, heat/engine/stack.py _check_post_reason)."""
from __future__ import annotations

import time
from typing import Any

import pytest

from app import errors
from app.context import RequestContext
from app.services import stack_actions, stacks
from tests.sandbox.conftest import connect

CTX = RequestContext(tenant_id="admin")

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: actions-key}
  server:
    type: OS::Nova::Server
    properties: {image: cirros, flavor: m1.tiny, key_name: {get_resource: key},
                 networks: [{network: private}]}
  spare:
    type: OS::Nova::KeyPair
    properties: {name: actions-spare}
  rs:
    type: OS::Heat::RandomString
"""


def _nova_status(sandbox: Any, server_id: str) -> str:
    return str(connect(sandbox).compute.get_server(server_id).status)


def _rows(st: Any) -> dict[str, Any]:
    """The stack's resource rows, every column (a listing reads only the columns it shows)."""
    from app.models import Resource, read_session
    with read_session() as s:
        return {r.name: r for r in s.query(Resource).filter_by(stack_id=st.id)}


def _wait_status(sandbox: Any, server_id: str, status: str) -> None:
    for _ in range(200):
        if _nova_status(sandbox, server_id) == status:
            return
        time.sleep(0.05)
    raise AssertionError(f"server never reached {status}")


def test_suspend_resume_and_check_a_sandbox_server(db: Any, cloud_settings: Any,
                                                   sandbox: Any) -> None:
    st = stacks.create_stack(CTX, stack_name="acts", template=TEMPLATE)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    server_id = _rows(st)["server"].physical_resource_id
    assert _nova_status(sandbox, server_id) == "ACTIVE"

    stack_actions.suspend(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == (
        "SUSPEND_COMPLETE", "Stack SUSPEND completed successfully")
    assert _nova_status(sandbox, server_id) == "SUSPENDED"  # Nova really suspended it
    assert {n: (r.action, r.status) for n, r in _rows(st).items()} == {
        "key": ("SUSPEND", "COMPLETE"), "server": ("SUSPEND", "COMPLETE"),
        "spare": ("SUSPEND", "COMPLETE"), "rs": ("SUSPEND", "COMPLETE")}

    stack_actions.resume(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "RESUME_COMPLETE", st.status_reason
    assert _nova_status(sandbox, server_id) == "ACTIVE"

    stack_actions.check(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    # RandomString cannot check itself: the stack says so, as Heat's
    assert (st.stack_status, st.status_reason) == (
        "CHECK_COMPLETE",
        "Stack CHECK completed successfully. 'CHECK' not fully supported (see resources)")
    rows = _rows(st)
    assert (rows["server"].action, rows["server"].status) == ("CHECK", "COMPLETE")
    assert (rows["key"].action, rows["key"].status) == ("CHECK", "COMPLETE")
    assert rows["rs"].status_reason == "CHECK not supported for OS::Heat::RandomString"

    conn = connect(sandbox)
    conn.compute.stop_server(server_id)
    _wait_status(sandbox, server_id, "SHUTOFF")
    stack_actions.check(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CHECK_FAILED"
    reason = "Error: resources.server: 'status': expected 'ACTIVE', got 'SHUTOFF'"
    assert _rows(st)["server"].status_reason == reason
    assert st.status_reason == ("Resource CHECK failed: server: Resource CHECK failed: "
                                f"{reason}. 'CHECK' not fully supported (see resources)")
    # the key pair, independent of the server, was still checked
    assert (_rows(st)["key"].action, _rows(st)["key"].status) == ("CHECK", "COMPLETE")

    conn.compute.delete_server(server_id)
    conn.compute.delete_keypair("actions-spare")
    for _ in range(200):
        if conn.compute.find_server(server_id) is None:
            break
        time.sleep(0.05)
    stack_actions.check(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CHECK_FAILED"
    rows = _rows(st)
    assert rows["server"].status == "FAILED"
    assert rows["server"].status_reason.startswith("NotFound: resources.server: ")
    assert rows["spare"].status_reason.startswith("NotFound: resources.spare: ")
    assert (rows["key"].action, rows["key"].status) == ("CHECK", "COMPLETE")
    # both failures are named in the stack's reason, in one line (resource order)
    assert st.status_reason.startswith("Resource CHECK failed: server: Resource CHECK failed: "
                                       "NotFound: resources.server: ")
    assert "; spare: Resource CHECK failed: NotFound: resources.spare: " in st.status_reason
    assert st.status_reason.endswith(". 'CHECK' not fully supported (see resources)")

    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"


def test_suspend_of_a_failed_server_fails_the_stack_as_heats(db: Any, cloud_settings: Any,
                                                           sandbox: Any, faults: Any) -> None:
    """A resource not COMPLETE may not be suspended (Heat's Resource.suspend): the stack is
    SUSPEND_FAILED with the resource's state in the reason; the resource keeps its state."""
    faults({"match": "compute.POST.servers", "kind": "server_error", "times": 1})
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"server": {
        "type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.tiny",
                                                   "networks": [{"network": "private"}]}}}}
    st = stacks.create_stack(CTX, stack_name="failed", template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_FAILED"
    stack_actions.suspend(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == (
        "SUSPEND_FAILED", "Resource SUSPEND failed: Error: resources.server: "
                          "State ('CREATE', 'FAILED') invalid for suspend")
    assert (_rows(st)["server"].action, _rows(st)["server"].status) == ("CREATE", "FAILED")
    stacks.delete_stack(CTX, st.name, st.id)


def test_an_action_while_another_is_in_progress_is_refused(db: Any, cloud_settings: Any) -> None:
    """Heat's ActionInProgress (409) for suspend, resume and check of a stack in progress."""
    from app.models import Stack, session
    st = stacks.create_stack(CTX, stack_name="busy", template={
        "heat_template_version": "2018-08-31", "resources": {"n": {"type": "OS::Heat::None"}}})
    with session() as s:
        row = s.get(Stack, st.id)
        assert row is not None
        row.action, row.status = "UPDATE", "IN_PROGRESS"
    for act in (stack_actions.suspend, stack_actions.resume, stack_actions.check):
        with pytest.raises(errors.Conflict) as err:
            act(CTX, "busy", st.id)
        assert err.value.http_status == 409 and err.value.heat_type == "ActionInProgress"
        assert err.value.message == "Stack busy already has an action (UPDATE) in progress."


def test_abandon_leaves_the_server_and_adopt_takes_it_over(db: Any, cloud_settings: Any,
                                                           sandbox: Any) -> None:
    """Abandon deletes the stack but not its sandbox server; adopting the abandon data makes a
    stack whose server is that same one (no server created), and deleting it deletes it."""
    from app import config
    from app.services import stack_abandon
    config.set_current(cloud_settings.replace(enable_stack_abandon=True,
                                              enable_stack_adopt=True))
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"server": {
        "type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.tiny",
                                                   "networks": [{"network": "private"}]}}}}
    st = stacks.create_stack(CTX, stack_name="aband", template=tmpl)
    server_id = _rows(stacks.get_by_id(CTX, st.id))["server"].physical_resource_id
    data = stack_abandon.abandon_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    assert _nova_status(sandbox, server_id) == "ACTIVE"  # left in the cloud
    servers_before = sandbox.created().get("servers", set())
    assert data["resources"]["server"]["resource_id"] == server_id

    adopted = stack_abandon.adopt_stack(CTX, data, stack_name="adopted",
                                        template=data["template"])
    adopted = stacks.get_by_id(CTX, adopted.id)
    assert adopted.stack_status == "ADOPT_COMPLETE", adopted.status_reason
    assert _rows(adopted)["server"].physical_resource_id == server_id
    assert sandbox.created().get("servers", set()) == servers_before  # nothing created
    stacks.delete_stack(CTX, adopted.name, adopted.id)
    assert stacks.get_by_id(CTX, adopted.id).stack_status == "DELETE_COMPLETE"
    assert connect(sandbox).compute.find_server(server_id) is None or \
        _nova_status(sandbox, server_id) == "DELETED"


def test_snapshot_of_a_volume_is_a_backup_restored_and_deleted(db: Any, cloud_settings: Any,
                                                               sandbox: Any) -> None:
    """Heat's CinderVolume snapshot: a backup of the volume (SNAPSHOT_COMPLETE once the backup
    is available, its id in the snapshot's resource data); restore sets the volume's
    ``backup_id`` to it (Heat's handle_restore); deleting the snapshot deletes the backup."""
    from app.services import snapshots
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}}}}
    st = stacks.create_stack(CTX, stack_name="volsnap", template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    volume_id = _rows(st)["vol"].physical_resource_id
    snap = snapshots.create_snapshot(CTX, st.name, st.id, "v1")
    assert (snap["status"], snap["status_reason"]) == ("COMPLETE",
                                                       "Stack SNAPSHOT completed successfully")
    backup_id = snap["data"]["resources"]["vol"]["resource_data"]["backup_id"]
    nova = connect(sandbox)
    backup = nova.block_storage.get_backup(backup_id)
    assert (backup.volume_id, backup.status) == (volume_id, "available")

    snapshots.restore_snapshot(CTX, st.name, st.id, snap["id"])
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "RESTORE_COMPLETE", st.status_reason
    row = _rows(st)["vol"]
    assert row.properties_data["backup_id"] == backup_id
    assert snapshots.show_snapshot(CTX, st.name, st.id, snap["id"])["data"]["template"] == tmpl

    snapshots.delete_snapshot(CTX, st.name, st.id, snap["id"])
    for _ in range(200):
        if nova.block_storage.find_backup(backup_id) is None:
            break
        time.sleep(0.05)
    assert nova.block_storage.find_backup(backup_id) is None
    with pytest.raises(errors.NotFound) as err:
        snapshots.show_snapshot(CTX, st.name, st.id, snap["id"])
    assert err.value.heat_type == "SnapshotNotFound"
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"


def test_suspend_disables_an_alarm_and_resume_enables_it(db: Any, cloud_settings: Any,
                                                         sandbox: Any) -> None:
    """Heat's BaseAlarm: handle_suspend disables the alarm in Aodh, handle_resume enables it,
    handle_check reads it."""
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"alarm": {
        "type": "OS::Aodh::Alarm", "properties": {"meter_name": "cpu_util", "threshold": 50,
                                                  "comparison_operator": "gt"}}}}
    st = stacks.create_stack(CTX, stack_name="alarms", template=tmpl)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    alarm_id = _rows(st)["alarm"].physical_resource_id

    aodh = connect(sandbox).session

    def enabled() -> bool:
        return bool(aodh.get(f"{sandbox.url}/alarming/v2/alarms/{alarm_id}").json()["enabled"])

    assert enabled()
    stack_actions.suspend(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "SUSPEND_COMPLETE"
    assert not enabled()
    stack_actions.resume(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "RESUME_COMPLETE"
    assert enabled()
    stack_actions.check(CTX, st.name, st.id)
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == ("CHECK_COMPLETE",
                                                   "Stack CHECK completed successfully")
    stacks.delete_stack(CTX, st.name, st.id)


def test_snapshot_of_a_server_is_an_image_restored_and_deleted(db: Any, cloud_settings: Any,
                                                               sandbox: Any) -> None:
    """Heat's Server snapshot: an image of the server; restore sets the server's image to it
    (Heat's handle_restore); deleting the snapshot deletes the image."""
    from app.services import snapshots
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"server": {
        "type": "OS::Nova::Server", "properties": {"image": "cirros", "flavor": "m1.tiny",
                                                   "networks": [{"network": "private"}]}}}}
    st = stacks.create_stack(CTX, stack_name="srvsnap", template=tmpl)
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    snap = snapshots.create_snapshot(CTX, st.name, st.id, "img")
    assert snap["status"] == "COMPLETE", snap["status_reason"]
    image_id = snap["data"]["resources"]["server"]["resource_data"]["snapshot_image_id"]
    glance = connect(sandbox).image
    assert glance.get_image(image_id).status == "active"
    snapshots.restore_snapshot(CTX, st.name, st.id, snap["id"])
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "RESTORE_COMPLETE", st.status_reason
    assert _rows(st)["server"].properties_data["image"] == image_id
    snapshots.delete_snapshot(CTX, st.name, st.id, snap["id"])
    for _ in range(200):
        if glance.find_image(image_id) is None:
            break
        time.sleep(0.05)
    assert glance.find_image(image_id) is None
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"


def test_stack_delete_deletes_its_snapshots_rows_and_backups(db: Any, cloud_settings: Any,
                                                             sandbox: Any) -> None:
    """Heat's ``Stack.delete_all_snapshots``: deleting the stack deletes each snapshot's
    backup and the snapshot rows themselves."""
    from sqlalchemy import select

    from app.models import Snapshot, read_session
    from app.services import snapshots
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}}}}
    st = stacks.create_stack(CTX, stack_name="volsnapdel", template=tmpl)
    snap = snapshots.create_snapshot(CTX, st.name, st.id, "v1")
    assert snap["status"] == "COMPLETE", snap["status_reason"]
    backup_id = snap["data"]["resources"]["vol"]["resource_data"]["backup_id"]
    stacks.delete_stack(CTX, st.name, st.id)
    assert stacks.get_by_id(CTX, st.id).stack_status == "DELETE_COMPLETE"
    with read_session() as s:
        assert s.execute(select(Snapshot).where(Snapshot.stack_id == st.id)).first() is None
    storage = connect(sandbox).block_storage
    for _ in range(200):
        if storage.find_backup(backup_id) is None:
            break
        time.sleep(0.05)
    assert storage.find_backup(backup_id) is None
