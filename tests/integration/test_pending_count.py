"""The stack-level sync point on PostgreSQL: finished nodes are subtracted from the stack's
``pending_nodes`` after their own transaction, in one autocommit statement each
(:func:`app.convergence.store.syncpoints.count_finished`), each node once, and exactly one caller sees
the count reach zero; a crash between a node's commit and its count is repaired by the
redelivery of its step (``check_resource`` on a DONE node)."""
from __future__ import annotations

import datetime as dt
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.stacks import hot, rows


def _traversal(nodes: dict[int, str]) -> tuple[str, str]:
    """A stack row in progress with one sync point per ``{entity_id: state}``; its
    ``pending_nodes`` counts them all. :returns: (stack id, traversal id)."""
    from app.models import RawTemplate, Stack, SyncPoint, session
    sid, tid = str(uuid.uuid4()), str(uuid.uuid4())
    with session() as s:
        raw = RawTemplate(template={"heat_template_version": "2018-08-31"})
        s.add(raw)
        s.flush()
        s.add(Stack(id=sid, name=f"s{sid[:8]}", tenant="t", raw_template_id=raw.id,
                    current_traversal=tid, action="CREATE", status="IN_PROGRESS",
                    pending_nodes=len(nodes)))
        s.flush()
        s.add_all(SyncPoint(entity_id=rid, traversal_id=tid, is_update=True, stack_id=sid,
                            state=state) for rid, state in nodes.items())
    return sid, tid


def _pending(sid: str) -> int:
    from app.models import Stack, read_session
    with read_session() as s:
        st = s.get(Stack, sid)
        assert st is not None
        return st.pending_nodes


def _count(sid: str, tid: str, nodes: list[tuple[int, bool]]) -> bool:
    from app.convergence.store import syncpoints
    from app.models import autocommit
    with autocommit() as conn:
        return syncpoints.count_finished(conn, sid, tid, nodes)


def test_a_finished_node_is_counted_once_and_only_done_nodes_are(pg_db: Any) -> None:
    sid, tid = _traversal({1: "DONE", 2: "DONE", 3: "FIRED"})
    assert _count(sid, tid, [(1, True)]) is False
    assert _pending(sid) == 2
    assert _count(sid, tid, [(1, True)]) is False        # again (a redelivery): nothing
    assert _pending(sid) == 2
    assert _count(sid, tid, [(3, True)]) is False        # not finished: not counted
    assert _pending(sid) == 2
    assert _count(sid, tid, [(2, True), (1, True)]) is False
    assert _pending(sid) == 1


