"""A worker host cut off from the network, with the production topology and settings
(tests/storms/conftest.py) spread over two worker "hosts" (tests/storms/hosts.py: Linux
network namespaces, each running one ``stoker worker`` that reaches PostgreSQL, Redis and the
sandbox cloud through its veth).

Named servers, ports and volumes are being created when one host's link goes down for
:data:`CUT` s (nothing refused: its packets are dropped, its connections hang). Its lease runs
out 5 s later and the other worker's sweep takes its nodes over; when its link comes back, the
cut-off worker's late writes are fenced. The stack ends CREATE_COMPLETE, each resource created
once, the cloud holds exactly the stack's objects (no second one of a create whose POST the
cut-off worker had sent), and nothing is left after the delete.
"""
from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import requests

from tests.storms import hosts as netns
from tests.storms.conftest import REPO, Storm
from tests.storms.services import PrivatePostgres, PrivateRedis
from tests.storms.test_cloud_storms import (
    HEADERS,
    _inventory,
    _physical,
    _server_ports,
    _wait_deleted,
)
from tests.storms.test_worker_storms import RESUME, _held_by, _resumed, _sql, _states

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _namespaces() -> None:
    """The storm needs network namespaces (root, ``ip netns``): without them it fails, it is
    not skipped."""
    why = netns.available()
    if why is not None:
        pytest.fail(f"the partition storm needs network namespaces: {why}", pytrace=False)


#: s the host is cut off for (the bench's storm: 60)
CUT = 20.0
#: s from the link's return to the stack's end (when it had not ended before)
RECOVERY = 10.0


def named_objects(n: int) -> dict[str, Any]:
    """``n`` each of: a named port, a named server on it, a named server on the ``private``
    network (through a port it makes) and a named volume."""
    res: dict[str, Any] = {}
    for i in range(n):
        res[f"port{i}"] = {"type": "OS::Neutron::Port",
                           "properties": {"name": f"cut-port{i}", "network": "private"}}
        res[f"onport{i}"] = {"type": "OS::Nova::Server", "properties": {
            "name": f"cut-onport{i}", "image": "cirros", "flavor": "m1.tiny",
            "networks": [{"port": {"get_resource": f"port{i}"}}]}}
        res[f"onnet{i}"] = {"type": "OS::Nova::Server", "properties": {
            "name": f"cut-onnet{i}", "image": "cirros", "flavor": "m1.tiny",
            "networks": [{"network": "private"}]}}
        res[f"vol{i}"] = {"type": "OS::Cinder::Volume",
                          "properties": {"name": f"cut-vol{i}", "size": 1}}
    return {"heat_template_version": "2018-08-31", "resources": res}


#: the fleet's Storm: the engine's production settings (the takeover is the lease's sweep, not
#: the reconciler's), the sandbox without a latency of its own (:data:`IN_FLIGHT`'s instead)
FLEET = {"sandbox_latency": "0"}
#: creates held by the cloud long enough for the cut to land while POSTs are in flight
IN_FLIGHT = {"seed": 5, "latency": [
    {"match": "compute.POST.servers", "min": 1.0, "max": 1.5},
    {"match": "network.POST.ports", "min": 0.3, "max": 0.8},
    {"match": "volume.POST.volumes", "min": 0.3, "max": 0.8}],
    "delays": {"server_build": 0.5}}


@pytest.fixture()
def fleet(private_pg: PrivatePostgres, private_redis: PrivateRedis,
          tmp_path: Path) -> Iterator[tuple[Storm, netns.Hosts]]:
    with netns.fleet(private_pg, private_redis, tmp_path, **FLEET) as made:
        yield made


def engine(storm: Storm, name: str) -> str:
    """The engine id of process ``name`` (same host name in a namespace; its pid here)."""
    return f"{socket.gethostname()}:{storm.named[name].pid}"


