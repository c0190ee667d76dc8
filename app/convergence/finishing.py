"""Writing what steps leave behind: finished nodes (their row, events, successors' sync points
and the stack-level count, :func:`done`) and parked ones (an action in progress, its handle
and poll timing, :func:`park`).

On PostgreSQL the steps of one worker process that finish, or park, together share one
transaction (:mod:`app.convergence.store.group_commit`): under gevent a hundred steps each waited on
their own BEGIN, writes and COMMIT; a burst now writes in a few statements. Each step still
enqueues its own successors and polls. A group whose transaction fails is written step by
step, as on SQLite, where every step writes alone (one writer).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import errors
from app.convergence import plugins, runtime, traversal
from app.convergence.results import (
    Done,
    Node,
    NodeKey,
    Record,
    Start,
    default_action,
    write_held,
)
from app.convergence.store import events, locks, pacing, syncpoints
from app.convergence.store.group_commit import GroupCommit, indexes_by
from app.convergence.traversal import PROPS_BEFORE
from app.engine.states import Action, Status
from app.models import Stack, after_commit, autocommit, concurrent_writers, session, utcnow

log = logging.getLogger(__name__)


def park(node: Node, plugin: Any, handle: Any, start: Start | None, owner: str | None,
         event: str | None, timing: dict[str, float] | None = None) -> bool:
    """Persist progress (and the IN_PROGRESS state if this step started the action) and
    release the lock, in one transaction (on PostgreSQL, shared with the steps of this
    process that park together: :data:`PARKS`). ``timing``: the poll's ``since`` and
    ``last`` (:mod:`app.convergence.store.pacing`), stored beside the handle.

    :returns: False if nothing was written: the lock was no longer this step's (fencing,
        :func:`write_held`)."""
    r = node.resource
    stored: dict[str, Any] = {"h": handle, "t": owner or node.traversal_id, **(timing or {})}
    if event is not None:
        stored["wait"] = event
    values = {"row_id": r.id, "handle": stored, "physical_resource_id": plugin.resource_id,
              "rsrc_data": plugin.data, "poll_attempt": r.next_attempt(start),
              "engine_id": None, "updated_at": utcnow()}
    if concurrent_writers():
        got = PARKS.submit((node, start, values))
        if got is not None:
            return got
    try:
        with session() as s:
            if start is not None:
                events.write_start(s, r, start.action, start.properties)
            write_held(s, [held(node, values)])
    except errors.LeaseLost:
        log.warning("resource %s: this engine's lock (key %s) was taken over after its lease "
                    "ran out; its step stops and writes nothing", r.id, r.atomic_key)
        return False
    return True


def held(node: Node, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` of :data:`SET_HELD_ROW` for ``node``'s row: written only while its lock is
    still the one its step took (:func:`write_held`)."""
    return {**values, "row_id": node.resource.id, "held_by": locks.engine_id(),
            "held_at": node.resource.atomic_key}


_Parked = tuple[Node, Start | None, dict[str, Any]]


def park_group(items: list[_Parked]) -> list[bool | None | BaseException]:
    """:data:`PARKS`'s write (PostgreSQL): the parked steps of this process that arrived
    together in one transaction: each row's values in one ``executemany`` per shape (a step
    that started its action has the started state's columns under its own, as if written one
    after the other; each row only while its lock is its step's, :func:`write_held`), the
    IN_PROGRESS events in one insert.

    :returns: True for each item; None for all if the transaction failed, or a lock was lost
        (each is then written on its own)."""
    rows: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    started: list[dict[str, Any]] = []
    for node, start, values in items:
        if start is not None:
            values = {**events.start_values(start.action, start.properties), **values}
            started.append(events.start_event(node.resource, start.action))
        values = held(node, values)
        rows.setdefault(tuple(sorted(values)), []).append(values)
    try:
        with session() as s:
            for same_shape in rows.values():
                write_held(s, same_shape)
            events.add_events(s, started)
    except errors.LeaseLost:  # the others are written one by one, without it
        return [None] * len(items)
    except Exception:
        log.exception("%d parked steps could not be written together; writing them one by "
                      "one", len(items))
        return [None] * len(items)
    return [True] * len(items)


