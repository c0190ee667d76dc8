"""Ironic v1 of the sandbox (catalog type ``baremetal``): seeded nodes and a port group, ports
with microversions, JSON-patch updates, Ironic's error bodies, admin only."""
from __future__ import annotations

import json

IRONIC = {"service_type": "baremetal", "interface": "public"}
V = {"X-OpenStack-Ironic-API-Version": "1.53"}


def _req(conn, method, path, headers=V, **kw):
    return conn.session.request(path, method, endpoint_filter=IRONIC, raise_exc=False,
                                headers=headers, **kw)


def _error(resp) -> str:
    return json.loads(resp.json()["error_message"])["faultstring"]


def test_ports_are_created_patched_and_deleted_on_seeded_nodes(conn, no_leaks):
    nodes = {n["name"]: n["uuid"] for n in _req(conn, "GET", "/v1/nodes").json()["nodes"]}
    assert set(nodes) == {"node-0", "node-1"}
    group = _req(conn, "GET", "/v1/portgroups/pg-0").json()
    resp = _req(conn, "POST", "/v1/ports", json={
        "address": "52:54:00:12:34:56", "node_uuid": nodes["node-0"],
        "portgroup_uuid": group["uuid"], "local_link_connection": {"switch_id": "0a:1b:2c:3d:4e:5f",
                                                                   "port_id": "Ethernet1/1"},
        "pxe_enabled": False, "physical_network": "physnet1"})
    assert resp.status_code == 201, resp.text
    port = resp.json()
    assert resp.headers["X-OpenStack-Ironic-API-Version"] == "1.53"
    assert port["portgroup_uuid"] == group["uuid"] and port["pxe_enabled"] is False
    dup = _req(conn, "POST", "/v1/ports", json={"address": "52:54:00:12:34:56",
                                                 "node_uuid": nodes["node-1"]})
    assert dup.status_code == 409
    assert _error(dup) == "A port with MAC address 52:54:00:12:34:56 already exists."
    patched = _req(conn, "PATCH", f"/v1/ports/{port['uuid']}", json=[
        {"op": "replace", "path": "/node_uuid", "value": nodes["node-1"]},
        {"op": "replace", "path": "/portgroup_uuid", "value": None},
        {"op": "replace", "path": "/pxe_enabled", "value": True}])
    assert patched.status_code == 200, patched.text
    assert patched.json()["node_uuid"] == nodes["node-1"] and patched.json()["pxe_enabled"] is True
    # an old microversion neither shows nor accepts newer fields
    old = _req(conn, "GET", f"/v1/ports/{port['uuid']}", headers={})
    assert "physical_network" not in old.json()
    assert _req(conn, "DELETE", f"/v1/ports/{port['uuid']}").status_code == 204
    assert _req(conn, "GET", f"/v1/ports/{port['uuid']}").status_code == 404


def test_ironic_refuses_bad_input_old_versions_and_non_admins(conn, demo_conn, no_leaks):
    node = _req(conn, "GET", "/v1/nodes/node-0").json()["uuid"]
    bad = _req(conn, "POST", "/v1/ports", json={"address": "zz", "node_uuid": node})
    assert bad.status_code == 400 and _error(bad) == "Expected a MAC address but received zz."
    missing = _req(conn, "POST", "/v1/ports", json={"address": "52:54:00:00:00:01",
                                                     "node_uuid": "nope"})
    assert missing.status_code == 404 and _error(missing) == "Node nope could not be found."
    too_old = _req(conn, "POST", "/v1/ports", headers={"X-OpenStack-Ironic-API-Version": "1.10"},
                   json={"address": "52:54:00:00:00:01", "node_uuid": node, "pxe_enabled": True})
    assert too_old.status_code == 406
    too_new = _req(conn, "GET", "/v1/ports", headers={"X-OpenStack-Ironic-API-Version": "1.99"})
    assert too_new.status_code == 406
    denied = _req(demo_conn, "POST", "/v1/ports", json={"address": "52:54:00:00:00:01",
                                                         "node_uuid": node})
    assert denied.status_code == 403