def partition(storm: Storm, hosts: netns.Hosts, cut: float, n: int = 3) -> dict[str, Any]:
    """Create :func:`named_objects` ``(n)``, cut ``worker2``'s host off for ``cut`` s while it
    holds some of them, then bring it back; checks and measures what the module says.

    :returns: ``taken_over`` (s from the cut to the last resumed node it held), ``recovery``
    (s from the link's return to the stack's end, 0 if it ended before), ``status``, ``dup``
    (extra objects in the cloud), ``orphans`` (objects left after the delete)."""
    storm.sandbox("PUT", "behaviour", json=IN_FLIGHT)
    storm.sandbox("DELETE", "requests")
    template = named_objects(n)
    resp = storm.create("cut", template)
    assert resp.status_code == 201, resp.text
    sid = resp.json()["stack"]["id"]
    deadline = time.monotonic() + 30
    while not (_sql(storm, "SELECT 1 FROM resource WHERE stack_id = %s AND engine_id = %s",
                    sid, engine(storm, "worker2"))
               and storm.sandbox("GET", "requests")["requests"].get("compute.POST.servers", 0)):
        assert time.monotonic() < deadline, "worker2 never held a create\n" + storm.logs()
        time.sleep(0.05)
    before = _states(storm, sid)   # (first: one it finishes meanwhile has changed since)
    held = _held_by(storm, sid, ["worker2"])
    hosts.cut(hosts.hosts[1])
    cut_at = time.monotonic()
    try:
        resumed = _resumed(storm, sid, held, cut_at, timeout=min(cut, 30.0), before=before)
        left = cut - (time.monotonic() - cut_at)
        if left > 0:
            time.sleep(left)
    finally:
        hosts.restore(hosts.hosts[1])
    cleared = time.monotonic()
    print(f"worker2 cut off holding {sorted(held)}: resumed "
          f"{ {k: round(v, 1) for k, v in sorted(resumed.items())} } s after the cut")
    st, ended = storm.settled(sid, timeout=60)
    deadline = time.monotonic() + 20   # it comes back: beats again, its late writes fenced
    while not _sql(storm, "SELECT 1 FROM worker_heartbeat WHERE engine_id = %s",
                   engine(storm, "worker2")):
        assert time.monotonic() < deadline, "worker2 never beat again\n" + storm.logs()
        time.sleep(0.2)
    time.sleep(3.0)   # its calls in flight return; what it writes then is fenced
    events = storm.get(storm.path(sid) + "/events?limit=1000").json()["events"]
    created = Counter(e["resource_name"] for e in events
                      if e["resource_status"] == "CREATE_COMPLETE"
                      and e["resource_name"] in template["resources"])
    ids = _physical(storm, sid)
    held_now = _inventory(storm)
    mine = {"servers": {v for k, v in ids.items() if k.startswith("on")},
            "ports": {v for k, v in ids.items() if k.startswith("port")}
            | _server_ports(storm, {ids.get(f"onnet{i}", "") for i in range(n)}),
            "volumes": {v for k, v in ids.items() if k.startswith("vol")}}
    dup = sum(len(held_now.get(k, set()) - v) for k, v in mine.items())
    result = {"held": held, "resumed": resumed, "before": before, "status": storm.stack(sid)["stack_status"],
              "reason": st["stack_status_reason"], "inventory": held_now, "mine": mine,
              "taken_over": max(resumed.values(), default=float("nan")),
              "recovery": max(0.0, ended - cleared), "dup": dup, "sid": sid,
              "created": dict(created),
              "stuck": [r["resource_name"] for r in storm.get(storm.path(sid) + "/resources")
                        .json()["resources"] if r["resource_status"].endswith("IN_PROGRESS")]}
    resp = requests.delete(storm.api(storm.path(sid)), headers=HEADERS, timeout=30)
    assert resp.status_code == 204, resp.text
    result["deleted"] = _wait_deleted(storm, sid, timeout=60)
    result["orphans"] = sum(len(v) for v in _inventory(storm).values())
    return result


