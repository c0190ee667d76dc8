"""Stack snapshots of a server with an attached volume, through the API on real workers (Heat's
``Stack.restore`` / ``Stack.delete_all_snapshots``, CinderVolume's and Server's snapshot
handlers): a restore detaches the volume, restores its backup onto it and attaches it again at
the same device; deleting the stack deletes what its snapshots hold in the cloud (the volume's
backup, the server's image), one already gone included."""
from __future__ import annotations

import time
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  server:
    type: OS::Nova::Server
    properties: {image: cirros, flavor: m1.tiny, networks: [{network: private}]}
  vol:
    type: OS::Cinder::Volume
    properties: {size: 1, metadata: {state: taken}}
  attach:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: server}
      volume_id: {get_resource: vol}
      mountpoint: /dev/vdc
"""


def _snapshot(api: Any, stack: dict[str, Any]) -> dict[str, Any]:
    """Snapshot ``stack`` and wait for the snapshot to complete; the snapshot as shown."""
    snap = api.heat.stacks.snapshot(stack["id"], "snap")
    deadline = time.monotonic() + 60
    while True:
        shown = api.heat.stacks.snapshot_show(stack["id"], snap["id"])["snapshot"]
        if shown["status"] != "IN_PROGRESS":
            break
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)
    assert (shown["status"], shown["status_reason"]) == (
        "COMPLETE", "Stack SNAPSHOT completed successfully")
    return dict(shown)


def _volume(api: Any, volume_id: str) -> dict[str, Any]:
    return dict(api.cloud("volumev3").get(f"/volumes/{volume_id}").json()["volume"])


def test_restore_detaches_restores_and_reattaches_the_volume(api: Any) -> None:
    stack = api.create(TEMPLATE)
    rsrc = api.resources(stack)
    server_id, volume_id = (rsrc["server"]["physical_resource_id"],
                            rsrc["vol"]["physical_resource_id"])
    snap = _snapshot(api, stack)
    backup_id = snap["data"]["resources"]["vol"]["resource_data"]["backup_id"]
    volumes = api.cloud("volumev3")
    assert volumes.get(f"/backups/{backup_id}").json()["backup"]["volume_id"] == volume_id
    # the volume's data changes after the snapshot (Cinder's restore brings back the metadata
    # the backup holds: the sandbox's visible trace of the backup's data)
    volumes.put(f"/volumes/{volume_id}/metadata", json={"metadata": {"state": "changed"}})
    assert _volume(api, volume_id)["metadata"] == {"state": "changed"}

    api.heat.stacks.restore(stack["id"], snap["id"])
    stack = api._settled(stack["id"], "RESTORE_COMPLETE", 120)

    rsrc = api.resources(stack)
    assert rsrc["vol"]["physical_resource_id"] == volume_id   # restored in place
    live = _volume(api, volume_id)
    assert live["status"] == "in-use"
    assert live["metadata"] == {"state": "taken"}
    assert [(a["server_id"], a["device"]) for a in live["attachments"]] == [
        (server_id, "/dev/vdc")]
    attached = api.cloud("compute").get(f"/servers/{server_id}/os-volume_attachments").json()
    assert [(a["volumeId"], a["device"]) for a in attached["volumeAttachments"]] == [
        (volume_id, "/dev/vdc")]
    api.delete(stack)   # api_no_leaks: the snapshot's backup and image went with the stack


def test_stack_delete_deletes_its_snapshots_one_gone_already(api: Any) -> None:
    stack = api.create(TEMPLATE)
    kept = _snapshot(api, stack)
    gone = _snapshot(api, stack)
    volumes, images = api.cloud("volumev3"), api.cloud("image")
    held = {name: snap["data"]["resources"] for name, snap in (("kept", kept), ("gone", gone))}
    backups = {name: res["vol"]["resource_data"]["backup_id"] for name, res in held.items()}
    image_ids = {name: res["server"]["resource_data"]["snapshot_image_id"]
                 for name, res in held.items()}
    created = api.created()
    assert set(backups.values()) <= created["backups"]
    assert set(image_ids.values()) <= created["images"]
    # one snapshot's backup and image deleted out of band: not an error for the stack delete
    volumes.delete(f"/backups/{backups['gone']}")
    images.delete(f"/v2/images/{image_ids['gone']}")

    api.delete(stack)

    deadline = time.monotonic() + 15
    while True:
        created = api.created()
        left = (set(backups.values()) & created.get("backups", set())) | (
            set(image_ids.values()) & created.get("images", set()))
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not left, left
    from heatclient import exc
    with pytest.raises(exc.HTTPNotFound):
        api.heat.stacks.snapshot_list(stack["id"])


def test_a_snapshot_cinder_refuses_to_delete_fails_the_stack_delete(api: Any) -> None:
    """Heat's ``delete_all_snapshots``: a snapshot whose backup cannot be deleted fails the
    stack delete ("Stack <id> failed when delete all snapshots: ..."); the stack and that
    snapshot stay, and the next delete finishes the job."""
    stack = api.create(TEMPLATE)
    snap = _snapshot(api, stack)
    message = "Invalid backup: Backup status must be available or error"
    api.sandbox("POST", "faults", json={"match": "volume.DELETE.backups", "status": 400,
                                        "message": message, "times": 1})
    try:
        api.delete(stack, expect="DELETE_FAILED")
    finally:
        api.sandbox("DELETE", "faults")
    got = api.heat.stacks.get(stack["id"])
    assert got.stack_status_reason.startswith(
        f"Stack {stack['id']} failed when delete all snapshots: BadRequest: resources.vol: ")
    assert message in got.stack_status_reason
    assert [s["id"] for s in api.heat.stacks.snapshot_list(stack["id"])["snapshots"]] == [
        snap["id"]]
    api.delete(stack)
