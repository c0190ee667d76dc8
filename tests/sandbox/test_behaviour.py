"""Behaviour controls of the sandbox: fault injection, latency, deterministic ids, reset,
inventory and file-backed state that survives a restart."""
from __future__ import annotations

import time

import pytest
from openstack import exceptions

from tests.sandbox.conftest import connect, start_sandbox
from tests.sandbox.test_compute import boot


def test_injected_error_fires_the_given_number_of_times(no_leaks, conn, faults):
    faults({"match": "network.POST.networks", "kind": "error", "status": 503, "times": 1,
            "message": "injected"})
    with pytest.raises(exceptions.HttpException) as err:
        conn.network.create_network(name="flaky")
    assert err.value.status_code == 503 and "injected" in str(err.value)
    net = conn.network.create_network(name="flaky")       # the rule fired its one time
    conn.network.delete_network(net)


def test_injected_quota_error_has_the_service_shape(no_leaks, conn, faults):
    faults({"match": "compute.POST.servers", "kind": "quota", "resource": "instances"})
    with pytest.raises(exceptions.ForbiddenException, match="Quota exceeded for instances"):
        boot(conn)
    faults({"match": "volume.POST.volumes", "kind": "quota", "resource": "gigabytes"})
    with pytest.raises(exceptions.HttpException) as err:
        conn.block_storage.create_volume(size=1)
    assert err.value.status_code == 413


def test_server_that_goes_to_error(no_leaks, conn, faults):
    faults({"match": "compute.POST.servers", "kind": "server_error", "times": 1})
    server = boot(conn)
    with pytest.raises(exceptions.ResourceFailure):
        conn.compute.wait_for_server(server, interval=0.05, wait=5)
    server = conn.compute.get_server(server)
    assert server.status == "ERROR" and "No valid host" in server.fault["message"]
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_rate_zero_never_fires(conn, faults):
    faults({"match": "image.GET.*", "kind": "error", "rate": 0.0})
    assert list(conn.image.images())


def test_latency_per_operation(sandbox, conn, faults):
    sandbox.admin("PUT", "behaviour", json={"latency": [{"match": "image.GET.images", "seconds": 0.3}]})
    started = time.monotonic()
    list(conn.image.images())
    assert time.monotonic() - started >= 0.3
    started = time.monotonic()
    list(conn.compute.flavors())
    assert time.monotonic() - started < 0.3


@pytest.mark.parametrize(("path", "method", "body", "says"), [
    ("faults", "POST", {"match": 5}, "'match' must be a glob of operations"),
    ("faults", "POST", {"rate": "abc"}, "'rate' must be a number from 0.0 to 1.0"),
    ("faults", "POST", {"rate": 2}, "'rate' must be a number from 0.0 to 1.0"),
    ("faults", "POST", {"status": 99999}, "'status' must be an HTTP error status"),
    ("faults", "POST", {"kind": "nonsense"}, "'kind' must be one of error, quota, server_error"),
    ("faults", "POST", {"match": "*", "colour": "red"}, "unknown fault rule keys: colour"),
    ("faults", "POST", [1], "expected an object"),
    ("behaviour", "PUT", {"delays": {"typo_delay": 1}}, "unknown delays: typo_delay"),
    ("behaviour", "PUT", {"delays": {"server_build": -1}}, "'server_build' must be a number"),
    ("behaviour", "PUT", {"latency": [{"seconds": "x"}]}, "'seconds' must be a number"),
    ("behaviour", "PUT", {"faults": {"match": "*"}}, "rules must be a list"),
    ("behaviour", "PUT", {"seed": "x"}, "'seed' must be an integer"),
])
def test_a_rule_the_sandbox_cannot_apply_is_a_400_and_changes_nothing(sandbox, conn, path, method,
                                                                        body, says):
    import requests
    before = sandbox.admin("GET", "behaviour")
    resp = requests.request(method, f"{sandbox.url}/sandbox/{path}", json=body, timeout=10)
    assert resp.status_code == 400 and says in resp.text, resp.text
    assert sandbox.admin("GET", "behaviour") == before
    assert list(conn.image.images())            # the cloud still answers


def test_inventory_lists_live_objects(no_leaks, sandbox, conn):
    net = conn.network.create_network(name="inv-net")
    inventory = sandbox.admin("GET", "inventory")
    assert {"id": net.id, "name": "inv-net", "status": "ACTIVE", "project_id": conn.current_project_id,
            "tenant_id": conn.current_project_id} in inventory["created"]["networks"]
    assert any(n["name"] == "public" for n in inventory["objects"]["networks"])
    conn.network.delete_network(net)


def test_deterministic_ids_and_reset():
    first, second = start_sandbox(deterministic_ids=True), start_sandbox(deterministic_ids=True)
    try:
        ids = [connect(s).network.create_network(name="n").id for s in (first, second)]
        assert ids[0] == ids[1] and ids[0].startswith("00000000-0000-4000-8000-")
        assert first.created()["networks"] == {ids[0]}
        first.admin("POST", "reset")
        assert first.created() == {}
        fresh = connect(first)                       # the old session's token is gone with the reset
        assert fresh.network.find_network("n") is None
        assert fresh.network.find_network("public") is not None
    finally:
        first.server.shutdown()
        second.server.shutdown()


def test_file_backed_state_survives_a_restart(tmp_path):
    path = str(tmp_path / "sandbox.json")
    first = start_sandbox(state_path=path)
    try:
        conn = connect(first)
        net = conn.network.create_network(name="persistent")
        server = boot(conn)
    finally:
        first.stop()
    second = start_sandbox(state_path=path)
    try:
        again = connect(second)
        assert again.network.get_network(net.id).name == "persistent"
        assert again.compute.wait_for_server(again.compute.get_server(server.id), interval=0.05,
                                             wait=5).status == "ACTIVE"
    finally:
        second.server.shutdown()
