"""Cinder v3 of the sandbox through openstacksdk's block-storage proxy."""
from __future__ import annotations

import pytest
from openstack import exceptions


def available(conn, volume):
    return conn.block_storage.wait_for_status(volume, "available", interval=0.05, wait=5)


def test_volume_lifecycle_and_extend(no_leaks, conn):
    volume = conn.block_storage.create_volume(size=1, name="vol", metadata={"k": "v"})
    assert volume.status == "creating"
    volume = available(conn, volume)
    assert volume.volume_type == "__DEFAULT__" and volume.metadata == {"k": "v"} and not volume.is_bootable
    conn.block_storage.extend_volume(volume, 3)
    assert conn.block_storage.get_volume(volume).status == "extending"
    volume = available(conn, volume)
    assert volume.size == 3
    with pytest.raises(exceptions.BadRequestException):
        conn.block_storage.extend_volume(volume, 2)
    assert volume.id in {v.id for v in conn.block_storage.volumes()}
    conn.block_storage.delete_volume(volume)
    conn.block_storage.wait_for_delete(volume, interval=0.05, wait=5)


def test_volume_from_image_and_snapshot(no_leaks, conn):
    image = conn.image.find_image("cirros")
    boot = available(conn, conn.block_storage.create_volume(size=1, image_id=image.id, name="boot"))
    assert boot.is_bootable and boot.volume_image_metadata["image_name"] == "cirros"
    with pytest.raises(exceptions.BadRequestException, match="minDisk"):
        conn.block_storage.create_volume(size=1, image_id=conn.image.find_image("ubuntu-24.04").id)
    snap = conn.block_storage.create_snapshot(volume_id=boot.id, name="snap")
    snap = conn.block_storage.wait_for_status(snap, "available", interval=0.05, wait=5)
    clone = available(conn, conn.block_storage.create_volume(size=2, snapshot_id=snap.id))
    assert clone.snapshot_id == snap.id
    with pytest.raises(exceptions.BadRequestException):
        conn.block_storage.delete_volume(boot)          # it has a snapshot
    conn.block_storage.delete_volume(clone)
    conn.block_storage.delete_snapshot(snap)
    conn.block_storage.wait_for_delete(snap, interval=0.05, wait=5)
    conn.block_storage.delete_volume(boot)


def test_volume_types_with_encryption(no_leaks, conn):
    vtype = conn.block_storage.create_type(name="luks", extra_specs={"volume_backend_name": "lvm"})
    enc = conn.block_storage.create_type_encryption(vtype, provider="luks", cipher="aes-xts-plain64",
                                                    key_size=256, control_location="front-end")
    assert enc.provider == "luks"
    assert conn.block_storage.get_type_encryption(vtype).cipher == "aes-xts-plain64"
    volume = available(conn, conn.block_storage.create_volume(size=1, volume_type="luks"))
    assert volume.is_encrypted and volume.volume_type == "luks"
    with pytest.raises(exceptions.BadRequestException):
        conn.block_storage.delete_type(vtype)
    conn.block_storage.delete_volume(volume)
    conn.block_storage.wait_for_delete(volume, interval=0.05, wait=5)
    conn.block_storage.delete_type_encryption(encryption=conn.block_storage.get_type_encryption(vtype),
                                              volume_type=vtype)
    conn.block_storage.delete_type(vtype)


def test_backups(no_leaks, conn):
    volume = available(conn, conn.block_storage.create_volume(size=1))
    backup = conn.block_storage.create_backup(volume_id=volume.id, name="bk")
    backup = conn.block_storage.wait_for_status(backup, "available", interval=0.05, wait=5)
    assert backup.volume_id == volume.id
    restored = conn.block_storage.restore_backup(backup, name="restored")
    conn.block_storage.delete_volume(available(conn, conn.block_storage.get_volume(restored.volume_id)))
    conn.block_storage.delete_backup(backup)
    conn.block_storage.wait_for_delete(backup, interval=0.05, wait=5)
    conn.block_storage.delete_volume(volume)


def test_backup_restore_onto_a_volume(no_leaks, conn):
    """Cinder's restore onto an existing volume: refused unless the volume is available (an
    in-use one too); the volume is ``restoring-backup`` and the backup ``restoring`` meanwhile;
    the volume gets back the metadata it had when backed up."""
    volume = available(conn, conn.block_storage.create_volume(size=1, metadata={"state": "v1"}))
    backup = conn.block_storage.create_backup(volume_id=volume.id)
    backup = conn.block_storage.wait_for_status(backup, "available", interval=0.05, wait=5)
    conn.block_storage.set_volume_metadata(volume, state="v2")
    conn.block_storage.reset_volume_status(volume, status="in-use", attach_status=None,
                                           migration_status=None)
    with pytest.raises(exceptions.BadRequestException) as err:
        conn.block_storage.restore_backup(backup, volume_id=volume.id)
    assert "Volume to be restored to must be available" in str(err.value)
    conn.block_storage.reset_volume_status(volume, status="available", attach_status=None,
                                           migration_status=None)
    conn.block_storage.restore_backup(backup, volume_id=volume.id)
    assert conn.block_storage.get_volume(volume).status == "restoring-backup"
    assert conn.block_storage.get_backup(backup).status == "restoring"
    volume = available(conn, volume)
    assert volume.metadata == {"state": "v1"}
    conn.block_storage.wait_for_status(backup, "available", interval=0.05, wait=5)
    conn.block_storage.delete_backup(backup)
    conn.block_storage.wait_for_delete(backup, interval=0.05, wait=5)
    conn.block_storage.delete_volume(volume)


def test_invalid_size_and_quota(no_leaks, conn):
    with pytest.raises(exceptions.BadRequestException):
        conn.block_storage.create_volume(size=0)
    project = conn.current_project_id
    conn.block_storage.update_quota_set(project, gigabytes=1)
    try:
        with pytest.raises(exceptions.HttpException) as err:
            conn.block_storage.create_volume(size=2)
        assert err.value.status_code == 413
    finally:
        conn.block_storage.revert_quota_set(project)
    assert conn.block_storage.get_limits().absolute.max_total_volumes == 10