def test_exactly_one_of_many_concurrent_counts_sees_zero(pg_db: Any) -> None:
    n = 40
    sid, tid = _traversal({i: "DONE" for i in range(1, n + 1)})
    zeros: list[int] = []
    barrier = threading.Barrier(n)

    def one(i: int) -> None:
        barrier.wait()
        if _count(sid, tid, [(i, True)]):
            zeros.append(i)
    threads = [threading.Thread(target=one, args=(i,)) for i in range(1, n + 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(zeros) == 1
    assert _pending(sid) == 0


def test_a_superseded_traversal_leaves_the_stack_count_alone(pg_db: Any) -> None:
    from sqlalchemy import update

    from app.models import Stack, session
    sid, tid = _traversal({1: "DONE", 2: "DONE"})
    with session() as s:   # a newer traversal took the stack over
        s.execute(update(Stack).where(Stack.id == sid).values(current_traversal="newer"))
    assert _count(sid, tid, [(1, True), (2, True)]) is False
    assert _pending(sid) == 2


def _created_while_crashing(monkeypatch: Any, target: Any, name: str,
                            stacks_named: tuple[str, ...] = ("c",)) -> dict[str, str]:
    """Create one-resource stacks while ``target.name`` raises (the process died there), then
    put it back. :returns: their ids by name."""
    from app.context import RequestContext
    from app.services import stacks
    real = getattr(target, name)

    def crash(*args: Any) -> Any:
        raise RuntimeError("worker died")
    monkeypatch.setattr(target, name, crash)
    for stack_name in stacks_named:
        with pytest.raises(RuntimeError, match="worker died"):
            stacks.create_stack(RequestContext(tenant_id="count"), stack_name=stack_name,
                                template=hot({"r": {"type": "OS::Heat::None"}}))
    monkeypatch.setattr(target, name, real)
    ctx = RequestContext(tenant_id="count")
    return {stacks.get_by_id(ctx, i).name: i for i in _stack_ids()}


def test_a_crash_before_the_count_is_repaired_by_the_steps_redelivery(pg_db: Any,
                                                                     monkeypatch: Any) -> None:
    """The node's transaction committed (DONE) and the process died before the count: the
    stack stays IN_PROGRESS until the step's message is delivered again, which counts the
    node and finishes the traversal."""
    from app.context import RequestContext
    from app.convergence import check
    from app.convergence.store import syncpoints
    from app.services import stacks
    ctx = RequestContext(tenant_id="count")
    sid = _created_while_crashing(monkeypatch, syncpoints, "count_finished")["c"]
    st = stacks.get_by_id(ctx, sid)
    assert st.stack_status == "CREATE_IN_PROGRESS"
    assert _pending(sid) == 1
    node = rows(sid)["r"]
    check.check_resource(sid, st.current_traversal, node.id, True)   # the redelivery
    assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_COMPLETE"
    assert _pending(sid) == 0
    check.check_resource(sid, st.current_traversal, node.id, True)   # and once more: nothing
    assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_COMPLETE"
    assert _pending(sid) == 0


def test_a_crash_before_the_count_with_the_message_lost_is_repaired_by_the_reconciler(
        pg_db: Any, monkeypatch: Any) -> None:
    """As above, and the broker lost the step's message too (a Redis restarted): the
    reconciler finds the finished node that was never counted (DESIGN.md invariant 6)."""
    from sqlalchemy import update

    from app.context import RequestContext
    from app.convergence import reconciler
    from app.convergence.store import syncpoints
    from app.models import Resource, session, utcnow
    from app.services import stacks
    ctx = RequestContext(tenant_id="count")
    sid = _created_while_crashing(monkeypatch, syncpoints, "count_finished")["c"]
    assert reconciler.reconcile() == 0          # just finished: not idle yet
    assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_IN_PROGRESS"
    idle = pg_db.reconcile_after_seconds + 1
    with session() as s:
        s.execute(update(Resource).where(Resource.stack_id == sid)
                  .values(updated_at=utcnow() - dt.timedelta(seconds=idle)))
    assert reconciler.reconcile() == 1
    assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_COMPLETE"
    assert _pending(sid) == 0
    assert reconciler.reconcile() == 0


def _stack_ids() -> list[str]:
    from sqlalchemy import select

    from app.models import Stack, read_session
    with read_session() as s:
        return list(s.execute(select(Stack.id)).scalars())


def test_a_crash_while_finishing_is_repaired_by_a_redelivery_and_by_the_reconciler(
        pg_db: Any, monkeypatch: Any) -> None:
    """The last count reached zero and the process died inside ``traversal.finish``: the count
    is settled, so nothing counts again; a redelivered step still finishes the traversal
    (finish does nothing unless it is the stack's, in progress, with nothing left to count),
    and so does the reconciler when no message is left."""
    from sqlalchemy import update

    from app.context import RequestContext
    from app.convergence import check, reconciler, traversal
    from app.models import Stack, session, utcnow
    from app.services import stacks
    ctx = RequestContext(tenant_id="count")
    ids = _created_while_crashing(monkeypatch, traversal, "finish", ("redelivered", "reconciled"))
    for sid in ids.values():
        assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_IN_PROGRESS"
        assert _pending(sid) == 0
    sid = ids["redelivered"]
    st = stacks.get_by_id(ctx, sid)
    check.check_resource(sid, st.current_traversal, rows(sid)["r"].id, True)
    assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_COMPLETE"
    sid = ids["reconciled"]
    assert reconciler.reconcile() == 0      # just started: not idle yet
    with session() as s:
        s.execute(update(Stack).where(Stack.id == sid).values(
            traversal_started_at=utcnow() - dt.timedelta(seconds=pg_db.reconcile_after_seconds + 1)))
    reconciler.reconcile()
    assert stacks.get_by_id(ctx, sid).stack_status == "CREATE_COMPLETE"


def test_the_migration_marks_nodes_that_ended_before_it_counted(tmp_path: Path) -> None:
    """Nodes DONE before revision 0006 were counted in their own transaction: the reconciler
    must not count them again."""
    from sqlalchemy import create_engine, text

    from app.models import migrate
    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate.upgrade(url, "0005")
    eng = create_engine(url)
    with eng.begin() as c:
        for rid, state in ((1, "DONE"), (2, "FIRED"), (3, "WAITING")):
            c.execute(text("INSERT INTO sync_point (entity_id, traversal_id, is_update, "
                           "stack_id, expected, done, state) VALUES (:r, 't', 1, 's', 0, 0, :st)"),
                      {"r": rid, "st": state})
    migrate.upgrade(url)
    with eng.connect() as c:
        got = dict(c.execute(text("SELECT entity_id, counted FROM sync_point")).all())
    eng.dispose()
    assert {k: bool(v) for k, v in got.items()} == {1: True, 2: False, 3: False}


def test_one_stack_that_cannot_finish_does_not_keep_the_reconciler_from_the_others(
        pg_db: Any, monkeypatch: Any) -> None:
    from sqlalchemy import update

    from app.context import RequestContext
    from app.convergence import reconciler, traversal
    from app.models import Stack, session, utcnow
    from app.services import stacks
    ctx = RequestContext(tenant_id="count")
    real = traversal.finish
    ids = _created_while_crashing(monkeypatch, traversal, "finish", ("a", "b"))
    with session() as s:
        s.execute(update(Stack).values(
            traversal_started_at=utcnow() - dt.timedelta(seconds=pg_db.reconcile_after_seconds + 1)))

    def finish_all_but_a(s: Any, stack_id: str, *rest: Any) -> None:
        if stack_id == ids["a"]:
            raise RuntimeError("its template no longer loads")
        real(s, stack_id, *rest)
    monkeypatch.setattr(traversal, "finish", finish_all_but_a)
    reconciler.reconcile()
    assert stacks.get_by_id(ctx, ids["a"]).stack_status == "CREATE_IN_PROGRESS"
    assert stacks.get_by_id(ctx, ids["b"]).stack_status == "CREATE_COMPLETE"


def test_one_statement_reports_to_many_nodes_each_once_and_fires_the_complete(pg_db):
    """:func:`syncpoints.report_many` on PostgreSQL (one data-modifying WITH) keeps
    :func:`syncpoints.report`'s contract: a node fires when its last predecessor reports, a
    repeated report counts nothing, a skipped node never fires, the data is stored."""
    from app.convergence.store import syncpoints
    from app.models import SyncPoint, read_session, session
    sid, tid = _traversal({})
    with session() as s:
        s.add_all([SyncPoint(entity_id=1, traversal_id=tid, is_update=True, stack_id=sid,
                             expected=1, state="WAITING"),
                   SyncPoint(entity_id=2, traversal_id=tid, is_update=True, stack_id=sid,
                             expected=2, state="WAITING"),
                   SyncPoint(entity_id=3, traversal_id=tid, is_update=False, stack_id=sid,
                             expected=1, state="SKIPPED")])
    succs = [(2, True, {"ref": "a"}), (1, True, {"ref": "a"}), (3, False, None)]
    with session() as s:
        assert syncpoints.report_many(s, tid, "a", succs) == [(1, True)]
    with session() as s:  # delivered again: nothing counted twice
        assert syncpoints.report_many(s, tid, "a", succs) == []
    with session() as s:
        assert syncpoints.report_many(s, tid, "b", [(2, True, {"ref": "b"})]) == [(2, True)]
    with read_session() as s:
        state = {(p.entity_id, p.is_update): (p.done, p.state) for p in s.query(SyncPoint)
                 .filter(SyncPoint.traversal_id == tid)}
        assert state == {(1, True): (1, "FIRED"), (2, True): (2, "FIRED"),
                         (3, False): (1, "SKIPPED")}
        assert syncpoints.inputs(s, tid, True, 2) == {"a": {"ref": "a"}, "b": {"ref": "b"}}


def test_reports_of_several_predecessors_in_one_statement_count_each_new_input(pg_db):
    """:func:`syncpoints.report_all` (the statement a group of finished steps reports with):
    two predecessors reporting to one node in the same call count twice (an UPDATE ... FROM
    updates a row once, so the inputs are counted per node), a report already recorded counts
    nothing, and a node fires once, named once, in the order of its first report."""
    from app.convergence.store import syncpoints
    from app.models import SyncPoint, read_session, session
    sid, tid = _traversal({})
    with session() as s:
        s.add_all([SyncPoint(entity_id=1, traversal_id=tid, is_update=True, stack_id=sid,
                             expected=2, state="WAITING"),
                   SyncPoint(entity_id=2, traversal_id=tid, is_update=True, stack_id=sid,
                             expected=3, state="WAITING")])
    with session() as s:
        assert syncpoints.report_all(s, tid, [(2, True, "a", None)]) == []
    reports = [(2, True, "a", None), (1, True, "b", {"ref": "b"}), (2, True, "b", None),
               (1, True, "c", {"ref": "c"}), (2, True, "c", None)]
    with session() as s:
        assert syncpoints.report_all(s, tid, reports) == [(2, True), (1, True)]
    with session() as s:  # delivered again: nothing counted twice, nothing fired twice
        assert syncpoints.report_all(s, tid, reports) == []
    with read_session() as s:
        state = {p.entity_id: (p.done, p.state) for p in s.query(SyncPoint)
                 .filter(SyncPoint.traversal_id == tid)}
        assert state == {1: (2, "FIRED"), 2: (3, "FIRED")}
        assert syncpoints.inputs(s, tid, True, 1) == {"b": {"ref": "b"}, "c": {"ref": "c"}}
        assert syncpoints.inputs(s, tid, True, 2) == {"a": None, "b": None, "c": None}
