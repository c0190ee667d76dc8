"""How a wide fan-out's ready nodes are split into messages (:func:`dispatch.batches`): one node
a message while the fleet could run them all at once twice over, else even batches of at most
``largest``, every node exactly once and in order."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.convergence.dispatch import batches


def _nodes(n: int) -> list[tuple[int, bool]]:
    return [(i, i % 2 == 0) for i in range(n)]


def test_no_wider_than_twice_the_fleet_is_one_node_a_message():
    assert batches(_nodes(16), parallelism=8, largest=50) == [[n] for n in _nodes(16)]


def test_ten_thousand_leaves_on_eight_threads_are_two_hundred_batches_of_fifty():
    out = batches(_nodes(10_000), parallelism=8, largest=50)
    assert len(out) == 200 and {len(b) for b in out} == {50}


def test_two_hundred_leaves_on_eight_threads_keep_every_thread_busy():
    out = batches(_nodes(200), parallelism=8, largest=50)
    assert len(out) >= 16 and max(map(len, out)) - min(map(len, out)) <= 1


def test_largest_one_never_batches():
    assert batches(_nodes(100), parallelism=1, largest=1) == [[n] for n in _nodes(100)]


@given(st.integers(0, 3000), st.integers(1, 200), st.integers(1, 100))
def test_every_node_once_in_order_and_sizes_bounded(n, parallelism, largest):
    out = batches(_nodes(n), parallelism, largest)
    assert [x for b in out for x in b] == _nodes(n)
    assert all(1 <= len(b) <= max(1, largest) for b in out)
    if n > 2 * parallelism and largest > 1:
        assert len(out) >= min(n, 2 * parallelism)


def test_a_step_that_raises_is_enqueued_alone_and_the_others_still_run(monkeypatch):
    from app.convergence import check, dispatch

    ran: list[int] = []
    requeued: list[tuple] = []

    def step(stack_id, traversal_id, resource_id, is_update):  # type: ignore[no-untyped-def]
        ran.append(resource_id)
        if resource_id == 2:
            raise ConnectionError("database went away")

    class Recorder:
        def check_resource(self, *args, countdown=0.0):  # type: ignore[no-untyped-def]
            requeued.append((*args, countdown))

    monkeypatch.setattr(check, "check_resource", step)
    monkeypatch.setattr(check, "_run_locked", lambda stack_id, traversal_id, nodes: nodes)
    monkeypatch.setattr(dispatch, "_dispatcher", Recorder())
    check.check_resources("s", "t", [(1, True), (2, True), (3, True)])
    assert ran == [1, 2, 3]
    assert requeued == [("s", "t", 2, True, check.LOCK_RETRY_SECONDS)]


def test_a_saturated_fleet_takes_a_small_fan_out_in_one_message():
    # a group's member stack fires its 22 leaves while the queue already holds work for
    # every thread: one message of 22, not 22 messages
    assert batches(_nodes(22), parallelism=8, largest=50, backlog=8) == [_nodes(22)]
    assert len(batches(_nodes(120), parallelism=8, largest=50, backlog=100)) == 3
    assert batches(_nodes(16), parallelism=8, largest=50, backlog=7) == [[n] for n in _nodes(16)]


@given(st.integers(0, 3000), st.integers(1, 200), st.integers(1, 100), st.integers(0, 500))
def test_with_a_backlog_every_node_once_in_order(n, parallelism, largest, backlog):
    out = batches(_nodes(n), parallelism, largest, backlog)
    assert [x for b in out for x in b] == _nodes(n)
    assert all(1 <= len(b) <= max(1, largest) for b in out)


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

    def stack_timeout(self, *args, **kw):  # type: ignore[no-untyped-def]
        pass


def test_a_batch_locks_its_nodes_in_one_transaction_and_completes_them(db, monkeypatch):
    """The batch path: the leaves of a traversal run from one batch, each created once, and
    a leaf already locked by another engine is left to the one-by-one path (which retries)."""
    from sqlalchemy import update

    from app.context import RequestContext
    from app.convergence import check, dispatch
    from app.models import Resource, WorkerHeartbeat, session
    from app.models.base import utcnow
    from app.services import stacks
    from tests.fixtures.stacks import events, hot, rows

    held = _Held()
    monkeypatch.setattr(dispatch, "_dispatcher", held)
    ctx = RequestContext(tenant_id="batch")
    st = stacks.create_stack(ctx, stack_name="b", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(6)}))
    (sid, tid, nodes), = held.batches
    busy = rows(sid)["r5"].id
    with session() as s:  # another live engine (a fresh heartbeat) holds r5's lock
        s.execute(update(Resource).where(Resource.id == busy).values(engine_id="other"))
        s.add(WorkerHeartbeat(engine_id="other", last_seen=utcnow()))
    statements: list[str] = []
    from sqlalchemy import event

    from app.models import base
    def listen(*a):  # type: ignore[no-untyped-def]
        statements.append(a[2])
    commits: list[object] = []

    def committed(conn):  # type: ignore[no-untyped-def]
        commits.append(conn)

    from app.convergence import locks
    locks.ensure_heartbeat()  # this process's first heartbeat is a transaction of its own
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
