"""Cinder and Glance types against the sandbox."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app import errors

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.fixture()
def server(driver: Any) -> Any:
    net = driver.create("OS::Neutron::Net", "net", {})
    server = driver.create("OS::Nova::Server", "srv", {
        "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": net.resource_id}]})
    yield server
    driver.delete(server)
    driver.delete(net)


def test_volume_life_cycle_and_attachment(driver: Any, server: Any) -> None:
    vol = driver.create("OS::Cinder::Volume", "vol", {"size": 1, "metadata": {"k": "v"},
                                                      "read_only": False})
    assert vol.resolve_attribute("status") == "available"
    # Heat's str(getattr(vol, name)): a string, as heat-tempest-plugin's volume test expects
    assert vol.resolve_attribute("size") == "1"
    assert vol.resolve_attribute("encrypted") == "False"
    assert vol.resolve_attribute("display_name").startswith("cloudstack-vol-")
    assert json.loads(vol.resolve_attribute("metadata"))["k"] == "v"
    assert vol.resolve_attribute("metadata_values")["k"] == "v"
    att = driver.create("OS::Cinder::VolumeAttachment", "att", {
        "instance_uuid": server.resource_id, "volume_id": vol.resource_id,
        "mountpoint": "/dev/vdb"})
    assert att.get_reference_id()
    vol = driver.again(vol)
    assert vol.resolve_attribute("status") == "in-use"
    assert vol.resolve_attribute("attachments_list")[0]["server_id"] == server.resource_id
    # the volume cannot go while attached: the delete waits (409 retried by the poll)
    res = driver.again(vol)
    handle = res.handle_delete()
    assert handle["pending"] is True
    driver.delete(att)
    assert driver.again(vol).resolve_attribute("status") == "available"
    assert driver.again(vol).check_delete_complete(handle) in (True, False)
    driver.delete(vol)
    driver.delete(att)   # already gone


def test_an_attachment_created_again_adopts_its_earlier_attempt(driver: Any, server: Any) -> None:
    """A step retried after its attach went through but before its result was saved (a
    redelivery, DESIGN invariant 1) adopts the attachment instead of failing on Nova's 400."""
    vol = driver.create("OS::Cinder::Volume", "vol", {"size": 1})
    props = {"instance_uuid": server.resource_id, "volume_id": vol.resource_id}
    first = driver.create("OS::Cinder::VolumeAttachment", "att", props)
    again = driver.create("OS::Cinder::VolumeAttachment", "att", props)   # nothing saved of the first
    assert again.resource_id == first.resource_id
    assert len(driver.again(vol).resolve_attribute("attachments_list")) == 1
    other = driver.create("OS::Nova::Server", "srv2", {
        "image": "cirros", "flavor": "m1.tiny",
        "networks": [{"network": server.properties["networks"][0]["network"]}]})
    with pytest.raises(errors.CloudError) as info:   # in use by another server: Nova's 400 stays
        driver.create("OS::Cinder::VolumeAttachment", "att2",
                      {"instance_uuid": other.resource_id, "volume_id": vol.resource_id})
    assert info.value.status == 400 and "status must be 'available'" in info.value.message
    driver.delete(again)
    driver.delete(other)
    driver.delete(vol)


def test_volume_from_image_and_error(driver: Any, faults: Any) -> None:
    vol = driver.create("OS::Cinder::Volume", "vol", {"size": 1, "image": "cirros"})
    # passed on as Cinder gives it (real Cinder: the text "true"; the sandbox: a boolean)
    assert vol.resolve_attribute("bootable") in ("true", "True")
    driver.delete(vol)
    faults({"match": "volume.POST.volumes", "status": 413, "message": "VolumeSizeExceedsAvailableQuota",
            "times": 1})
    with pytest.raises(errors.CloudError) as info:
        driver.create("OS::Cinder::Volume", "vol", {"size": 1})
    assert info.value.status == 413 and info.value.message == "VolumeSizeExceedsAvailableQuota"


def test_volume_types(driver: Any) -> None:
    vtype = driver.create("OS::Cinder::VolumeType", "vt", {"name": "gold",
                                                           "metadata": {"tier": "1"}})
    assert vtype.resolve_attribute("show")["extra_specs"] == {"tier": "1"}
    enc = driver.create("OS::Cinder::EncryptedVolumeType", "enc", {
        "volume_type": "gold", "provider": "luks", "cipher": "aes-xts-plain64", "key_size": 256})
    assert enc.get_reference_id() == vtype.resource_id
    assert enc.resolve_attribute("show")["provider"] == "luks"
    driver.delete(enc)
    driver.delete(vtype)


def test_missing_volume_gives_heats_message(driver: Any) -> None:
    res = driver.make("OS::Cinder::VolumeAttachment", "att", {"instance_uuid": "x",
                                                              "volume_id": "nope"})
    with pytest.raises(errors.ValidationError) as info:
        res.validate()
    assert "The Volume (nope) could not be found." in info.value.message


def test_web_image(driver: Any) -> None:
    image = driver.create("OS::Glance::WebImage", "img", {
        "location": "http://127.0.0.1:1/cirros.img", "container_format": "bare",
        "disk_format": "qcow2", "tags": ["t1"], "os_distro": "cirros"})
    shown = image.resolve_attribute("show")
    assert shown["status"] == "active" and shown["tags"] == ["t1"]
    assert shown["os_distro"] == "cirros"
    driver.delete(image)
    driver.delete(image)


def test_snapshot_deletion_policy_backs_the_volume_up(driver: Any) -> None:
    vol = driver.create("OS::Cinder::Volume", "vol", {"size": 1})
    res = driver.again(vol)
    handle = res.handle_snapshot_delete()
    assert handle["phase"] == "backup"
    driver._poll(res, handle, "check_delete_complete", 15)
    assert driver.again(vol).resolve_attribute("show") is None
    cloud = res.cloud()
    backup = cloud.block_storage.get_backup(res.data["backup_id"])
    assert backup.status == "available" and backup.volume_id == vol.resource_id
    cloud.block_storage.delete_backup(backup.id)
    _wait_gone(lambda: cloud.block_storage.get_backup(backup.id))


def test_snapshot_deletion_policy_images_the_server(driver: Any) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    srv = driver.create("OS::Nova::Server", "srv", {"image": "cirros", "flavor": "m1.tiny",
                                                    "networks": [{"network": net.resource_id}]})
    res = driver.again(srv)
    handle = res.handle_snapshot_delete()
    assert handle["phase"] == "snapshot"
    driver._poll(res, handle, "check_delete_complete", 15)
    cloud = res.cloud()
    image = cloud.image.get_image(res.data["snapshot_image_id"])
    assert image.status == "active"
    cloud.image.delete_image(image.id)
    assert driver.again(srv).resolve_attribute("show") is None
    driver.delete(net)


def _wait_gone(fetch: Any) -> None:
    import time
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            fetch()
        except errors.CloudError:
            return
        time.sleep(0.05)
    raise AssertionError("still there")
