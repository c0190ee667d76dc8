"""The statements of the node store (:mod:`.nodes`): reading and locking nodes that start
together, writing finished and parked nodes, and counting finished ones.

Every write of a node's row is fenced (:func:`held`, :func:`app.convergence.results.write_held`):
it happens only while the lock is still the one its step took, else :class:`errors.LeaseLost`
and the transaction rolls back. ``end(s, node)`` finishes ``node``'s traversal in ``s`` once
its count reached zero (the applier's, :func:`app.convergence.outcome.end`).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app import errors
from app.convergence import runtime
from app.convergence.results import Node, NodeKey, write_held
from app.convergence.store import events, locks, syncpoints
from app.convergence.store.events import ResourceEvent
from app.convergence.store.rows import ResourceRow, table
from app.engine import graph
from app.engine.states import Status
from app.models import Resource, Stack, SyncPoint, autocommit, session

log = logging.getLogger(__name__)
RT, ST, SP = table(Resource), table(Stack), table(SyncPoint)
End = Callable[[Session, Node], None]
#: ``(node, its row's values, its events)`` of a parked node
Parked = tuple[Node, dict[str, Any], list[ResourceEvent]]


def held(node: Node, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` of :data:`app.convergence.results.SET_HELD_ROW` for ``node``'s row: written
    only while its lock is still the one its step took."""
    return {**values, "row_id": node.resource.id, "held_by": locks.engine_id(),
            "held_at": node.resource.atomic_key}


def park_alone(node: Node, values: dict[str, Any], found: list[ResourceEvent]) -> bool:
    """Write one parked node (its row's ``values``, its events ``found``) in a transaction of
    its own. :returns: False if its lock was no longer its step's."""
    try:
        with session() as s:
            events.add_events(s, events.rows_of(node.resource, found))
            write_held(s, [held(node, values)])
    except errors.LeaseLost:
        log.warning("resource %s: this engine's lock (key %s) was taken over after its lease "
                    "ran out; its step stops and writes nothing", node.resource.id,
                    node.resource.atomic_key)
        return False
    return True


def rewrite(r: ResourceRow, values: dict[str, Any]) -> ResourceRow:
    """Write ``values`` on step row ``r`` in a transaction of its own, before the step's cloud
    call, while this engine holds its lock at ``r.atomic_key`` (one conditional ``UPDATE ...
    RETURNING``). :returns: the row as written. :raises LeaseLost: the lock moved on."""
    with session() as s:
        found = s.execute(update(RT).where(
            RT.c.id == r.id, RT.c.engine_id == locks.engine_id(),
            RT.c.atomic_key == r.atomic_key).values(**values).returning(*RT.c)).first()
    if found is None:
        raise errors.LeaseLost(f"resource {r.id}: lock lost at key {r.atomic_key}")
    return ResourceRow.of(found)


def release(node: Node, found: list[ResourceEvent]) -> None:
    """Write events ``found`` and release ``node``'s lock at its step's key, in one
    transaction."""
    with session() as s:
        events.add_events(s, events.rows_of(node.resource, found))
        locks.release_in(s, node.resource.id, node.resource.atomic_key)


def settle(r: Any, values: dict[str, Any], found: list[ResourceEvent]) -> None:
    """Write row ``r``'s ``values`` and events ``found`` and release this engine's lock of it,
    in one transaction (a stopped traversal's action, looked at once more)."""
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(**values))
        events.add_events(s, events.rows_of(r, found))
        locks.release_in(s, r.id, None)


def signalled(r: Any, token: int, data: dict[str, Any] | None,
              found: list[ResourceEvent]) -> None:
    """Write a signal's ``data`` on row ``r`` (if any) and its events ``found``, and release
    the lock its delivery took at ``token``, in one transaction.

    :raises LeaseLost: with ``data``, the lock is no longer the delivery's (nothing written)."""
    with session() as s:
        if data is not None:
            locks.hold(s, r.id, token)
            s.execute(update(RT).where(RT.c.id == r.id, RT.c.engine_id == locks.engine_id())
                      .values(rsrc_data=data))
        events.add_events(s, events.rows_of(r, found))
        locks.release_in(s, r.id, token)