def test_a_worker_host_cut_off_mid_create_is_taken_over_and_fenced(
        fleet: tuple[Storm, netns.Hosts]) -> None:
    storm, hosts = fleet
    out = partition(storm, hosts, CUT)
    print(f"taken over {out['taken_over']:.1f} s after the cut; stack recovered "
          f"{out['recovery']:.1f} s after the link came back")
    never = out["held"] - set(out["resumed"])
    assert not never, f"never resumed: { {n: out['before'].get(n) for n in sorted(never)} }"
    assert out["taken_over"] <= RESUME
    assert out["status"] == "CREATE_COMPLETE", out["reason"]
    assert out["stuck"] == []
    assert out["created"] == {n: 1 for n in named_objects(3)["resources"]}, out["created"]
    assert out["recovery"] <= RECOVERY
    assert out["inventory"] == out["mine"], out["inventory"]   # exactly the stack's objects
    assert out["deleted"] == "DELETE_COMPLETE"
    assert out["orphans"] == 0, _inventory(storm)


#: A worker's transaction, run on a host of its own: a row locked, then the client silent
_LOCKER = """
import sys, time
from sqlalchemy import text
from app.models.base import make_engine
with make_engine(sys.argv[1]).connect() as c:
    c.execute(text("SELECT v FROM held WHERE id = 1 FOR UPDATE"))
    print("locked", flush=True)
    time.sleep(120)
"""


def test_a_cut_off_hosts_open_transaction_holds_its_row_locks_a_lease_at_most(
        private_pg: PrivatePostgres) -> None:
    hosts = netns.Hosts(count=1)
    locker = None
    try:
        host = hosts.open()[0]
        private_pg.listen(hosts.addresses())
        with psycopg.connect(private_pg.admin_url(), autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS held")
            conn.execute("CREATE TABLE held (id int PRIMARY KEY, v int)")
            conn.execute("INSERT INTO held VALUES (1, 0)")
        url = private_pg.url.replace("127.0.0.1", host.gateway) + "/postgres"
        locker = subprocess.Popen(host.argv([sys.executable, "-c", _LOCKER, url]),
                                  stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert locker.stdout is not None and locker.stdout.readline().strip() == b"locked"
        hosts.cut(host)
        cut = time.monotonic()
        with psycopg.connect(private_pg.admin_url(), autocommit=True) as conn:
            conn.execute("SET statement_timeout = '30s'")
            conn.execute("UPDATE held SET v = 1 WHERE id = 1")   # waits for the lock
        waited = time.monotonic() - cut
        print(f"the cut-off client's row lock freed {waited:.1f} s after the cut")
        assert waited <= RESUME - 2   # the sweep of a lease run out (5 s) finds it free
    finally:
        if locker is not None:
            locker.kill()
            locker.wait(10)
        hosts.close()
        private_pg.listen([])


def test_fleets_have_names_and_addresses_of_their_own_and_leave_nothing() -> None:
    def made() -> tuple[set[str], set[str]]:
        spaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True,
                                check=True).stdout
        addrs = subprocess.run(["ip", "-4", "-o", "addr", "show"], capture_output=True,
                               text=True, check=True).stdout
        return ({line.split()[0] for line in spaces.splitlines() if line.strip()},
                {w.split("/")[0] for line in addrs.splitlines() for w in line.split()
                 if w.startswith("10.231.")})

    gone = subprocess.Popen(["true"])   # a process that ran and is gone: what it left is
    gone.wait()                         # taken away by the next fleet that opens
    left = f"stk{gone.pid:x}-0n1"
    subprocess.run(["ip", "netns", "add", left], check=True)
    first, second = netns.Hosts(), netns.Hosts()
    try:
        a, b = first.open(), second.open()
        spaces, addrs = made()
        assert left not in spaces
        names = [h.ns for h in a + b] + [h.link for h in a + b]
        assert len(set(names)) == 8 and all(f"{os.getpid():x}" in n for n in names)
        nets = {ipaddress.ip_interface(f"{h.gateway}/30").network for h in a + b}
        assert len(nets) == 4 and all(
            ipaddress.ip_address(h.address) in ipaddress.ip_interface(f"{h.gateway}/30").network
            for h in a + b)
        assert {h.ns for h in a + b} <= spaces and {h.gateway for h in a + b} <= addrs
    finally:
        first.close()
        second.close()
    spaces, addrs = made()
    assert not {h.ns for h in a + b} & spaces and not {h.gateway for h in a + b} & addrs
