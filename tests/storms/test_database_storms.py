"""PostgreSQL faults under a create, with the production topology (tests/storms/conftest.py):
the server restarted (``pg_ctl restart -m fast``: every connection closed under the workers and
the API) or stopped for a while. The stack must end CREATE_COMPLETE with every resource created
once, within :data:`RECOVERY` s of the server's return, with no help (no worker restarted);
while the server is down the API answers 503 in Heat's fault shape, and after it nothing but
2xx (a pooled connection the server closed is replaced, never a 500)."""
from __future__ import annotations

import time

import pytest
import requests

from tests.storms.checks import assert_clean_outage, assert_created_once, chains
from tests.storms.conftest import Storm

pytestmark = pytest.mark.integration
#: s from the fault clearing to the stack's end (the chains' remaining work included)
RECOVERY = 10.0


def _start(storm: Storm, name: str) -> tuple[str, dict]:
    template = chains(width=3, depth=6, wait=0.3)
    resp = storm.create(name, template)
    assert resp.status_code == 201, resp.text
    return resp.json()["stack"]["id"], template


def test_postgres_restart_mid_create_recovers_by_itself(storm: Storm):
    sid, template = _start(storm, "pg-restart")
    with storm.probing(storm.path(sid)):
        time.sleep(1.0)
        fault = time.monotonic()
        storm.pg.restart()
        cleared = time.monotonic()
        _, ended = storm.settled(sid, timeout=40)
    print(f"PostgreSQL restart took {cleared - fault:.1f} s; stack ended "
          f"{ended - cleared:.1f} s after it")
    assert_clean_outage(storm, fault)
    assert [s for s in storm.probe.seen if s[0] > cleared and s[1] >= 500] == []
    assert ended - cleared <= RECOVERY
    assert_created_once(storm, sid, template)


def test_postgres_down_mid_create_answers_503_and_recovers(storm: Storm):
    sid, template = _start(storm, "pg-down")
    with storm.probing(storm.path(sid)):
        time.sleep(1.0)
        fault = time.monotonic()
        storm.pg.stop()
        time.sleep(20)  # longer than a step's own retries would last, were they bounded
        storm.pg.start()
        cleared = time.monotonic()
        _, ended = storm.settled(sid, timeout=40)
    during = [s for s in storm.probe.seen if fault + 1 < s[0] < cleared - 1]
    print(f"PostgreSQL down {cleared - fault:.1f} s: answers {sorted({s[1] for s in during})}; "
          f"stack ended {ended - cleared:.1f} s after its return")
    assert during and {s[1] for s in during} == {503}
    assert_clean_outage(storm, fault)
    assert [s for s in storm.probe.seen if s[0] > cleared and s[1] >= 500] == []
    assert ended - cleared <= RECOVERY
    assert_created_once(storm, sid, template)
    no_live_worker_taken_for_dead(storm)


def nets(width: int, depth: int) -> dict:
    """``width`` chains of ``depth`` OS::Neutron::Net, each after the one before it: every
    create is a request to the sandbox cloud, made while its step holds the resource's lock."""
    res = {f"n{i}_{k}": {"type": "OS::Neutron::Net", "properties": {"name": f"n{i}_{k}"},
                         **({"depends_on": [f"n{i}_{k - 1}"]} if k else {})}
           for i in range(width) for k in range(depth)}
    return {"heat_template_version": "2018-08-31", "resources": res}


def no_live_worker_taken_for_dead(storm: Storm) -> None:
    """No worker's sweep took another (live) worker for dead: after an outage longer than the
    lease every heartbeat is stale, and a takeover then would run a live worker's steps
    twice at once (a create in flight made again)."""
    logs = "".join((storm.home / f"{w}.log").read_text(errors="replace")
                   for w in ("worker1", "worker2"))
    assert "lost their lease" not in logs, logs[-3000:]


@pytest.mark.parametrize("storm", [{"sandbox_latency": "0.4"}], indirect=True)
def test_postgres_down_under_steps_holding_their_locks_recovers(storm: Storm):
    # the database goes away, for longer than the lease, while steps wait on the cloud holding
    # their locks: their releases fail, the locks name their own live workers, and every
    # heartbeat is stale when it comes back
    template = nets(width=6, depth=3)
    resp = storm.create("pg-down-locks", template)
    assert resp.status_code == 201, resp.text
    sid = resp.json()["stack"]["id"]
    with storm.probing(storm.path(sid)):
        time.sleep(1.5)
        fault = time.monotonic()
        storm.pg.stop()
        time.sleep(8)
        storm.pg.start()
        cleared = time.monotonic()
        _, ended = storm.settled(sid, timeout=40)
    print(f"PostgreSQL down {cleared - fault:.1f} s under held locks: stack ended "
          f"{ended - cleared:.1f} s after its return")
    assert_clean_outage(storm, fault)
    assert ended - cleared <= RECOVERY
    st = storm.stack(sid)
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    resources = storm.get(storm.path(sid) + "/resources").json()["resources"]
    assert sorted(r["resource_status"] for r in resources) == ["CREATE_COMPLETE"] * 18
    events = storm.get(storm.path(sid) + "/events?limit=1000").json()["events"]
    done = [e["resource_name"] for e in events if e["resource_status"] == "CREATE_COMPLETE"
            and e["resource_name"] in template["resources"]]
    assert sorted(done) == sorted(template["resources"])
    no_live_worker_taken_for_dead(storm)
    made = {o["id"] for o in storm.sandbox("GET", "inventory")["created"].get("networks", [])}
    assert made == {r["physical_resource_id"] for r in resources}   # each network made once
    resp = requests.delete(storm.api(storm.path(sid)), headers={"X-Auth-Token": "x"}, timeout=30)
    assert resp.status_code == 204, resp.text
    deadline = time.monotonic() + 40
    while (resp := storm.get(storm.path(sid))).status_code == 200 \
            and resp.json()["stack"]["stack_status"].endswith("IN_PROGRESS"):
        assert time.monotonic() < deadline, storm.logs()
        time.sleep(0.2)
    assert storm.sandbox("GET", "inventory")["created"].get("networks", []) == []
