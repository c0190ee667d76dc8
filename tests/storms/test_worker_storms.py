"""Worker faults, with the production topology (tests/storms/conftest.py): a worker SIGKILLed
mid-create and mid-delete, both at once, a rolling restart under an update, and a worker
stopped (SIGSTOP) for longer than its lease.

A dead worker's in-flight nodes — the steps it ran (their resources locked by it) and the
polls and steps whose messages it held, which the broker gives back only after its visibility
timeout (300 s) — run again within :data:`RESUME` s of its death: every live worker's sweep
finds its heartbeat older than the lease (5 s), takes its locks back and re-enqueues them
(app/convergence/store/lease.py). A worker that was only stopped finds, when it wakes, that its
locks moved on: what it writes then is fenced (each resource still completes once)."""
from __future__ import annotations

import signal
import socket
import time
from collections import Counter
from typing import Any

import psycopg
import pytest
import requests

from tests.storms.checks import assert_created_once, chains
from tests.storms.conftest import Storm
from tests.storms.test_database_storms import nets

pytestmark = pytest.mark.integration
#: s from a worker's death (or the restart of both) to each of its in-flight resources' next
#: change of state (the bound held; the lease is 5 s, a sweep runs every second)
RESUME = 10.0


def _sql(storm: Storm, query: str, *args: Any) -> list[tuple[Any, ...]]:
    url = storm.settings().database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as conn:
        return list(conn.execute(query, args).fetchall())


def _states(storm: Storm, stack_id: str) -> dict[str, tuple[str, str]]:
    return {name: (action, status) for name, action, status in _sql(
        storm, "SELECT name, action, status FROM resource WHERE stack_id = %s", stack_id)}


def _held_by(storm: Storm, stack_id: str, names: list[str]) -> set[str]:
    """The resources of ``stack_id`` that workers ``names`` hold now: their locks (the steps
    they run) and the step messages they reserved (polls due later), as Celery's inspect
    reports them, of nodes of the current traversal that have not ended (FIRED). A running
    task's message names the node it started with, and the task then runs the successors
    its step made ready (app.tasks.dispatcher.Continuation): that first node has ended, and
    is not in flight."""
    engines = [f"{socket.gethostname()}:{storm.named[n].pid}" for n in names]
    held = {r[0] for r in _sql(storm, "SELECT name FROM resource WHERE stack_id = %s AND "
                                      "engine_id = ANY(%s)", stack_id, engines)}
    from celery import Celery
    app = Celery(broker=storm.redis.url)
    try:
        inspect = app.control.inspect(timeout=1.0, destination=[
            f"storm{n.removeprefix('worker')}@{socket.gethostname()}" for n in names])
        tasks = [t.get("request", t) for reply in ((inspect.scheduled() or {}),
                                                  (inspect.reserved() or {}),
                                                  (inspect.active() or {}))
                 for per_worker in reply.values() for t in per_worker]
    finally:
        app.close()
    nodes = {(int(t["args"][2]), bool(t["args"][3])) for t in tasks
             if len(t.get("args") or ()) == 4 and t["args"][0] == stack_id}
    for rid, is_update in nodes:
        held |= {r[0] for r in _sql(
            storm, "SELECT r.name FROM resource r JOIN stack s ON s.id = r.stack_id "
                   "JOIN sync_point p ON p.entity_id = r.id AND p.traversal_id = "
                   "s.current_traversal AND p.is_update = %s WHERE r.id = %s AND "
                   "p.state = 'FIRED'", is_update, rid)}
    return held


def _resumed(storm: Storm, stack_id: str, names: set[str], since: float,
             timeout: float = 30.0,
             before: dict[str, tuple[str, str]] | None = None) -> dict[str, float]:
    """Seconds from ``since`` to the first change of state of each of ``names`` (its row
    gone counts), watched every 0.1 s from ``before`` (default: their state at the start of
    the watch)."""
    before = _states(storm, stack_id) if before is None else before
    out: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    while set(out) != names and time.monotonic() < deadline:
        now = _states(storm, stack_id)
        seen = time.monotonic()
        for name in names - set(out):
            if now.get(name) != before.get(name):
                out[name] = seen - since
        time.sleep(0.1)
    return out


