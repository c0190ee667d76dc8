"""Designate v2 of the sandbox (catalog type ``dns``) through openstacksdk's ``dns`` proxy and
raw requests: zones and recordsets going PENDING -> ACTIVE, the serial moving on each change,
duplicates (409), project scoping and Designate's error bodies."""
from __future__ import annotations

import uuid

import pytest

from tests.sandbox.conftest import wait_for

pytestmark = pytest.mark.usefixtures("no_leaks")


def _dns(conn):
    return conn.dns


def _zone_name():
    return f"z{uuid.uuid4().hex[:8]}.example.org."


def _create_zone(conn, **extra):
    body = {"name": _zone_name(), "email": "admin@example.org", "ttl": 600, **extra}
    resp = _dns(conn).post("/zones", json=body, raise_exc=False)
    assert resp.status_code == 202, resp.text
    return resp.json()


def _active(conn, path):
    return wait_for(lambda: (o := _dns(conn).get(path).json())["status"] == "ACTIVE" and o)


def _delete_zone(conn, zone_id):
    assert _dns(conn).delete(f"/zones/{zone_id}").status_code == 202
    wait_for(lambda: _dns(conn).get(f"/zones/{zone_id}", raise_exc=False).status_code == 404)


def test_a_zone_is_pending_then_active_with_soa_and_ns(conn):
    assert _dns(conn).get_endpoint().rstrip("/").endswith("/dns/v2")
    zone = _create_zone(conn, description="mine")
    assert (zone["status"], zone["action"], zone["type"]) == ("PENDING", "CREATE", "PRIMARY")
    active = _active(conn, f"/zones/{zone['id']}")
    assert active["action"] == "NONE" and active["serial"] == zone["serial"]
    listed = _dns(conn).get(f"/zones/{zone['id']}/recordsets").json()
    assert sorted(r["type"] for r in listed["recordsets"]) == ["NS", "SOA"]
    assert listed["metadata"]["total_count"] == 2
    found = _dns(conn).get("/zones", params={"name": zone["name"]}).json()["zones"]
    assert [z["id"] for z in found] == [zone["id"]]
    _delete_zone(conn, zone["id"])


def test_recordsets_move_the_serial_and_update_in_place(conn):
    zone = _active(conn, f"/zones/{_create_zone(conn)['id']}")
    path = f"/zones/{zone['id']}/recordsets"
    resp = _dns(conn).post(path, json={"name": f"www.{zone['name']}", "type": "A",
                                       "records": ["192.0.2.1"], "ttl": 300})
    assert resp.status_code == 202 and resp.json()["status"] == "PENDING"
    rs = _active(conn, f"{path}/{resp.json()['id']}")
    after_create = _active(conn, f"/zones/{zone['id']}")["serial"]
    assert after_create > zone["serial"]
    put = _dns(conn).put(f"{path}/{rs['id']}", json={"records": ["192.0.2.2"], "ttl": 60})
    assert put.status_code == 202 and put.json()["action"] == "UPDATE"
    rs = _active(conn, f"{path}/{rs['id']}")
    assert (rs["records"], rs["ttl"], rs["version"]) == (["192.0.2.2"], 60, 2)
    assert _active(conn, f"/zones/{zone['id']}")["serial"] > after_create
    dup = _dns(conn).post(path, json={"name": f"www.{zone['name']}", "type": "A",
                                      "records": ["192.0.2.3"]}, raise_exc=False)
    assert dup.status_code == 409 and dup.json()["type"] == "duplicate_recordset"
    outside = _dns(conn).post(path, json={"name": "www.elsewhere.org.", "type": "A",
                                          "records": ["192.0.2.3"]}, raise_exc=False)
    assert outside.status_code == 400 and outside.json()["type"] == "invalid_recordset_location"
    assert _dns(conn).delete(f"{path}/{rs['id']}").status_code == 202
    wait_for(lambda: _dns(conn).get(f"{path}/{rs['id']}", raise_exc=False).status_code == 404)
    _delete_zone(conn, zone["id"])


def test_zone_updates_and_deletes_are_asynchronous(conn):
    zone = _active(conn, f"/zones/{_create_zone(conn)['id']}")
    patched = _dns(conn).patch(f"/zones/{zone['id']}", json={"ttl": 7200, "email": "b@example.org"})
    assert patched.status_code == 202
    assert (patched.json()["status"], patched.json()["action"]) == ("PENDING", "UPDATE")
    active = _active(conn, f"/zones/{zone['id']}")
    assert (active["ttl"], active["email"]) == (7200, "b@example.org")
    assert active["serial"] > zone["serial"]
    gone = _dns(conn).delete(f"/zones/{zone['id']}")
    assert gone.json()["action"] == "DELETE"
    wait_for(lambda: _dns(conn).get(f"/zones/{zone['id']}", raise_exc=False).status_code == 404)
    assert _dns(conn).get(f"/zones/{zone['id']}/recordsets", raise_exc=False).status_code == 404


def test_errors_are_designates(conn, demo_conn):
    zone = _create_zone(conn)
    dup = _dns(demo_conn).post("/zones", json={"name": zone["name"], "email": "x@example.org"},
                               raise_exc=False)
    assert dup.status_code == 409
    body = dup.json()
    assert (body["code"], body["type"], body["message"]) == (409, "duplicate_zone", "Duplicate Zone")
    assert body["request_id"].startswith("req-")
    hidden = _dns(demo_conn).get(f"/zones/{zone['id']}", raise_exc=False)
    assert hidden.status_code == 404 and hidden.json()["type"] == "zone_not_found"
    assert _dns(conn).get("/zones/not-a-uuid", raise_exc=False).json()["type"] == "invalid_uuid"
    no_dot = _dns(conn).post("/zones", json={"name": "example.net", "email": "a@b.c"}, raise_exc=False)
    assert no_dot.status_code == 400 and no_dot.json()["type"] == "invalid_object"
    no_email = _dns(conn).post("/zones", json={"name": _zone_name()}, raise_exc=False)
    assert no_email.status_code == 400
    secondary = _create_zone(conn, type="SECONDARY", masters=["192.0.2.53"], email=None)
    assert secondary["email"].startswith("hostmaster@")
    for z in (zone, secondary):
        _delete_zone(conn, z["id"])


def test_an_admin_lists_every_project_only_when_asked(conn, demo_conn):
    zone = _create_zone(demo_conn)
    own = [z["id"] for z in _dns(conn).get("/zones").json()["zones"]]
    every = [z["id"] for z in _dns(conn).get("/zones", headers={"X-Auth-All-Projects": "true"}).json()["zones"]]
    assert zone["id"] not in own and zone["id"] in every
    _delete_zone(demo_conn, zone["id"])


def test_an_injected_fault_answers_in_designates_shape(conn, faults):
    faults({"match": "dns.POST.zones", "status": 500, "message": "boom", "times": 1})
    resp = _dns(conn).post("/zones", json={"name": _zone_name(), "email": "a@b.c"}, raise_exc=False)
    assert resp.status_code == 500
    assert (resp.json()["code"], resp.json()["type"], resp.json()["message"]) == \
        (500, "unknown_failure", "boom")
