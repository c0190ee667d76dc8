"""A wide fan-out's batch (:func:`dispatch.batches`) through the real store: its nodes are
locked in one transaction and completed."""
from __future__ import annotations


class _Held:
    """A dispatcher that keeps what it is given (nothing runs until the test runs it)."""

    def __init__(self) -> None:
        self.batches: list[tuple[str, str, list[tuple[int, bool]]]] = []
        self.single: list[tuple] = []

    def check_resources(self, stack_id, traversal_id, nodes):  # type: ignore[no-untyped-def]
        self.batches.append((stack_id, traversal_id, list(nodes)))

    def check_resource(self, *args, countdown=0.0):  # type: ignore[no-untyped-def]
        self.single.append(args)

    def safety_poll(self, *args, **kw):  # type: ignore[no-untyped-def]
        pass


def test_a_batch_locks_its_nodes_in_one_transaction_and_completes_them(db, monkeypatch):
    """The batch path: the leaves of a traversal run from one batch, each created once, and
    a leaf already locked by another engine is left to the one-by-one path (which retries)."""
    from sqlalchemy import update

    from app.context import RequestContext
    from app.convergence import check
    from app.models import Resource, WorkerHeartbeat, session
    from app.models.base import utcnow
    from app.services import stacks
    from tests.fixtures.stacks import events, hot, rows
    from tests.fixtures.wiring import use_dispatcher

    held = use_dispatcher(_Held())
    ctx = RequestContext(tenant_id="batch")
    st = stacks.create_stack(ctx, stack_name="b", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(6)}))
    (sid, tid, nodes), = held.batches
    busy = rows(sid)["r5"].id
    with session() as s:  # another live engine (a fresh heartbeat) holds r5's lock
        s.execute(update(Resource).where(Resource.id == busy).values(engine_id="other"))
        s.add(WorkerHeartbeat(engine_id="other", last_seen=utcnow()))
    statements: list[str] = []
    import threading

    from sqlalchemy import event

    from app.models import base
    mine = threading.get_ident()  # the lease's heartbeat and sweep run beside, on their own

    def listen(*a):  # type: ignore[no-untyped-def]
        if threading.get_ident() == mine:
            statements.append(a[2])
    commits: list[object] = []

    def committed(conn):  # type: ignore[no-untyped-def]
        if threading.get_ident() == mine:
            commits.append(conn)

    from app.convergence.store import lease
    lease.ensure_heartbeat()  # this process's first heartbeat is a transaction of its own
    event.listen(base.get_engine(), "before_cursor_execute", listen)
    event.listen(base.get_engine(), "commit", committed)
    try:
        check.check_resources(sid, tid, nodes)
    finally:
        event.remove(base.get_engine(), "before_cursor_execute", listen)
        event.remove(base.get_engine(), "commit", committed)
    # the five: one transaction to lock, one to write them all; r5: its read, its lock attempt
    assert len(commits) == 4
    # one lock statement for the five free leaves, one for r5's own attempt (one by one)
    assert sum("RETURNING" in q and q.startswith("UPDATE resource") for q in statements) == 2
    res = rows(sid)
    assert {n: (r.action, r.status) for n, r in res.items() if n != "r5"} == {
        f"r{i}": ("CREATE", "COMPLETE") for i in range(5)}
    assert (res["r5"].action, res["r5"].status) == ("INIT", "COMPLETE")  # not started
    assert [a[2] for a in held.single] == [busy]   # r5 retried on its own, shortly
    with session() as s:
        s.execute(update(Resource).where(Resource.id == busy).values(engine_id=None))
    check.check_resource(sid, tid, busy, True)
    assert stacks.get_by_id(ctx, st.id).stack_status == "CREATE_COMPLETE"
    done = [e.resource_name for e in events(sid) if e.status == "COMPLETE" and e.resource_name != "b"]
    assert sorted(done) == [f"r{i}" for i in range(6)]


