"""The statements of the node store (:mod:`.nodes`): reading and locking nodes that start
together, writing finished and parked nodes, and counting finished ones.

Every write of a node's row is fenced (:func:`held`, :func:`app.convergence.results.write_held`):
it happens only while the lock is still the one its step took, else :class:`errors.LeaseLost`
and the transaction rolls back. ``end(s, node)`` finishes ``node``'s traversal in ``s`` once
its count reached zero (the applier's, :func:`app.convergence.finishing.end`).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, select, tuple_, update
from sqlalchemy.orm import Session

from app import errors
from app.convergence import runtime
from app.convergence.results import Node, NodeKey, Start, write_held
from app.convergence.store import events, locks, syncpoints
from app.convergence.store.rows import table
from app.engine import graph
from app.engine.states import NodeState, Status
from app.models import Resource, Stack, SyncPoint, autocommit, session

log = logging.getLogger(__name__)
RT, ST, SP = table(Resource), table(Stack), table(SyncPoint)
End = Callable[[Session, Node], None]
#: ``(the read row, the locked resource row, its inputs)`` of a node started with others
Started = tuple[Any, Any, dict[str, Any]] | None
Parked = tuple[Node, Start | None, dict[str, Any], list[dict[str, Any]]]

_STEP_COLUMNS = (ST.c.id, ST.c.name, ST.c.tenant, ST.c.raw_template_id, ST.c.current_traversal,
                 ST.c.action, ST.c.nested_depth, ST.c.failed, ST.c.disable_rollback,
                 ST.c.timeout_mins, ST.c.traversal_started_at,
                 SP.c.state, SP.c.expected, SP.c.succ)
#: Several nodes' first statement: the stack and their sync points (built once). The sync
#: points are found by their key (entity, traversal): a traversal id is its stack's own, and
#: naming the stack too made SQLite read every sync point of the stack (a scan per batch)
_READ_MANY = {d: select(*_STEP_COLUMNS, SP.c.entity_id, SP.c.is_update, RT.c.atomic_key)
              .select_from(ST.join(SP, SP.c.traversal_id == ST.c.current_traversal)
                           .join(RT, RT.c.id == SP.c.entity_id))
              .where(ST.c.id == bindparam("sid"), ST.c.current_traversal == bindparam("tid"),
                     syncpoints.ids_in(SP.c.entity_id, "rids", d))
              for d in ("postgresql", "sqlite")}
#: Take the free locks of several resources at the keys read with the stack, returning their
#: rows (built once). ``ids`` lets SQLite find the rows by primary key (with the pairs alone
#: it scanned the whole resource table per batch)
_LOCK_MANY = (update(RT).where(RT.c.id.in_(bindparam("ids", expanding=True)),
                               tuple_(RT.c.id, RT.c.atomic_key)
                               .in_(bindparam("keys", expanding=True)),
                               RT.c.engine_id.is_(None))
              .values(engine_id=bindparam("eid"), atomic_key=RT.c.atomic_key + 1)
              .returning(*RT.c))


def lock_fired(c: Connection, stack_id: str, traversal_id: str,
               nodes: list[NodeKey]) -> dict[NodeKey, tuple[Any, Any, Any]]:
    """Of ``nodes`` of one traversal, the FIRED ones whose locks were free: their stack and
    sync points read in one statement, their locks taken in one more at the keys read (the
    compare-and-swap of a step's own start), their inputs read in a third.

    :returns: ``{node: (the read row, the locked resource row, its inputs)}``; empty when a
        resource is named twice (forward and reverse: one by one). If the inputs cannot be
        read, the locks taken (committed on their own on PostgreSQL) are released."""
    ids = [rid for rid, _ in nodes]
    if len(set(ids)) != len(ids):
        return {}
    wanted = set(nodes)
    fired = {(r.entity_id, bool(r.is_update)): r for r in c.execute(
        _READ_MANY[c.dialect.name], {"sid": stack_id, "tid": traversal_id, "rids": ids})
        if (r.entity_id, bool(r.is_update)) in wanted and r.state == NodeState.FIRED}
    if not fired:
        return {}
    rows = {r.id: r for r in c.execute(_LOCK_MANY, {
        "ids": [rid for rid, _ in fired],
        "keys": [(rid, r.atomic_key) for (rid, _), r in fired.items()],
        "eid": locks.engine_id()})}
    try:
        given = syncpoints.inputs_many(c, traversal_id, [
            key for key, r in fired.items() if key[1] and r.expected and key[0] in rows])
    except Exception:
        for rid, r in rows.items():
            locks.release(rid, r.atomic_key)
        raise
    return {key: (r, rows[key[0]], given.get(key, {})) for key, r in fired.items()
            if key[0] in rows}


def held(node: Node, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` of :data:`app.convergence.results.SET_HELD_ROW` for ``node``'s row: written
    only while its lock is still the one its step took."""
    return {**values, "row_id": node.resource.id, "held_by": locks.engine_id(),
            "held_at": node.resource.atomic_key}


def park_alone(node: Node, start: Start | None, values: dict[str, Any],
               rows: list[dict[str, Any]]) -> bool:
    """Write one parked node (``rows``, its step's events, then its IN_PROGRESS if its step
    started the action) in a transaction of its own. :returns: False if its lock was no
    longer its step's."""
    try:
        with session() as s:
            events.add_events(s, rows)
            if start is not None:
                events.write_start(s, node.resource, start.action, start.properties)
            write_held(s, [held(node, values)])
    except errors.LeaseLost:
        log.warning("resource %s: this engine's lock (key %s) was taken over after its lease "
                    "ran out; its step stops and writes nothing", node.resource.id,
                    node.resource.atomic_key)
        return False
    return True


def release(node: Node, rows: list[dict[str, Any]]) -> None:
    """Write ``rows`` and release ``node``'s lock at its step's key, in one transaction."""
    with session() as s:
        events.add_events(s, rows)
        locks.release_in(s, node.resource.id, node.resource.atomic_key)


def park_many(items: list[Parked]) -> None:
    """Write parked nodes in one transaction: each row's values in one ``executemany`` per
    shape (a started action's columns under its own), the IN_PROGRESS events in one insert.

    :raises LeaseLost: a lock moved on; nothing is written."""
    rows: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    started: list[dict[str, Any]] = []
    for node, start, values, own in items:
        started.extend(own)
        if start is not None:
            values = {**events.start_values(start.action, start.properties), **values}
            started.append(events.start_event(node.resource, start.action))
        values = held(node, values)
        rows.setdefault(tuple(sorted(values)), []).append(values)
    with session() as s:
        for same_shape in rows.values():
            write_held(s, same_shape)
        events.add_events(s, started)


@dataclass
class Finished:
    """What a finished node writes, computed before its transaction opens (SQLite has one
    writer: the time a transaction holds the write lock is the embedded default's limit)."""
    values: dict[str, Any]
    events: list[dict[str, Any]]
    data: Any


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
    for node, f in prepared:
        r, is_update = node.resource, node.is_update
        if node.key not in moved:
            locks.release_in(s, r.id, r.atomic_key)
            f.events.clear()
            continue
        ended.append(node.key)
        values = held(node, f.values)
        rows.setdefault(tuple(sorted(values)), []).append(values)
        key = r.name if is_update else f"R:{r.name}"  # a node may hear from F(x) and R(x)
        for sid, upd in successors(node):
            reports.append((sid, upd, key, f.data if is_update and upd else None))
            reporter.setdefault((sid, upd), node.key)
    ready: dict[NodeKey, list[NodeKey]] = {}
    for succ in syncpoints.report_all(s, traversal_id, reports):
        ready.setdefault(reporter[succ], []).append(succ)
    for same_shape in rows.values():
        write_held(s, same_shape)
    events.add_events(s, [e for _, f in prepared for e in f.events])
    return ended, ready


@dataclass
class Failing:
    """What a failed node writes: its row's values, its events, the stack's reason."""
    values: dict[str, Any]
    events: list[dict[str, Any]]
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
        events.add_events(s, f.events)
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