def _kill_and_measure(storm: Storm, stack_id: str, victims: list[str],
                      restart_after: float | None = None) -> dict[str, float]:
    """SIGKILL ``victims`` once they hold resources of ``stack_id``; with ``restart_after``,
    start them again that many seconds later. :returns: per resource they held, the seconds
    from their death (or, restarted, from their answering again) to its next change of
    state."""
    deadline = time.monotonic() + 20
    while True:  # the states first: a resource that moves on after them still counts
        before = _states(storm, stack_id)
        held = _held_by(storm, stack_id, victims)
        if any(n.startswith("c") for n in held):
            break  # they hold a link (1 s an action), not only a quick string
        assert time.monotonic() < deadline, "the workers never held a link of the stack"
        time.sleep(0.2)
    for v in victims:
        storm.signal(v, signal.SIGKILL)
    since = time.monotonic()
    for v in victims:
        storm.named[v].wait(10)
    if restart_after is not None:
        time.sleep(restart_after)
        restarted = time.monotonic()
        for v in victims:
            storm.spawn(v)
        storm.wait_workers()
        since = time.monotonic()
        print(f"{'+'.join(victims)} restarted: up after {since - restarted:.1f} s")
    resumed = _resumed(storm, stack_id, held, since, before=before)
    print(f"{'+'.join(victims)} killed holding {sorted(held)}: resumed "
          f"{ {n: round(t, 1) for n, t in sorted(resumed.items())} } s after the "
          f"{'restart' if restart_after is not None else 'kill'}")
    assert set(resumed) == held, f"never resumed: {held - set(resumed)}\n{storm.logs()}"
    return resumed


def test_killed_workers_are_taken_over_mid_create_and_mid_delete(storm: Storm):
    template = chains(width=4, depth=3, wait=1.0)
    sid = storm.create("killed", template).json()["stack"]["id"]
    assert max(_kill_and_measure(storm, sid, ["worker1"]).values()) <= RESUME
    storm.settled(sid, timeout=30)
    assert_created_once(storm, sid, template)
    storm.spawn("worker1")
    storm.wait_workers()
    requests.delete(storm.api(storm.path(sid)), headers={"X-Auth-Token": "x"}, timeout=30)
    assert max(_kill_and_measure(storm, sid, ["worker2"]).values()) <= RESUME
    st, _ = storm.settled(sid, timeout=30)
    assert st["stack_status"] == "DELETE_COMPLETE", st["stack_status_reason"]
    storm.spawn("worker2")  # both killed at once, then started again
    storm.wait_workers()
    sid = storm.create("both", template).json()["stack"]["id"]
    resumed = _kill_and_measure(storm, sid, ["worker1", "worker2"], restart_after=2.0)
    assert max(resumed.values()) <= RESUME
    storm.settled(sid, timeout=30)
    assert_created_once(storm, sid, template)


def _longer(template: dict[str, Any], wait: float) -> dict[str, Any]:
    """``template`` with every link's value suffixed ``-v2`` and ``wait`` s each action: an
    update in place of every TestResource, one chain link after the other (long enough to
    span a rolling restart: a worker takes up to 10 s to stop and start on a loaded CI)."""
    res = {}
    for name, r in template["resources"].items():
        if r["type"] == "OS::Heat::TestResource":
            props = r["properties"]
            r = {**r, "properties": {"value": {"list_join": ["-", [props["value"], "v2"]]},
                                     "wait_secs": wait}}
        res[name] = r
    return {**template, "resources": res}