def _batch(name: str, resources: dict):  # type: ignore[no-untyped-def]
    """A created stack whose leaves wait in one batch (nothing ran): ``(ctx, stack, batch)``."""
    from app.context import RequestContext
    from app.services import stacks
    from tests.fixtures.stacks import hot
    from tests.fixtures.wiring import use_dispatcher

    held = use_dispatcher(_Held())
    ctx = RequestContext(tenant_id="batch")
    st = stacks.create_stack(ctx, stack_name=name, template=hot(resources))
    (sid, tid, nodes), = held.batches
    return ctx, st, (sid, tid, nodes), held


def _completes(sid: str) -> list[str]:
    from tests.fixtures.stacks import events
    return sorted(e.resource_name for e in events(sid)
                  if e.status == "COMPLETE" and e.resource_name.startswith("r"))


def test_one_failing_step_of_a_batch_fails_alone_and_the_others_complete(db):
    from app.convergence import check
    from app.services import stacks
    from tests.fixtures.stacks import events, rows

    resources = {f"r{i}": {"type": "OS::Heat::None"} for i in range(5)}
    resources["bad"] = {"type": "OS::Heat::TestResource", "properties": {"fail": True}}
    ctx, st, (sid, tid, nodes), held = _batch("one-fails", resources)
    check.check_resources(sid, tid, nodes)
    res = rows(sid)
    assert {n: (r.action, r.status) for n, r in res.items()} == {
        **{f"r{i}": ("CREATE", "COMPLETE") for i in range(5)}, "bad": ("CREATE", "FAILED")}
    assert _completes(sid) == [f"r{i}" for i in range(5)]
    assert [(e.action, e.status) for e in events(sid) if e.resource_name == "bad"] == [
        ("CREATE", "IN_PROGRESS"), ("CREATE", "FAILED")]
    assert held.single == []  # nothing sent again: the failure is the node's outcome
    assert stacks.get_by_id(ctx, st.id).stack_status == "CREATE_FAILED"


def test_a_batch_delivered_again_writes_nothing_twice(db):
    from app.convergence import check
    from app.services import stacks

    ctx, st, (sid, tid, nodes), held = _batch(
        "again", {f"r{i}": {"type": "OS::Heat::None"} for i in range(6)})
    check.check_resource(sid, tid, *nodes[0])  # one step ran on its own before the batch
    check.check_resources(sid, tid, nodes)
    assert stacks.get_by_id(ctx, st.id).stack_status == "CREATE_COMPLETE"
    check.check_resources(sid, tid, nodes)  # the whole message again (its worker died)
    assert _completes(sid) == [f"r{i}" for i in range(6)]  # one COMPLETE each
    assert stacks.get_by_id(ctx, st.id).stack_status == "CREATE_COMPLETE"
    assert held.single == []


def test_a_node_another_engine_ended_meanwhile_only_has_its_lock_released(db, monkeypatch):
    """Between the batch's lock and its write another engine ended one of its nodes (its
    sync point is DONE): the batch writes the others, and of that one only lets its lock go."""
    from sqlalchemy import update

    from app.convergence import check
    from app.models import Resource, SyncPoint, session
    from app.services import stacks
    from tests.fixtures.stacks import rows

    ctx, st, (sid, tid, nodes), _ = _batch(
        "meanwhile", {f"r{i}": {"type": "OS::Heat::None"} for i in range(4)})
    gone = rows(sid)["r3"].id
    real = check.run.run

    def run(node):  # type: ignore[no-untyped-def]
        if node.resource.id == gone:
            with session() as s:
                s.execute(update(SyncPoint).where(
                    SyncPoint.entity_id == gone, SyncPoint.traversal_id == tid)
                    .values(state="DONE"))
        return real(node)
    monkeypatch.setattr(check.run, "run", run)
    check.check_resources(sid, tid, nodes)
    res = rows(sid)
    assert _completes(sid) == ["r0", "r1", "r2"]
    assert (res["r3"].action, res["r3"].status, res["r3"].engine_id) == ("INIT", "COMPLETE", None)
    with session() as s:
        assert s.get(Resource, gone).engine_id is None
    assert stacks.get_by_id(ctx, st.id).stack_status == "CREATE_IN_PROGRESS"  # r3 not counted