def park_many(items: list[Parked]) -> None:
    """Write parked nodes in one transaction: each row's values in one ``executemany`` per
    shape, their events in one insert.

    :raises LeaseLost: a lock moved on; nothing is written."""
    rows: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    started: list[dict[str, Any]] = []
    for node, values, found in items:
        started.extend(events.rows_of(node.resource, found))
        values = held(node, values)
        rows.setdefault(tuple(sorted(values)), []).append(values)
    with session() as s:
        for same_shape in rows.values():
            write_held(s, same_shape)
        events.add_events(s, started)


@dataclass
class Finished:
    """What a finished node writes, computed before its transaction opens (SQLite has one
    writer: the time a transaction holds the write lock is the embedded default's limit):
    its row's ``values``, its ``events`` and the ``data`` it passes on, and (:meth:`of`) the
    statements' parameters made of them."""
    values: dict[str, Any]
    events: list[ResourceEvent]
    data: Any
    #: :data:`SET_HELD_ROW`'s parameters (:func:`held`) and their shape (sorted names)
    row: dict[str, Any] = field(default_factory=dict)
    shape: tuple[str, ...] = ()
    #: its event rows (:func:`events.rows_of`) and its reports to its successors' sync points
    event_rows: list[dict[str, Any]] = field(default_factory=list)
    reports: list[tuple[int, bool, str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, node: Node, values: dict[str, Any], found: list[ResourceEvent],
           data: Any) -> Finished:
        """``node`` finished writing ``values`` and ``found``, passing ``data`` on."""
        r, is_update = node.resource, node.is_update
        row = held(node, values)
        key = r.name if is_update else f"R:{r.name}"  # a node may hear from F(x) and R(x)
        return cls(values, found, data, row, tuple(sorted(row)), events.rows_of(r, found),
                   [(sid, upd, key, data if is_update and upd else None)
                    for sid, upd in successors(node)])


def successors(node: Node) -> list[NodeKey]:
    """The nodes this node reports to, as its sync point stores them."""
    return [(int(i), bool(u)) for i, u in node.stack.succ or ()]


def write_finished(s: Session, prepared: list[tuple[Node, Finished]]
                   ) -> tuple[list[NodeKey], dict[NodeKey, list[NodeKey]]]:
    """Write finished nodes of one traversal in ``s``, with their events: their DONE states in
    one statement, their rows in one ``executemany`` per shape, their successors' sync points
    in one more (:func:`syncpoints.report_all`). A node that had already ended (a redelivery)
    only has its lock released: nothing is counted and its events are dropped.

    :raises LeaseLost: one's lock moved on (its lease ran out): ``s`` must roll back.

    :returns: the nodes that ended, and per node the successors that became ready because
        of it (a successor two of them completed goes to the first)."""
    traversal_id = prepared[0][0].traversal_id
    moved = syncpoints.mark_done_many(s, traversal_id, [n.key for n, _ in prepared])
    rows: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    reports: list[tuple[int, bool, str, Any]] = []
    reporter: dict[NodeKey, NodeKey] = {}
    ended: list[NodeKey] = []
    written: list[dict[str, Any]] = []
    for node, f in prepared:
        if not f.row:  # not made by Finished.of
            f = Finished.of(node, f.values, f.events, f.data)
        if node.key not in moved:
            locks.release_in(s, node.resource.id, node.resource.atomic_key)
            continue
        ended.append(node.key)
        rows.setdefault(f.shape, []).append(f.row)
        written.extend(f.event_rows)
        for report in f.reports:
            reports.append(report)
            reporter.setdefault((report[0], report[1]), node.key)
    ready: dict[NodeKey, list[NodeKey]] = {}
    for succ in syncpoints.report_all(s, traversal_id, reports):
        ready.setdefault(reporter[succ], []).append(succ)
    for same_shape in rows.values():
        write_held(s, same_shape)
    events.add_events(s, written)
    return ended, ready


@dataclass
class Failing:
    """What a failed node writes: its row's values, its events, the stack's reason."""
    values: dict[str, Any]
    events: list[ResourceEvent]
    stack_reason: str


def fail(node: Node, f: Failing, end: End) -> None:
    """Write failed ``node`` in one transaction: FAILED (only from FIRED: else its lock is just
    released), its row and events, every node reachable from it skipped, the stack marked
    failed with ``f.stack_reason`` (the first failure's), and all of them counted.

    :raises LeaseLost: its lock moved on; nothing is written."""
    r = node.resource
    with session() as s:
        if not syncpoints.mark_failed(s, node.traversal_id, node.is_update, r.id):
            locks.release_in(s, r.id, r.atomic_key)
            return
        write_held(s, [held(node, f.values)])
        events.add_events(s, events.rows_of(r, f.events))
        skipped = _skip_descendants(s, node)
        s.connection().execute(update(ST).where(
            ST.c.id == node.stack.id, ST.c.current_traversal == node.traversal_id,
            ST.c.failed.is_(False)).values(failed=True, status_reason=f.stack_reason))
        count(s, node, 1 + skipped, end)


def _skip_descendants(s: Session, node: Node) -> int:
    """Skip every node reachable from ``node`` (the descendants computed once, by the pure
    plan); :returns: how many were still waiting. O(stack), on a failure only."""
    stored = syncpoints.graph(s, node.traversal_id, node.stack.id)
    succs = {k: [(int(i), bool(u)) for i, u in v] for k, v in stored.items()}
    blocked = graph.descendants(succs, node.key)
    return sum(syncpoints.skip(s, node.traversal_id, upd,
                               [int(i) for i, u in blocked if u == upd])
               for upd in (True, False))


def count(s: Session, node: Node, ended: int, end: End) -> None:
    """Subtract ``ended`` nodes of ``node``'s traversal from the stack-level count in ``s``
    (the stack row stays locked until ``s`` commits); finish the traversal at zero."""
    if syncpoints.decrement(s, node.stack.id, node.traversal_id, ended) == 0:
        end(s, node)


def count_committed(node: Node, ended: list[NodeKey], end: End, recover: bool = False) -> None:
    """Subtract nodes of ``node``'s traversal that finished in a committed transaction from the
    stack-level count (:func:`syncpoints.count_finished`: one autocommit statement, each node
    once), and finish the traversal if none is left.

    ``recover``: a redelivery (or a retry) of a node that had ended: finish the traversal also
    when the count had reached zero before, in case the process that brought it there died
    before finishing it (finishing a finished traversal does nothing)."""
    with autocommit() as conn:
        zero = syncpoints.count_finished(conn, node.stack.id, node.traversal_id, ended)
        if not zero and recover:  # a plain read: the row is locked only to finish
            left = conn.execute(select(ST.c.pending_nodes).where(
                ST.c.id == node.stack.id, ST.c.current_traversal == node.traversal_id,
                ST.c.status == Status.IN_PROGRESS)).scalar()
            zero = left is not None and left <= 0
    if zero:
        with session() as s:
            end(s, node)


def enqueue(node: Node, ready: list[NodeKey]) -> None:
    """Enqueue the successors of ``node`` that became ready (after their commit)."""
    if ready:
        runtime.dispatcher().check_resources(node.stack.id, node.traversal_id, ready)


def reenqueue_successors(node: Node) -> None:
    """After a redelivery of a finished node: enqueue successors that fired but never finished
    (the crash came between commit and enqueue)."""
    succ = successors(node)
    with session() as s:
        todo = [(i, upd) for upd in (True, False) for i in syncpoints.fired_not_done(
            s, node.traversal_id, upd, [i for i, u in succ if u == upd])]
    enqueue(node, todo)
