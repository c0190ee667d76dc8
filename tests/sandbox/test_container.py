"""Zun v1 of the sandbox (catalog type ``container``): run a container through Creating,
Created to Running, its kuryr ports and addresses, in-place updates, delete with ``stop``,
Zun's error bodies and project scoping."""
from __future__ import annotations

from tests.sandbox.conftest import wait_for

ZUN = {"service_type": "container", "interface": "public"}


def _req(conn, method, path, **kw):
    return conn.session.request(f"/containers{path}", method, endpoint_filter=ZUN,
                                raise_exc=False, **kw)


def test_a_run_container_goes_running_with_a_port_and_is_deleted_with_stop(conn, demo_conn,
                                                                           no_leaks):
    resp = _req(conn, "POST", "?run=true", json={"name": "web1", "image": "nginx", "cpu": 1,
                                                 "memory": 256, "interactive": True})
    assert resp.status_code == 202, resp.text
    c = resp.json()
    assert c["status"] == "Creating"
    wait_for(lambda: _req(conn, "GET", f"/{c['uuid']}").json()["status"] == "Created", 3, 0.02)
    def shown():
        return _req(conn, "GET", f"/{c['uuid']}").json()
    wait_for(lambda: shown()["status"] == "Running")
    running = shown()
    (net_id, addrs), = running["addresses"].items()
    port = conn.network.get_port(addrs[0]["port"])
    assert port.device_id == c["uuid"] and port.device_owner == "compute:kuryr"
    assert port.fixed_ips[0]["ip_address"] == addrs[0]["addr"] and net_id == port.network_id
    # another project does not see it
    assert _req(demo_conn, "GET", f"/{c['uuid']}").status_code == 404
    # cpu, memory and name change in place
    patched = _req(conn, "PATCH", f"/{c['uuid']}", json={"cpu": 2, "memory": 512, "name": "web2"})
    assert patched.status_code == 200
    assert (patched.json()["cpu"], patched.json()["memory"], patched.json()["name"]) == (2.0, "512", "web2")
    refused = _req(conn, "PATCH", f"/{c['uuid']}", json={"image": "other"})
    assert refused.status_code == 400
    # a running container is deleted only with stop or force
    busy = _req(conn, "DELETE", f"/{c['uuid']}")
    assert busy.status_code == 409
    assert "in Running state" in busy.json()["errors"][0]["detail"]
    assert _req(conn, "DELETE", f"/{c['uuid']}?stop=true").status_code == 204
    wait_for(lambda: _req(conn, "GET", f"/{c['uuid']}").status_code == 404)
    assert conn.network.find_port(addrs[0]["port"]) is None


def test_bad_input_is_refused_with_zuns_errors(conn, no_leaks):
    resp = _req(conn, "POST", "", json={"name": "x1"})
    assert resp.status_code == 400
    error = resp.json()["errors"][0]
    assert error["status"] == 400 and "'image' is a required property" in error["detail"]
    bad = _req(conn, "POST", "", json={"image": "nginx", "restart_policy": {"Name": "sometimes"}})
    assert bad.status_code == 400
    assert _req(conn, "GET", "/no-such-container").status_code == 404


def test_two_containers_may_share_a_name_as_zuns_default_scope(conn, no_leaks):
    """Zun's ``[compute] unique_container_name_scope`` defaults to '' (no check): a replacement
    made before its predecessor is deleted (Heat's update) may keep the name."""
    made = [_req(conn, "POST", "", json={"name": "twin", "image": "cirros"}) for _ in range(2)]
    assert [r.status_code for r in made] == [202, 202]
    assert made[0].json()["uuid"] != made[1].json()["uuid"]
    for r in made:
        wait_for(lambda r=r: _req(conn, "GET", f"/{r.json()['uuid']}").json()["status"]
                 in ("Created", "Running", "Stopped"))
        assert _req(conn, "DELETE", f"/{r.json()['uuid']}?force=true").status_code == 204
    for r in made:
        wait_for(lambda r=r: _req(conn, "GET", f"/{r.json()['uuid']}").status_code == 404)
