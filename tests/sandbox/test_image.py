"""Glance v2 of the sandbox through openstacksdk's image proxy."""
from __future__ import annotations

import hashlib

import pytest
from openstack import exceptions


def test_default_images(conn, demo_conn):
    names = {i.name for i in conn.image.images()}
    assert {"cirros", "ubuntu-24.04"} <= names
    cirros = demo_conn.image.find_image("cirros")
    assert cirros.status == "active" and cirros.visibility == "public"


def test_create_upload_download_delete(no_leaks, conn, demo_conn):
    data = b"sandbox image bytes" * 100
    image = conn.image.create_image(name="t-img", disk_format="qcow2", container_format="bare",
                                    visibility="private", data=data, validate_checksum=False)
    image = conn.image.wait_for_status(image, "active", interval=0.05, wait=5)
    assert image.size == len(data) and image.checksum == hashlib.md5(data).hexdigest()
    assert conn.image.download_image(image).content == data
    conn.image.update_image(image, name="t-img-2", os_distro="cirros")
    updated = conn.image.get_image(image)
    assert updated.name == "t-img-2" and updated.os_distro == "cirros"
    conn.image.add_tag(image, "golden")
    assert conn.image.get_image(image).tags == ["golden"]
    with pytest.raises(exceptions.NotFoundException):
        demo_conn.image.get_image(image.id)
    conn.image.update_image(image, is_protected=True)
    with pytest.raises(exceptions.ForbiddenException):
        conn.image.delete_image(image, ignore_missing=False)
    conn.image.update_image(image, is_protected=False)
    conn.image.delete_image(image, ignore_missing=False)
    with pytest.raises(exceptions.NotFoundException):
        conn.image.get_image(image.id)


def test_metadata_only_image_is_queued(no_leaks, conn, demo_conn):
    image = conn.image.create_image(name="empty", disk_format="raw", container_format="bare", allow_duplicates=True)
    assert conn.image.get_image(image).status == "queued"
    with pytest.raises(exceptions.ForbiddenException):
        demo_conn.image.create_image(name="pub", disk_format="raw", container_format="bare", visibility="public",
                                     allow_duplicates=True)
    conn.image.delete_image(image)


def test_glance_validates_types_before_anything(conn, sandbox):
    """Glance's image schema: ``min_disk`` is an integer; a string number is refused with
    jsonschema's wording, not stored as a string."""
    import requests
    url = f"{sandbox.url}/image/v2/images"
    headers = {"X-Auth-Token": conn.auth_token}
    resp = requests.post(url, json={"name": "typed", "min_disk": "1"}, headers=headers, timeout=10)
    assert resp.status_code == 400
    assert resp.json()["message"] == "Provided object does not match schema 'image': '1' is not of type 'integer'"
    resp = requests.post(url, json={"name": "typed", "protected": "yes"}, headers=headers, timeout=10)
    assert resp.json()["message"] == ("Provided object does not match schema 'image': 'yes' is not of type "
                                      "'boolean'")
    image = conn.image.create_image(name="typed", min_disk=2)
    assert conn.image.get_image(image).min_disk == 2
    conn.image.delete_image(image)
