"""On PostgreSQL, the steps of one process that start or finish together share their
statements (:mod:`app.convergence.store.group_commit`): a burst of steps is read and locked in one
group (:meth:`app.convergence.store.nodes.Grouped.start`) and written in few transactions
(:meth:`app.convergence.store.nodes.Grouped.finish`), with every outcome as if each had run alone:
one CREATE IN_PROGRESS and one CREATE COMPLETE event per resource, each node counted once,
every successor enqueued once, by the step whose report completed it."""
from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from app import convergence
from app.context import RequestContext
from app.convergence.store import lease, locks, nodes
from app.services import stacks
from tests.fixtures.stacks import events, hot, knob, rows
from tests.fixtures.wiring import use_dispatcher
from tests.integration.services.conftest import Recorder

CTX = RequestContext(tenant_id="group")
WIDE = 24


def _grouped() -> nodes.Grouped:
    """The process's node store, the group-commit one on PostgreSQL."""
    store = nodes.current()
    assert isinstance(store, nodes.Grouped)
    return store


def _wide_then_one() -> dict:
    """``WIDE`` independent knobs, and ``last`` that reads every one of them."""
    res = {f"k{i}": knob(f"v{i}") for i in range(WIDE)}
    res["last"] = knob({"list_join": [",", [{"get_attr": [f"k{i}", "output"]}
                                            for i in range(WIDE)]]})
    return hot(res)


def _run_together(steps: list[tuple]) -> list[BaseException]:
    """Every step on a thread of its own, all at once; :returns: what they raised."""
    errors: list[BaseException] = []

    def run(step: tuple) -> None:
        try:
            convergence.check_resource(*step)
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=run, args=(s,)) for s in steps]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return errors


def _until_queued(group: Any, n: int) -> None:
    """Wait (at most 5 s) until ``n`` items queue in ``group`` behind the batch in flight."""
    for _ in range(500):
        if group.waiting >= n:
            return
        time.sleep(0.01)


def test_a_burst_of_steps_starts_in_one_group_and_ends_as_if_each_ran_alone(pg_db, monkeypatch):
    rec = Recorder()
    use_dispatcher(rec)
    st = stacks.create_stack(CTX, stack_name="burst", template=_wide_then_one())
    steps = list(rec.queue)
    rec.queue.clear()
    assert len(steps) == WIDE
    lease.ensure_heartbeat()
    real_engine_id = locks.engine_id
    held = threading.Event()

    def engine_id() -> str:  # the first group holds until every other step has queued
        if not held.is_set():
            held.set()
            _until_queued(_grouped().starts, WIDE - 1)
        return real_engine_id()
    monkeypatch.setattr(locks, "engine_id", engine_id)
    starts0, start_items0 = _grouped().starts.batches, _grouped().starts.items
    ends0, end_items0 = _grouped().finishes.batches, _grouped().finishes.items
    errors = _run_together(steps)
    assert errors == []
    assert _grouped().starts.items - start_items0 == WIDE
    assert _grouped().starts.batches - starts0 == 2  # the first alone, the other 23 together
    assert _grouped().finishes.items - end_items0 == WIDE
    assert _grouped().finishes.batches - ends0 < WIDE
    # the one successor fired once, enqueued once, by the step that completed its fan-in
    assert len(rec.queue) == 1 and rec.queue[0][2] == rows(st.id)["last"].id
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert rows(st.id)["last"].properties_data["value"] == ",".join(
        f"v{i}" for i in range(WIDE))
    seen = Counter((e.resource_name, e.action, e.status) for e in events(st.id)
                   if e.resource_name != "burst")
    assert set(seen.values()) == {1}
    assert len(seen) == 2 * (WIDE + 1)
    assert all(r.engine_id is None for r in rows(st.id).values())


def test_a_step_whose_node_already_ended_leaves_the_group_and_counts_nothing(pg_db):
    """A redelivered step (its node DONE) arriving with fresh ones: the group starts the
    fresh ones; the ended one takes the one-by-one path, which only re-enqueues what fired
    after it and had not finished."""
    rec = Recorder()
    use_dispatcher(rec)
    st = stacks.create_stack(CTX, stack_name="again", template=_wide_then_one())
    steps = list(rec.queue)
    rec.queue.clear()
    convergence.check_resource(*steps[0])  # k0 ends
    assert rec.queue == []
    errors = _run_together(steps)  # k0 delivered again
    assert errors == []
    assert len(rec.queue) == 1  # "last", once
    rec.run_all()
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    k0 = [e for e in events(st.id) if e.resource_name == "k0"]
    assert [(e.action, e.status) for e in k0] == [("CREATE", "IN_PROGRESS"),
                                                  ("CREATE", "COMPLETE")]


def test_a_burst_of_steps_that_start_cloud_actions_parks_together(pg_db, monkeypatch):
    """Steps that started an action still in progress (:class:`Poll`) park in a shared
    transaction (:meth:`app.convergence.store.nodes.Grouped.park`): each row IN_PROGRESS with its
    handle and lock released, one IN_PROGRESS event each, and a poll enqueued by each step;
    the polls then finish them with one COMPLETE event each."""
    rec = Recorder()
    use_dispatcher(rec)
    slow = {f"k{i}": knob(f"v{i}", action_wait_secs={"create": 0.5}) for i in range(WIDE)}
    st = stacks.create_stack(CTX, stack_name="parks", template=hot(slow))
    steps = list(rec.queue)
    rec.queue.clear()
    lease.ensure_heartbeat()
    real_park_group = _grouped().parks._write
    held = threading.Event()

    def park_group(items):  # the first park holds until the other steps have queued theirs
        if not held.is_set():
            held.set()
            _until_queued(_grouped().parks, WIDE - 1)
        return real_park_group(items)
    monkeypatch.setattr(_grouped().parks, "_write", park_group)
    parks0, park_items0 = _grouped().parks.batches, _grouped().parks.items
    errors = _run_together(steps)
    assert errors == []
    assert _grouped().parks.items - park_items0 == WIDE
    assert _grouped().parks.batches - parks0 == 2
    parked = rows(st.id)
    assert {(r.action, r.status) for r in parked.values()} == {("CREATE", "IN_PROGRESS")}
    assert all(r.engine_id is None and r.handle for r in parked.values())
    assert sorted(q[2] for q in rec.queue) == sorted(r.id for r in parked.values())
    for _ in range(100):  # each poll re-enqueues itself until the knob's wait is over
        if not rec.queue:
            break
        time.sleep(0.1)
        rec.run_all(limit=len(rec.queue))
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    seen = Counter((e.resource_name, e.action, e.status) for e in events(st.id)
                   if e.resource_name != "parks")
    assert set(seen.values()) == {1} and len(seen) == 2 * WIDE
