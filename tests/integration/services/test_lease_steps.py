"""Engine leases, stepped by hand on SQLite (a recording dispatcher): the sweep takes a dead
engine's locks back and re-enqueues its nodes, and a step whose lock was taken over while it
worked (its fencing token moved on) writes nothing — no row, event, sync point or successor."""
from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import select, update

from app import config, convergence
from app.context import RequestContext
from app.convergence import check
from app.convergence.steps import run as step_run
from app.convergence.store import lease, locks, nodes
from app.models import Event, Resource, Stack, SyncPoint, WorkerHeartbeat, read_session, session, utcnow
from app.services import stacks

CTX = RequestContext(tenant_id="lease")


def _chain(n: int, **props: Any) -> dict[str, Any]:
    res = {f"r{i}": {"type": "OS::Heat::TestResource",
                     "properties": {"value": f"v{i}", **props},
                     **({"depends_on": [f"r{i - 1}"]} if i else {})} for i in range(n)}
    return {"heat_template_version": "2018-08-31", "resources": res}


def _wide(n: int) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {
        f"w{i}": {"type": "OS::Heat::TestResource", "properties": {"value": f"v{i}"}}
        for i in range(n)}}


def _row(stack_id: str, name: str) -> Any:
    with read_session() as s:
        return s.execute(select(Resource).where(Resource.stack_id == stack_id,
                                                Resource.name == name)).scalar_one()


def _events(stack_id: str) -> Counter[tuple[str, str, str]]:
    with read_session() as s:
        return Counter((e.resource_name, e.action, e.status) for e in s.execute(
            select(Event).where(Event.stack_id == stack_id)).scalars())


def _node_state(stack_id: str, rid: int) -> str:
    with read_session() as s:
        return str(s.execute(select(SyncPoint.state).join(
            Stack, (Stack.id == SyncPoint.stack_id)
            & (Stack.current_traversal == SyncPoint.traversal_id))
            .where(SyncPoint.entity_id == rid, SyncPoint.is_update.is_(True))).scalar())


def _hold(rid: int, engine: str, seen_ago: float) -> None:
    """Lock ``rid`` for ``engine`` (its key moved on, as a lock taken does), whose last
    heartbeat was ``seen_ago`` seconds ago."""
    with session() as s:
        s.execute(update(Resource).where(Resource.id == rid).values(
            engine_id=engine, atomic_key=Resource.atomic_key + 1))
        s.merge(WorkerHeartbeat(engine_id=engine,
                                last_seen=utcnow() - dt.timedelta(seconds=seen_ago)))


def test_the_sweep_takes_a_dead_engines_locks_back_and_enqueues_its_nodes(rec, monkeypatch):
    sweep = lease.sweep
    monkeypatch.setattr(lease, "sweep", lambda: 0)  # this process's own sweeps stand aside
    lease_s = config.get().engine_lease_seconds
    dead = stacks.create_stack(CTX, stack_name="dead", template=_chain(2))
    live = stacks.create_stack(CTX, stack_name="live", template=_chain(1))
    rec.queue.clear()  # both first nodes' messages were lost with the engines holding them
    d0, l0 = _row(dead.id, "r0"), _row(live.id, "r0")
    _hold(d0.id, "gone:1", seen_ago=lease_s + 1)
    _hold(l0.id, "busy:2", seen_ago=lease_s - 2)  # slow to beat, within its lease
    assert sweep() == 1
    after = _row(dead.id, "r0")
    assert after.engine_id is None and after.atomic_key == d0.atomic_key + 2  # key moved on
    assert _row(live.id, "r0").engine_id == "busy:2"
    with read_session() as s:
        assert set(s.execute(select(WorkerHeartbeat.engine_id)).scalars()) >= {"busy:2"}
        assert s.get(WorkerHeartbeat, "gone:1") is None  # handled: its row is removed
    assert [(q[0], q[2]) for q in rec.queue] == [(dead.id, d0.id)]  # not the live one's
    assert sweep() == 0  # handled once
    rec.run_all()
    assert stacks.get_by_id(CTX, dead.id).stack_status == "CREATE_COMPLETE"
    assert _events(dead.id)[("r0", "CREATE", "COMPLETE")] == 1


def _taken_over_during(monkeypatch: pytest.MonkeyPatch, name_of: set[int]) -> list[int]:
    """Make the step of each resource in ``name_of`` lose its lock while it works: another
    engine's sweep clears it with its key moved on (:func:`lease.sweep`), then that engine
    takes it. :returns: the resources whose steps ran (and lost their locks)."""
    real = step_run.run
    lost: list[int] = []

    def step(node: Any) -> Any:
        out = real(node)
        if node.resource.id in name_of:
            with session() as s:
                s.execute(update(Resource).where(Resource.id == node.resource.id).values(
                    engine_id="taker:7", atomic_key=Resource.atomic_key + 1))
            lost.append(node.resource.id)
        return out

    monkeypatch.setattr(step_run, "run", step)
    return lost