#: The steps of this process that park together share a transaction
PARKS: GroupCommit[_Parked, bool | None] = GroupCommit(park_group)


def successors(node: Node) -> list[NodeKey]:
    """The nodes this node reports to, as its sync point stores them."""
    return [(int(i), bool(u)) for i, u in node.stack.succ or ()]


def done(node: Node, d: Done) -> None:
    prepared = prepare(node, d)
    if not concurrent_writers():
        done_alone(node, prepared)
        return
    got = GROUP.submit((node, prepared))
    if got is None:  # its batch could not be written: on its own, as before
        done_alone(node, prepared)
        return
    ended, ready = got
    if ready:
        runtime.dispatcher().check_resources(node.stack.id, node.traversal_id, ready)
    if not ended:
        ended_again(node)


def done_alone(node: Node, prepared: Finished) -> None:
    """Write one finished node in a transaction of its own (SQLite; or PostgreSQL after its
    group's transaction failed)."""
    later = concurrent_writers()
    with session() as s:
        ended, ready = write_finished(s, [(node, prepared)])
        events.add_events(s, prepared.events)
        if ready:
            enqueue_after_commit(s, node.stack.id, node.traversal_id, ready[node.key])
        if ended and not later:
            count(s, node, len(ended))
    if ended and later:
        count_committed(node, ended)
    elif later:
        ended_again(node)


Written = tuple[bool, list[NodeKey]] | None


def write_group(items: list[tuple[Node, Finished]]) -> list[Written | BaseException]:
    """:data:`GROUP`'s write (PostgreSQL): the finished nodes of one process that arrived
    together, one transaction per traversal (:func:`write_finished`, their events in one
    insert), then one count of those that ended (:func:`count_committed`).

    :returns: per item ``(ended, ready successors)``; None where its traversal's transaction
        failed (the item is written on its own); an exception where it was written but not
        counted (raised in its step, whose next delivery counts it)."""
    out: list[Written | BaseException] = [None] * len(items)
    for idx in indexes_by(items, lambda item: (item[0].stack.id, item[0].traversal_id)).values():
        part = [items[i] for i in idx]
        try:
            with session() as s:
                ended, ready = write_finished(s, part)
                events.add_events(s, [e for _, f in part for e in f.events])
        except errors.LeaseLost:  # the others are written one by one, without it
            continue
        except Exception:
            log.exception("%d finished steps could not be written together; "
                          "writing them one by one", len(part))
            continue
        try:
            if ended:
                count_committed(part[0][0], ended)
        except Exception as exc:
            log.exception("%d finished steps not counted", len(ended))
            for i in idx:
                out[i] = exc
            continue
        ended_set = set(ended)
        for i, (n, _) in zip(idx, part):
            out[i] = (n.key in ended_set, ready.get(n.key, []))
    return out


#: The finished steps of this process that arrive together share a transaction
#: (:mod:`app.convergence.store.group_commit`)
GROUP: GroupCommit[tuple[Node, Finished], Written] = GroupCommit(write_group)


def ended_again(node: Node) -> None:
    """A step of a node that had ended already (a redelivery, a retry): make sure it was
    counted (PostgreSQL counts after the node's commit, :func:`count_committed`) and that its
    successors went out (:func:`reenqueue_successors`)."""
    if concurrent_writers():
        count_committed(node, [node.key], recover=True)
    reenqueue_successors(node)


