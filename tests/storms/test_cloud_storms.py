"""Cloud faults, with the production topology (tests/storms/conftest.py) on the sandbox cloud.

* A cloud answering about 10 % of its compute, network and volume requests with a 5xx (some
  after carrying the request out, as a service that made the object and then fell over) and
  with latency spikes: a stack of servers, ports, volumes and random strings is created,
  updated and deleted COMPLETE, each cloud object made once, nothing left after the delete.
* Both workers SIGKILLed while named servers (on ports of their own, and on a network, through
  ports the server makes) are being created, then started again: the stack ends
  CREATE_COMPLETE and the cloud holds exactly the stack's objects, no second server or port of
  a create whose POST the dead worker sent; nothing is left after the delete.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
import requests

from tests.storms.conftest import Storm

pytestmark = pytest.mark.integration
HEADERS = {"X-Auth-Token": "x"}
#: the cloud's collections a stack of these kinds makes objects in
KINDS = ("servers", "ports", "volumes", "networks", "subnets")

#: ~10 % 5xx on the cloud's own APIs: 500 and 503 refused before the work, and 500 after it
#: (the object was made, or deleted, and the answer lost); the identity API is spared
#: (a token is asked for once a connection)
FAULTS = [rule for service in ("compute", "network", "volume") for rule in (
    {"match": f"{service}.*", "rate": 0.04, "status": 503, "message": "Injected fault"},
    {"match": f"{service}.GET.*", "rate": 0.06, "status": 500, "message": "Injected fault"},
    {"match": f"{service}.POST.*", "rate": 0.06, "status": 500, "after": True,
     "message": "Injected fault after the work"},
    {"match": f"{service}.DELETE.*", "rate": 0.06, "status": 500, "after": True,
     "message": "Injected fault after the work"})]
#: latency spikes (below the cloud timeout): creates up to 0.6 s, everything else up to 0.15 s
LATENCY = [{"match": "*.POST.*", "min": 0.0, "max": 0.6},
           {"match": "*", "min": 0.0, "max": 0.15}]


def _inventory(storm: Storm) -> dict[str, set[str]]:
    """The ids of what the cloud holds beyond its bootstrap, by collection (of :data:`KINDS`)."""
    created = storm.sandbox("GET", "inventory")["created"]
    return {k: {o["id"] for o in created.get(k, [])} for k in KINDS if created.get(k)}


def _physical(storm: Storm, stack_id: str) -> dict[str, str]:
    resources = storm.get(storm.path(stack_id) + "/resources").json()["resources"]
    return {r["resource_name"]: r["physical_resource_id"] for r in resources}


def _server_ports(storm: Storm, server_ids: set[str]) -> set[str]:
    """The ports the cloud shows attached to ``server_ids`` (a server's own internal ports)."""
    ports = storm.sandbox("GET", "inventory")["created"].get("ports", [])
    return {p["id"] for p in ports if p.get("device_id") in server_ids}


def _wait_deleted(storm: Storm, stack_id: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while (resp := storm.get(storm.path(stack_id))).status_code == 200:
        status = resp.json()["stack"]["stack_status"]
        if not status.endswith("IN_PROGRESS"):
            return str(status)
        assert time.monotonic() < deadline, f"{status} after {timeout} s\n{storm.logs()}"
        time.sleep(0.2)
    return "DELETE_COMPLETE"   # (no longer shown)


def _created_once(storm: Storm, stack_id: str, names: set[str]) -> None:
    events = storm.get(storm.path(stack_id) + "/events?limit=1000").json()["events"]
    created = Counter(e["resource_name"] for e in events
                      if e["resource_status"] == "CREATE_COMPLETE" and e["resource_name"] in names)
    assert dict(created) == {n: 1 for n in names}, created


def mixed(n: int, name: str) -> dict[str, Any]:
    """``n`` each of: a named port on ``private``, a named server on it, a named volume, an
    unnamed volume and a random string."""
    res: dict[str, Any] = {}
    for i in range(n):
        res[f"port{i}"] = {"type": "OS::Neutron::Port",
                           "properties": {"name": f"{name}-port{i}", "network": "private"}}
        res[f"server{i}"] = {"type": "OS::Nova::Server", "properties": {
            "name": f"{name}-server{i}", "image": "cirros", "flavor": "m1.tiny",
            "networks": [{"port": {"get_resource": f"port{i}"}}]}}
        res[f"vol{i}"] = {"type": "OS::Cinder::Volume",
                          "properties": {"name": f"{name}-vol{i}", "size": 1}}
        res[f"disk{i}"] = {"type": "OS::Cinder::Volume", "properties": {"size": 1}}
        res[f"rs{i}"] = {"type": "OS::Heat::RandomString", "properties": {"length": 16}}
    return {"heat_template_version": "2018-08-31", "resources": res}


#: A call other than a poll or a delete (a lookup by name, a create) still fails its resource
#: when 1 + client_retry_limit tries in a row are refused (Heat's option; 2 by default: about
#: one such call in a thousand at these rates, and a storm makes a few hundred): the operator's
#: setting for a cloud this flaky
FLAKY = {"sandbox_latency": "0", "env": {"STOKER_CLIENT_RETRY_LIMIT": "5"}}


@pytest.mark.parametrize("storm", [FLAKY], indirect=True)
def test_create_update_delete_ride_out_5xx_and_latency_spikes(storm: Storm) -> None:
    storm.sandbox("PUT", "behaviour", json={"faults": FAULTS, "latency": LATENCY, "seed": 7,
                                            "delays": {"server_build": 0.5}})
    template = mixed(4, "flaky")
    started = time.monotonic()
    resp = storm.create("flaky", template)
    assert resp.status_code == 201, resp.text
    sid = resp.json()["stack"]["id"]
    st, _ = storm.settled(sid, timeout=60)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    _created_once(storm, sid, set(template["resources"]))
    ids = _physical(storm, sid)
    held = _inventory(storm)
    assert held == {"servers": {ids[f"server{i}"] for i in range(4)},
                    "ports": {ids[f"port{i}"] for i in range(4)},
                    "volumes": {ids[f"vol{i}"] for i in range(4)} | {ids[f"disk{i}"]
                                                                    for i in range(4)}}, held
    created_in = time.monotonic() - started

    bigger = mixed(4, "flaky2")       # every name changed in place; one more of each
    bigger["resources"].update({k.replace("0", "9"): v for k, v in mixed(1, "extra")
                                ["resources"].items()})
    bigger["resources"]["server9"]["properties"]["networks"] = [{"port": {"get_resource": "port9"}}]
    resp = requests.put(storm.api(storm.path(sid)), json={"template": bigger}, headers=HEADERS,
                        timeout=30)
    assert resp.status_code == 202, resp.text
    st, _ = storm.settled(sid, timeout=60)
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    ids = _physical(storm, sid)
    held = _inventory(storm)
    assert held["servers"] == {v for k, v in ids.items() if k.startswith("server")}, held
    assert held["ports"] == {v for k, v in ids.items() if k.startswith("port")}, held
    assert held["volumes"] == {v for k, v in ids.items() if k.startswith(("vol", "disk"))}, held

    resp = requests.delete(storm.api(storm.path(sid)), headers=HEADERS, timeout=30)
    assert resp.status_code == 204, resp.text
    assert _wait_deleted(storm, sid, timeout=60) == "DELETE_COMPLETE"
    fired = sum(int(f.get("fired", 0)) for f in storm.sandbox("GET", "behaviour")["faults"])
    print(f"faults injected: {fired}; create took {created_in:.1f} s")
    assert fired >= 10         # the storm was one
    assert _inventory(storm) == {}


def named_servers(n: int) -> dict[str, Any]:
    """``n`` named servers on named ports of their own, and ``n`` named servers on the
    ``private`` network (each through a port the server makes)."""
    res: dict[str, Any] = {}
    for i in range(n):
        res[f"port{i}"] = {"type": "OS::Neutron::Port",
                           "properties": {"name": f"kill-port{i}", "network": "private"}}
        res[f"onport{i}"] = {"type": "OS::Nova::Server", "properties": {
            "name": f"kill-onport{i}", "image": "cirros", "flavor": "m1.tiny",
            "networks": [{"port": {"get_resource": f"port{i}"}}]}}
        res[f"onnet{i}"] = {"type": "OS::Nova::Server", "properties": {
            "name": f"kill-onnet{i}", "image": "cirros", "flavor": "m1.tiny",
            "networks": [{"network": "private"}]}}
    return {"heat_template_version": "2018-08-31", "resources": res}


#: Engine timings short enough for a storm: a dead worker's lease ends after 5 s (its
#: heartbeat every 1 s), an idle fired node re-driven after 5 s (the reconciler every 2 s)
KILLED = {"sandbox_latency": "0", "env": {
    "STOKER_HEARTBEAT_SECONDS": "1",
    "STOKER_RECONCILE_AFTER_SECONDS": "5", "STOKER_RECONCILE_INTERVAL": "2"}}


@pytest.mark.parametrize("storm", [KILLED], indirect=True)
def test_workers_killed_while_server_creates_are_in_flight_make_nothing_twice(storm: Storm):
    # each create is held 1-1.5 s by the cloud: the kill lands while POSTs are in flight
    storm.sandbox("PUT", "behaviour", json={"seed": 11, "latency": [
        {"match": "compute.POST.servers", "min": 1.0, "max": 1.5},
        {"match": "network.POST.ports", "min": 0.3, "max": 0.8}],
        "delays": {"server_build": 0.5}})
    storm.sandbox("DELETE", "requests")
    template = named_servers(4)   # 8 servers: the sandbox project's quota is 10
    sid = storm.create("killed", template).json()["stack"]["id"]
    deadline = time.monotonic() + 30
    while storm.sandbox("GET", "requests")["requests"].get("compute.POST.servers", 0) < 3:
        assert time.monotonic() < deadline, storm.logs()
        time.sleep(0.05)
    storm.kill("worker1")
    storm.kill("worker2")
    killed = time.monotonic()
    sent = storm.sandbox("GET", "requests")["requests"].get("compute.POST.servers", 0)
    time.sleep(2.0)               # the held POSTs end at the cloud; nobody stores their ids
    storm.spawn("worker1")
    storm.spawn("worker2")
    storm._wait_workers()
    st, ended = storm.settled(sid, timeout=90)
    print(f"server POSTs sent before the kill: {sent}; the stack ended "
          f"{ended - killed:.1f} s after it")
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    _created_once(storm, sid, set(template["resources"]))
    ids = _physical(storm, sid)
    servers = {v for k, v in ids.items() if k.startswith("on")}
    held = _inventory(storm)
    assert held.get("servers") == servers, held
    own_ports = {v for k, v in ids.items() if k.startswith("port")}
    made_ports = _server_ports(storm, {ids[f"onnet{i}"] for i in range(4)})
    assert len(made_ports) == 4
    assert held.get("ports") == own_ports | made_ports, held   # no extra server or port

    resp = requests.delete(storm.api(storm.path(sid)), headers=HEADERS, timeout=30)
    assert resp.status_code == 204, resp.text
    assert _wait_deleted(storm, sid, timeout=60) == "DELETE_COMPLETE"
    assert _inventory(storm) == {}