@pytest.mark.parametrize("props,ended", [({}, "COMPLETE"), ({"fail": True}, "FAILED"),
                                         ({"wait_secs": 30}, "IN_PROGRESS")])
def test_a_step_whose_lock_was_taken_over_writes_nothing(rec, monkeypatch, props, ended):
    st = stacks.create_stack(CTX, stack_name="fenced", template=_chain(2, **props))
    r0 = _row(st.id, "r0")
    monkeypatch.setattr(lease, "sweep", lambda: 0)  # "taker:7" has no heartbeat
    lost = _taken_over_during(monkeypatch, {r0.id})
    first = rec.queue.pop(0)
    convergence.check_resource(*first)  # its outcome (done, failed or a poll) is fenced
    assert lost == [r0.id]
    after = _row(st.id, "r0")
    assert (after.action, after.status, after.engine_id) == ("INIT", "COMPLETE", "taker:7")
    assert after.physical_resource_id is None and after.handle is None
    assert [k for k in _events(st.id) if k[0] == "r0"] == []
    assert _node_state(st.id, r0.id) == "FIRED"
    assert rec.queue == []  # no successor, no poll
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_IN_PROGRESS"  # not failed
    monkeypatch.undo()
    with session() as s:  # the engine that took it over finishes (its lease ran out too)
        s.execute(update(Resource).where(Resource.id == r0.id).values(engine_id=None))
    convergence.check_resource(*first)
    assert _events(st.id)[("r0", "CREATE", ended)] == 1


def test_a_batch_writes_only_the_steps_that_kept_their_locks(rec, monkeypatch):
    st = stacks.create_stack(CTX, stack_name="batch", template=_wide(4))
    (sid, tid), nodes = rec.queue[0][:2], [(q[2], q[3]) for q in rec.queue]
    rec.queue.clear()
    w1 = _row(st.id, "w1")
    monkeypatch.setattr(lease, "sweep", lambda: 0)  # "taker:7" has no heartbeat
    _taken_over_during(monkeypatch, {w1.id})
    check.check_resources(sid, tid, nodes)  # locked together, written together
    ev = _events(st.id)
    assert {n for n, a, s in ev if (a, s) == ("CREATE", "COMPLETE")} == {"w0", "w2", "w3"}
    assert _row(st.id, "w1").engine_id == "taker:7"
    assert _node_state(st.id, w1.id) == "FIRED"
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_IN_PROGRESS"


def test_a_release_at_an_old_token_leaves_the_new_holders_lock(db):
    st = stacks.create_stack(CTX, stack_name="release", template=_chain(1))
    rid = _row(st.id, "r0").id
    with locks.working([rid]):
        assert nodes.current().acquire(rid) is True
    token = _row(st.id, "r0").atomic_key
    with session() as s:  # swept (key moved on), then locked again by this engine's next step
        s.execute(update(Resource).where(Resource.id == rid).values(
            atomic_key=Resource.atomic_key + 2))
    locks.release(rid, token)
    assert _row(st.id, "r0").engine_id == locks.engine_id()
    locks.release(rid, token + 2)
    assert _row(st.id, "r0").engine_id is None



def test_a_clean_stop_ends_the_lease_only_when_no_lock_is_held(db):
    st = stacks.create_stack(CTX, stack_name="stop", template=_chain(1))
    rid = _row(st.id, "r0").id
    me = locks.engine_id()
    _hold(rid, me, seen_ago=0)  # a step of this engine still holds r0
    assert lease.release() is False
    with read_session() as s:
        assert s.get(WorkerHeartbeat, me) is not None  # left for the sweep to take over
    locks.release(rid, _row(st.id, "r0").atomic_key)
    assert lease.release() is True
    with read_session() as s:
        assert s.get(WorkerHeartbeat, me) is None

def test_the_sweep_stands_aside_until_its_own_beats_ran_a_lease_unbroken(rec, monkeypatch):
    # after an outage of the database every heartbeat is stale, live engines' included
    sweep = lease.sweep
    monkeypatch.setattr(lease, "sweep", lambda: 0)  # this process's own sweeps stand aside
    lease_s = config.get().engine_lease_seconds
    st = stacks.create_stack(CTX, stack_name="outage", template=_chain(1))
    r0 = _row(st.id, "r0")
    _hold(r0.id, "quiet:3", seen_ago=lease_s + 1)
    monkeypatch.setattr(lease, "_ok_since", 0.0)
    lease._beaten(False)             # this engine's own beat failed
    assert not lease.trusted() and sweep() == 0
    lease._beaten(True, 0.01)        # it beats again: not yet a lease without a break
    assert not lease.trusted() and sweep() == 0
    assert _row(st.id, "r0").engine_id == "quiet:3"
    lease._beaten(True, lease_s)     # a beat that landed a lease late is a break too
    assert lease._ok_since is None
    lease._beaten(True, 0.01)
    monkeypatch.setattr(lease, "_ok_since", lease._ok_since - lease_s)   # a lease later
    assert lease.trusted() and sweep() == 1
    assert _row(st.id, "r0").engine_id is None
