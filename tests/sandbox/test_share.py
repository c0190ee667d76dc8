"""Manila v2 of the sandbox (catalog type ``sharev2``): share types, share networks, security
services, shares (creating -> available), access rules, extend, the microversion header,
Manila's error bodies and project scoping."""
from __future__ import annotations

import uuid
from typing import Any

from tests.sandbox.conftest import wait_for

MANILA = {"service_type": "sharev2", "interface": "public"}
HEADERS = {"X-OpenStack-Manila-API-Version": "2.45"}


def _call(conn: Any, method: str, path: str, **kw: Any) -> Any:
    return conn.session.request(path, method, endpoint_filter=MANILA, headers=HEADERS,
                                raise_exc=False, **kw)


def test_a_share_is_made_available_given_access_extended_and_deleted(conn: Any, demo_conn: Any,
                                                                      sandbox: Any, no_leaks: None) -> None:
    sandbox.admin("PUT", "behaviour", json={"delays": {"share_create": 0.2, "share_extend": 0.1,
                                                        "share_delete": 0.1}})
    name = f"t-{uuid.uuid4().hex[:6]}"
    stype = _call(conn, "POST", "/types", json={"share_type": {
        "name": name, "extra_specs": {"driver_handles_share_servers": False}}})
    assert stype.status_code == 200 and stype.headers["X-OpenStack-Manila-API-Version"] == "2.45"
    tid = stype.json()["share_type"]["id"]
    dup = _call(conn, "POST", "/types", json={"share_type": {
        "name": name, "extra_specs": {"driver_handles_share_servers": False}}})
    assert dup.status_code == 409 and dup.json()["conflictingRequest"]["message"] == \
        f"Share Type {name} already exists."
    created = _call(conn, "POST", "/shares", json={"share": {"share_proto": "NFS", "size": 1,
                                                              "share_type": name}})
    sid = created.json()["share"]["id"]
    assert created.json()["share"]["status"] == "creating"
    early = _call(conn, "POST", f"/shares/{sid}/action", json={"allow_access": {
        "access_type": "ip", "access_to": "10.0.0.0/24"}})
    assert early.status_code == 400
    wait_for(lambda: _call(conn, "GET", f"/shares/{sid}").json()["share"]["status"] == "available")
    assert _call(demo_conn, "GET", f"/shares/{sid}").status_code == 404
    rule = _call(conn, "POST", f"/shares/{sid}/action", json={"allow_access": {
        "access_type": "ip", "access_to": "10.0.0.0/24", "access_level": "ro"}})
    assert rule.status_code == 200 and rule.json()["access"]["access_level"] == "ro"
    again = _call(conn, "POST", f"/shares/{sid}/action", json={"allow_access": {
        "access_type": "ip", "access_to": "10.0.0.0/24"}})
    assert again.status_code == 400 and "Share access ip:10.0.0.0/24 exists." in again.text
    paths = _call(conn, "GET", f"/shares/{sid}/export_locations").json()["export_locations"]
    assert paths[0]["path"].endswith(f"share_{sid.replace('-', '_')}")
    assert _call(conn, "POST", f"/shares/{sid}/action", json={"extend": {"new_size": 3}}).status_code == 202
    assert _call(conn, "GET", f"/shares/{sid}").json()["share"]["status"] == "extending"
    wait_for(lambda: _call(conn, "GET", f"/shares/{sid}").json()["share"]["size"] == 3)
    in_use = _call(conn, "DELETE", f"/types/{tid}")
    assert in_use.status_code == 400
    assert _call(conn, "DELETE", f"/shares/{sid}").status_code == 202
    wait_for(lambda: _call(conn, "GET", f"/shares/{sid}").status_code == 404)
    assert _call(conn, "DELETE", f"/types/{tid}").status_code == 202


def test_share_networks_check_their_subnet_and_keep_security_services(conn: Any, no_leaks: None) -> None:
    net = conn.network.create_network(name="m-net")
    other = conn.network.create_network(name="m-other")
    subnet = conn.network.create_subnet(network_id=net.id, cidr="10.88.0.0/24", ip_version=4)
    try:
        wrong = _call(conn, "POST", "/share-networks", json={"share_network": {
            "neutron_net_id": other.id, "neutron_subnet_id": subnet.id}})
        assert wrong.status_code == 400 and wrong.json()["badRequest"]["code"] == 400
        sn = _call(conn, "POST", "/share-networks", json={"share_network": {
            "neutron_net_id": net.id, "neutron_subnet_id": subnet.id}}).json()["share_network"]
        assert sn["cidr"] == "10.88.0.0/24"
        bad = _call(conn, "POST", "/security-services", json={"security_service": {"type": "nis"}})
        assert bad.status_code == 400
        ss = _call(conn, "POST", "/security-services", json={"security_service": {
            "type": "ldap", "server": "ldap.example.org"}}).json()["security_service"]
        added = _call(conn, "POST", f"/share-networks/{sn['id']}/action",
                      json={"add_security_service": {"security_service_id": ss["id"]}})
        assert added.json()["share_network"]["security_service_ids"] == [ss["id"]]
        assert _call(conn, "DELETE", f"/security-services/{ss['id']}").status_code == 403
        _call(conn, "POST", f"/share-networks/{sn['id']}/action",
              json={"remove_security_service": {"security_service_id": ss["id"]}})
        assert _call(conn, "DELETE", f"/security-services/{ss['id']}").status_code == 202
        assert _call(conn, "DELETE", f"/share-networks/{sn['id']}").status_code == 202
        missing = _call(conn, "GET", f"/share-networks/{sn['id']}")
        assert missing.json()["itemNotFound"]["message"] == f"Share network {sn['id']} could not be found."
    finally:
        conn.network.delete_subnet(subnet)
        conn.network.delete_network(net)
        conn.network.delete_network(other)
