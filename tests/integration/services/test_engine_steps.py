"""The engine's invariants, stepped by hand (a dispatcher that only records what is enqueued),
on SQLite: newest traversal wins, redelivery is harmless, locks are compare-and-swap with stale
takeover, rollback after a failed create, every state change has an event."""
from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from sqlalchemy import select, update

from app import convergence
from app.context import RequestContext
from app.convergence.store import locks, nodes
from app.models import Event, Resource, WorkerHeartbeat, read_session, session, utcnow
from app.services import stacks

CTX = RequestContext(tenant_id="steps")


def chain(n: int) -> dict:
    res = {f"r{i}": {"type": "OS::Heat::RandomString", "properties": {"length": 8},
                     **({"depends_on": [f"r{i - 1}"]} if i else {})} for i in range(n)}
    return {"heat_template_version": "2018-08-31", "resources": res}


def _rows(stack_id):
    with read_session() as s:
        return {r.name: r for r in s.execute(select(Resource).where(
            Resource.stack_id == stack_id)).scalars()}


def _events(stack_id):
    with read_session() as s:
        return Counter((e.resource_name, e.action, e.status) for e in s.execute(
            select(Event).where(Event.stack_id == stack_id)).scalars())


def test_redelivered_tasks_change_nothing(rec):
    st = stacks.create_stack(CTX, stack_name="redeliver", template=chain(3))
    first = rec.queue[0]
    convergence.check_resource(*first)
    value = _rows(st.id)["r0"].attr_data["attrs"].get("value") or _rows(st.id)["r0"].physical_resource_id
    convergence.check_resource(*first)  # redelivered after it finished
    convergence.check_resource(*first)
    assert (_rows(st.id)["r0"].attr_data["attrs"].get("value")
            or _rows(st.id)["r0"].physical_resource_id) == value
    rec.run_all()
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    ev = _events(st.id)
    assert all(ev[(f"r{i}", "CREATE", "COMPLETE")] == 1 for i in range(3))


def test_newest_traversal_wins(rec):
    st = stacks.create_stack(CTX, stack_name="superseded", template=chain(4))
    convergence.check_resource(*rec.queue.pop(0))  # r0 created; r1 is enqueued
    stale = list(rec.queue)
    rec.queue.clear()
    stacks.delete_stack(CTX, st.name, st.id)  # a new traversal supersedes the create
    for args in stale:  # the old traversal's tasks stop at their first step
        convergence.check_resource(*args)
    assert _rows(st.id)["r1"].action == "INIT"
    rec.run_all()
    final = stacks.get_by_id(CTX, st.id)
    assert final.stack_status == "DELETE_COMPLETE"
    ev = _events(st.id)
    assert ev[("r0", "DELETE", "COMPLETE")] == 1
    assert not any(k[0] == "r1" for k in ev)  # never created, so nothing to delete


def test_lock_is_compare_and_swap_with_stale_takeover(db):
    st = stacks.create_stack(CTX, stack_name="locks", template=chain(1))
    rid = _rows(st.id)["r0"].id
    with locks.working([rid]):  # a step of this engine
        assert nodes.current().acquire(rid) is True
        with locks.working([rid]):  # another step of this engine: not re-entrant
            assert nodes.current().acquire(rid) is False
        locks.release(rid)
    with session() as s:  # a dead engine holds it and stopped beating long ago
        s.execute(update(Resource).where(Resource.id == rid).values(engine_id="dead:1"))
        s.add(WorkerHeartbeat(engine_id="dead:1", last_seen=utcnow() - dt.timedelta(hours=1)))
    assert nodes.current().acquire(rid) is None  # taken over; the caller re-reads the row
    with read_session() as s:
        assert s.get(Resource, rid).engine_id == locks.engine_id()
    locks.release(rid)
    with session() as s:  # a live engine holds it: wait
        s.execute(update(Resource).where(Resource.id == rid).values(engine_id="live:2"))
        s.add(WorkerHeartbeat(engine_id="live:2", last_seen=utcnow()))
    assert nodes.current().acquire(rid) is False


def test_a_lock_a_failed_step_left_behind_is_taken_over_or_released(db):
    st = stacks.create_stack(CTX, stack_name="orphans", template=chain(1))
    rid = _rows(st.id)["r0"].id

    def failed_step() -> None:  # took the lock; its release never reached the database
        with pytest.raises(ConnectionError), locks.working([rid]):
            assert nodes.current().acquire(rid) is True
            raise ConnectionError("the database went away")

    failed_step()
    with read_session() as s:
        assert s.get(Resource, rid).engine_id == locks.engine_id()
    with locks.working([rid]):  # the next step of this engine takes it over at once
        assert nodes.current().acquire(rid) is None
        assert locks.release_orphans() == 0  # worked on: not an orphan
        locks.release(rid)
    failed_step()
    locks.release_orphans()  # what the heartbeat thread does (it may have come first)
    with read_session() as s:
        assert s.get(Resource, rid).engine_id is None
    assert locks.release_orphans() == 0


def test_failed_create_rolls_back_when_asked(db):
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "ok": {"type": "OS::Heat::RandomString"},
        "boom": {"type": "OS::Heat::TestResource", "properties": {"fail": True},
                 "depends_on": ["ok"]}}}
    st = stacks.create_stack(CTX, stack_name="rollback", template=tmpl, disable_rollback=False)
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "ROLLBACK_COMPLETE"
    ev = _events(st.id)
    assert ev[("rollback", "CREATE", "FAILED")] == 1
    assert ev[("rollback", "ROLLBACK", "COMPLETE")] == 1
    assert ev[("ok", "DELETE", "COMPLETE")] == 1
    assert _rows(st.id)["ok"].action == "DELETE"


def test_every_state_change_has_an_event(db):
    st = stacks.create_stack(CTX, stack_name="events", template=chain(2))
    stacks.delete_stack(CTX, st.name, st.id)
    ev = _events(st.id)
    for name in ("r0", "r1"):
        for action in ("CREATE", "DELETE"):
            assert ev[(name, action, "IN_PROGRESS")] == 1
            assert ev[(name, action, "COMPLETE")] == 1
    for action in ("CREATE", "DELETE"):
        assert ev[("events", action, "IN_PROGRESS")] == 1
        assert ev[("events", action, "COMPLETE")] == 1