def test_a_rolling_restart_under_an_update_loses_and_repeats_nothing(storm: Storm):
    template = chains(width=2, depth=6, wait=0.0)
    sid = storm.create("rolling", template).json()["stack"]["id"]
    storm.settled(sid, timeout=30)
    resp = requests.put(storm.api(storm.path(sid)), json={"template": _longer(template, 4.0)},
                        headers={"X-Auth-Token": "x"}, timeout=30)
    assert resp.status_code == 202, resp.text
    start = time.monotonic()
    for name in ("worker1", "worker2"):  # one after the other, as an operator rolls them
        time.sleep(1.0)
        assert storm.stack(sid)["stack_status"] == "UPDATE_IN_PROGRESS"  # under the update
        storm.signal(name, signal.SIGTERM)
        storm.named[name].wait(30)
        storm.spawn(name)
        storm.wait_workers()
    rolled = time.monotonic()
    st, ended = storm.settled(sid, timeout=40)
    print(f"rolling restart took {rolled - start:.1f} s; the update ended "
          f"{ended - rolled:.1f} s after it")
    assert st["stack_status"] == "UPDATE_COMPLETE", st["stack_status_reason"]
    events = storm.get(storm.path(sid) + "/events?limit=1000").json()["events"]
    updated = Counter(e["resource_name"] for e in events
                      if e["resource_status"] == "UPDATE_COMPLETE"
                      and e["resource_name"] in template["resources"])
    links = [n for n, r in template["resources"].items() if r["type"] == "OS::Heat::TestResource"]
    assert dict(updated) == {n: 1 for n in links}
    resources = storm.get(storm.path(sid) + "/resources").json()["resources"]
    assert [r["resource_name"] for r in resources if r["resource_status"] != "UPDATE_COMPLETE"
            and r["resource_name"] in links] == []
    outputs = {o["output_key"]: o["output_value"] for o in st["outputs"]}
    for i in range(2):
        assert outputs[f"end{i}"] == "-".join([outputs[f"rs{i}"]] + ["v2"] * 6)


@pytest.mark.parametrize("storm", [{"sandbox_latency": "0.5"}], indirect=True)
def test_a_stopped_worker_is_taken_over_and_its_late_writes_are_fenced(storm: Storm):
    template = nets(width=4, depth=3)
    sid = storm.create("stopped", template).json()["stack"]["id"]
    engine = f"{socket.gethostname()}:{storm.named['worker1'].pid}"
    deadline = time.monotonic() + 20
    while not _sql(storm, "SELECT name FROM resource WHERE stack_id = %s AND engine_id = %s",
                   sid, engine):
        assert time.monotonic() < deadline, "worker1 never held a lock"
        time.sleep(0.02)
    storm.signal("worker1", signal.SIGSTOP)  # mid-step: a cloud call under its lock
    stopped = time.monotonic()
    try:
        stolen = {r[0] for r in _sql(storm, "SELECT name FROM resource WHERE stack_id = %s "
                                            "AND engine_id = %s", sid, engine)}
        assert stolen, "worker1 released its locks before it stopped: nothing was tested"
        resumed = _resumed(storm, sid, stolen, stopped)
        st, ended = storm.settled(sid, timeout=40)  # completed while worker1 is stopped
        print(f"worker1 stopped holding {sorted(stolen)}: taken over after "
              f"{ {n: round(t, 1) for n, t in sorted(resumed.items())} } s; stack ended "
              f"{ended - stopped:.1f} s after the stop")
        assert set(resumed) == stolen and max(resumed.values()) <= RESUME
        assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    finally:
        storm.signal("worker1", signal.SIGCONT)
    deadline = time.monotonic() + 15  # it wakes up: beats again, its calls return, it writes
    while not _sql(storm, "SELECT 1 FROM worker_heartbeat WHERE engine_id = %s", engine):
        assert time.monotonic() < deadline, storm.logs()
        time.sleep(0.2)
    time.sleep(3.0)  # its step's cloud call (0.5 s) returned; what it wrote then is fenced
    events = storm.get(storm.path(sid) + "/events?limit=1000").json()["events"]
    created = Counter(e["resource_name"] for e in events
                      if e["resource_status"] == "CREATE_COMPLETE"
                      and e["resource_name"] in template["resources"])
    assert dict(created) == {n: 1 for n in template["resources"]}
    assert storm.stack(sid)["stack_status"] == "CREATE_COMPLETE"
