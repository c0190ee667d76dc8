"""Blazar v1 of the sandbox (catalog type ``reservation``): hosts (admin only, Nova's
hypervisors), leases of hosts and instances PENDING then ACTIVE, Blazar's errors."""
from __future__ import annotations

import datetime as dt

from tests.sandbox.conftest import wait_for

BLAZAR = {"service_type": "reservation", "interface": "public"}


def _req(conn, method, path, **kw):
    return conn.session.request(path, method, endpoint_filter=BLAZAR, raise_exc=False, **kw)


def _at(minutes: float) -> str:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M")


def test_hosts_are_registered_by_admins_and_leased(conn, demo_conn, no_leaks):
    assert _req(demo_conn, "POST", "/os-hosts", json={"name": "sandbox-7"}).status_code == 403
    unknown = _req(conn, "POST", "/os-hosts", json={"name": "nowhere"})
    assert unknown.status_code == 404 and unknown.json()["error_code"] == 404
    resp = _req(conn, "POST", "/os-hosts", json={"name": "sandbox-7", "gpu": True})
    assert resp.status_code == 201
    host = resp.json()["host"]
    assert host["hypervisor_hostname"] == "sandbox-7" and host["gpu"] == "True"
    assert _req(conn, "POST", "/os-hosts", json={"name": "sandbox-7"}).status_code == 409
    lease = _req(conn, "POST", "/leases", json={
        "name": "l1", "start_date": "now", "end_date": _at(60),
        "reservations": [{"resource_type": "physical:host", "min": 1, "max": 1,
                          "hypervisor_properties": "", "resource_properties": ""}]})
    assert lease.status_code == 201, lease.text
    body = lease.json()["lease"]
    assert body["status"] == "PENDING"
    wait_for(lambda: _req(conn, "GET", f"/leases/{body['id']}").json()["lease"]["status"] == "ACTIVE")
    too_many = _req(conn, "POST", "/leases", json={
        "name": "l2", "start_date": "now", "end_date": _at(60),
        "reservations": [{"resource_type": "physical:host", "min": 1, "max": 1}]})
    assert too_many.status_code == 400
    assert too_many.json()["error_message"] == "Not enough hosts available"
    assert _req(conn, "DELETE", f"/os-hosts/{host['id']}").status_code == 409
    assert _req(demo_conn, "GET", f"/leases/{body['id']}").status_code == 404
    assert _req(conn, "DELETE", f"/leases/{body['id']}").status_code == 204
    assert _req(conn, "DELETE", f"/os-hosts/{host['id']}").status_code == 204


def test_a_future_instance_lease_stays_pending_and_dates_are_checked(demo_conn, no_leaks):
    resp = _req(demo_conn, "POST", "/leases", json={
        "name": "later", "start_date": _at(30), "end_date": _at(90),
        "reservations": [{"resource_type": "virtual:instance", "amount": 2, "vcpus": 1,
                          "memory_mb": 512, "disk_gb": 10, "affinity": False}]})
    assert resp.status_code == 201
    lease = resp.json()["lease"]
    assert lease["status"] == "PENDING" and lease["reservations"][0]["amount"] == 2
    assert {e["event_type"] for e in lease["events"]} == {"start_lease", "end_lease"}
    backwards = _req(demo_conn, "POST", "/leases", json={
        "name": "bad", "start_date": _at(30), "end_date": _at(10),
        "reservations": [{"resource_type": "virtual:instance", "amount": 1, "vcpus": 1,
                          "memory_mb": 512, "disk_gb": 10}]})
    assert backwards.status_code == 400
    assert backwards.json()["error_message"] == "End date must be later than start date."
    assert _req(demo_conn, "DELETE", f"/leases/{lease['id']}").status_code == 204