def count_committed(node: Node, ended: list[NodeKey], recover: bool = False) -> None:
    """Subtract nodes of ``node``'s traversal that finished in a committed transaction from the
    stack-level sync point, and finish the traversal if none is left
    (:func:`syncpoints.count_finished`: PostgreSQL, one autocommit statement, after the
    session gave its connection back). A node counted already counts nothing.

    ``recover``: a redelivery (or a retry) of a node that had ended: finish the traversal also
    when the count had reached zero before, in case the process that brought it there died
    before finishing it (:func:`traversal.finish` does nothing otherwise)."""
    with autocommit() as conn:
        zero = syncpoints.count_finished(conn, node.stack.id, node.traversal_id, ended)
        if not zero and recover:  # a plain read: the row is locked only to finish
            left = conn.execute(select(Stack.pending_nodes).where(
                Stack.id == node.stack.id, Stack.current_traversal == node.traversal_id,
                Stack.status == Status.IN_PROGRESS)).scalar()
            zero = left is not None and left <= 0
    if zero:
        with session() as s:
            traversal.finish(s, node.stack.id, node.traversal_id, node.loaded)


@dataclass
class Finished:
    """What a finished node writes, computed before its transaction opens (SQLite has one
    writer: the time a transaction holds the write lock is the embedded default's limit)."""
    values: dict[str, Any]
    events: list[dict[str, Any]]
    data: Any


def prepare(node: Node, d: Done) -> Finished:
    r, is_update = node.resource, node.is_update
    pacing.finished(r, node.stack.action, node.is_update, node.looked)
    row_action = d.action or default_action(node)
    values: dict[str, Any] = {"engine_id": None, "handle": None, "updated_at": utcnow()}
    data = r.attr_data
    if d.plugin is not None:
        d.plugin.data.pop(PROPS_BEFORE, None)  # the update it guarded went through
        values.update(physical_resource_id=d.plugin.resource_id, rsrc_data=d.plugin.data)
        if is_update and node.loaded is not None:
            data = plugins.attr_data(d.plugin,
                                     node.loaded.definition.referenced_attributes(r.name))
            values["attr_data"] = data
    if d.record is Record.UNTOUCHED:  # nothing happened to it: its updated_time stays (Heat)
        del values["updated_at"]
    elif d.record is Record.EVENT:
        values.update(action=row_action, status=Status.COMPLETE, status_reason=d.reason)
    elif not is_update:
        values.update(action=Action.DELETE, status=Status.COMPLETE)
    rows = list(d.events)
    if d.start is not None:  # the action started in this step: its IN_PROGRESS goes in too
        if d.start.properties is not None:
            values["properties_data"] = d.start.properties
        rows.append(events.start_event(r, d.start.action))
    if d.record is Record.EVENT:
        rows.append(events.event_row(r.stack_id, r.name, values.get("physical_resource_id",
                                                                    r.physical_resource_id),
                                     r.type, row_action, Status.COMPLETE, d.reason))
    return Finished(values, rows, data)


def write_finished(s: Session, prepared: list[tuple[Node, Finished]]
                    ) -> tuple[list[NodeKey], dict[NodeKey, list[NodeKey]]]:
    """Write finished nodes of one traversal in ``s`` (their events are the caller's to add):
    their DONE states in one statement, their rows in one ``executemany`` per shape, their
    successors' sync points in one more (:func:`syncpoints.report_all`). A node that had
    already ended (a redelivery) only has its lock released: nothing is counted and its
    events are dropped. Each row is written only while its lock is its step's
    (:func:`write_held`).

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
    return ended, ready


def enqueue_after_commit(s: Session, stack_id: str, traversal_id: str,
                          ready: list[NodeKey]) -> None:
    after_commit(s, lambda: runtime.dispatcher().check_resources(stack_id, traversal_id, ready))


def count(s: Session, node: Node, ended: int) -> None:
    pending = syncpoints.decrement(s, node.stack.id, node.traversal_id, ended)
    if pending == 0:
        traversal.finish(s, node.stack.id, node.traversal_id, node.loaded)


def reenqueue_successors(node: Node) -> None:
    """After a redelivery of a finished node: enqueue successors that fired but never finished
    (the crash came between commit and enqueue)."""
    succ = successors(node)
    with session() as s:
        todo = [(i, upd) for upd in (True, False) for i in syncpoints.fired_not_done(
            s, node.traversal_id, upd, [i for i, u in succ if u == upd])]
    if todo:
        runtime.dispatcher().check_resources(node.stack.id, node.traversal_id, todo)
