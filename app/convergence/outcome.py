"""Step outcomes, and the one function that applies them (:func:`apply`).

Every step of a node returns one of:

- :class:`Done` — the resource reached its target: record it, tell the successors, count it;
- :class:`Failed` — it failed with ``reason``: record it, skip every descendant, fail the stack;
- :class:`Poll` — a cloud action is in progress: persist its ``handle``, look again in ``delay``
  seconds (a task re-enqueued with a countdown, never a sleeping worker);
- :class:`Wait` — it waits for an outside ``event`` (a child stack finishing, a signal): persist
  the handle and hold no task; :func:`app.convergence.wakeups.wake` enqueues the step when the event
  comes; one slow safety poll is the only timer, and the ``deadline`` fails it.

A node ends in ONE transaction: the resource row, its events, the successors' sync points and
the stack-level pending count change together, so a crash leaves all or nothing and a
redelivered task can tell (its sync point is no longer FIRED). Successors that became ready are
enqueued after the commit, together (one batch per step). As Terraform's walker, this module
owns the graph's state; steps only report.
"""
from __future__ import annotations

import datetime as dt
import enum
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from app.convergence import dispatch, events, pacing, plugins, syncpoints, timeouts, traversal
from app.convergence.definitions import Loaded
from app.convergence.group_commit import GroupCommit
from app.convergence.rows import ResourceRow, StepStack, table
from app.convergence.traversal import PROPS_BEFORE
from app.engine import graph
from app.engine.states import Action, Status
from app.models import Resource, Stack, after_commit, autocommit, concurrent_writers, session, utcnow

log = logging.getLogger(__name__)
RT = table(Resource)
#: One prebuilt statement writes a node's resource row: the columns set are the keys given
#: besides ``row_id`` (SQLAlchemy derives the SET clause from the parameters)
SET_ROW = update(RT).where(RT.c.id == bindparam("row_id"))
NodeKey = tuple[int, bool]


class Record(enum.Enum):
    """What an outcome writes on the resource row."""
    EVENT = "event"          # its action and status change, with an event (the usual)
    SILENT = "silent"        # Done only: no event (a reverse node marks it DELETE_COMPLETE)
    UNTOUCHED = "untouched"  # its action and status stay (nothing happened to it)


@dataclass(frozen=True)
class Start:
    """The action this step started: its IN_PROGRESS (and the properties it started from) is
    written with the outcome, in the same transaction."""
    action: Action
    properties: dict[str, Any] | None = None


@dataclass(frozen=True)
class Done:
    """The node finished. ``plugin``: the driver whose physical id, data and attributes are
    recorded (None: the row's are kept); ``action``: the resource action that completed
    (default CREATE forward, DELETE reverse)."""
    plugin: Any = None
    action: Action | None = None
    start: Start | None = None
    record: Record = Record.EVENT
    reason: str = events.STATE_CHANGED
    events: Sequence[dict[str, Any]] = ()


@dataclass(frozen=True)
class Failed:
    """The node failed with ``reason`` (Heat's wording). ``record=UNTOUCHED``: the action never
    started (its resolution failed), so the row keeps its state; ``action``: the resource
    action that failed (default CREATE forward, DELETE reverse); ``stack_action``: the word
    of the stack's reason (default ``action``); ``stack_reason``: what follows ``"Resource
    <ACTION> failed: "`` in the stack's reason (default ``reason``)."""
    reason: str
    plugin: Any = None
    action: Action | None = None
    stack_action: Action | None = None
    start: Start | None = None
    record: Record = Record.EVENT
    attr_data: dict[str, Any] | None = None
    events: Sequence[dict[str, Any]] = ()
    stack_reason: str | None = None


@dataclass(frozen=True)
class Poll:
    """Look again in ``delay`` seconds. ``owner``: the traversal that started the action
    (default: this one), stored with the handle."""
    handle: Any
    delay: float
    plugin: Any
    start: Start | None = None
    owner: str | None = None

    @classmethod
    def next(cls, plugin: Any, handle: Any, resource: ResourceRow,
             start: Start | None) -> Poll:
        """The next look at ``resource``'s action, after the plugin's own ``poll_delay`` for
        its coming look (:meth:`ResourceRow.next_attempt`)."""
        return cls(handle, float(plugin.poll_delay(handle, resource.next_attempt(start))),
                   plugin, start)


@dataclass(frozen=True)
class Wait:
    """Sleep without a task until ``event`` (see :mod:`app.convergence.wakeups`); ``deadline``
    (naive UTC): past it, the node fails with ``"<name>: timed out waiting for <event>"``, or,
    when it is the traversal's own deadline, the stack times out (Heat's "Timed out")."""
    event: str
    deadline: dt.datetime
    handle: Any
    plugin: Any
    start: Start | None = None
    owner: str | None = None  # as Poll's: the traversal that started the action


Outcome = Done | Failed | Poll | Wait


@dataclass
class Node:
    """One step's node: ``(resource, is_update)`` of ``traversal_id``, with what the step
    read (the stack and its sync point, the resource row, the stack's definition)."""
    stack: StepStack
    resource: ResourceRow
    traversal_id: str
    is_update: bool
    loaded: Loaded | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    #: when this look at the node began (epoch seconds, :func:`pacing.clock`)
    looked: float = field(default_factory=pacing.clock)

    @property
    def key(self) -> NodeKey:
        return (self.resource.id, self.is_update)

    def deadline(self) -> dt.datetime:
        """This traversal's deadline (:mod:`app.convergence.timeouts`)."""
        started = self.stack.traversal_started_at or utcnow()
        return timeouts.deadline_at(started, self.stack.timeout_mins)


def apply(node: Node, outcome: Outcome) -> None:
    """Apply a step's outcome to its node (the only place that ends, polls or parks one)."""
    if isinstance(outcome, Done):
        _done(node, outcome)
    elif isinstance(outcome, Failed):
        _failed(node, outcome)
    elif isinstance(outcome, Poll):
        delay, timing = pacing.poll(node.resource, node.stack.action, node.is_update,
                                    outcome.plugin, outcome.handle, outcome.delay,
                                    outcome.start is not None, node.looked, pacing.clock())
        _park(node, outcome.plugin, outcome.handle, outcome.start, outcome.owner, None, timing)
        dispatch.get().check_resource(node.stack.id, node.traversal_id, node.resource.id,
                                      node.is_update, countdown=delay)
    else:
        _wait(node, outcome)


def _wait(node: Node, w: Wait) -> None:
    left = timeouts.seconds_left(w.deadline, utcnow())
    if left <= 0 and w.start is None and w.deadline >= node.deadline():
        # the traversal's own deadline (a deployment, a nested stack: no timeout of their
        # own): Heat's stack timeout, "Timed out", whichever of its timer and this poll is first
        traversal.stack_timeout(node.stack.id, node.traversal_id)
        with session() as s:
            traversal.release_lock(s, node.resource.id)
        return
    if left <= 0:
        _failed(node, Failed(f"{node.resource.name}: timed out waiting for {w.event}",
                             plugin=w.plugin, start=w.start, stack_action=_default_action(node)))
        return
    _park(node, w.plugin, w.handle, w.start, w.owner, w.event)
    dispatch.get().safety_poll(node.stack.id, node.traversal_id, node.resource.id,
                               node.is_update, min(timeouts.SAFETY_POLL_SECONDS, left))


def _default_action(node: Node) -> Action:
    return Action.CREATE if node.is_update else Action.DELETE


def _park(node: Node, plugin: Any, handle: Any, start: Start | None, owner: str | None,
          event: str | None, timing: dict[str, float] | None = None) -> None:
    """Persist progress (and the IN_PROGRESS state if this step started the action) and
    release the lock, in one transaction. ``timing``: the poll's ``since`` and ``last``
    (:mod:`app.convergence.pacing`), stored beside the handle."""
    r = node.resource
    stored: dict[str, Any] = {"h": handle, "t": owner or node.traversal_id, **(timing or {})}
    if event is not None:
        stored["wait"] = event
    with session() as s:
        if start is not None:
            events.write_start(s, r, start.action, start.properties)
        s.connection().execute(SET_ROW, {"row_id": r.id, "handle": stored,
                            "physical_resource_id": plugin.resource_id,
                            "rsrc_data": plugin.data, "poll_attempt": r.next_attempt(start),
                            "engine_id": None, "updated_at": utcnow()})


def _successors(node: Node) -> list[NodeKey]:
    """The nodes this node reports to, as its sync point stores them."""
    return [(int(i), bool(u)) for i, u in node.stack.succ or ()]


def apply_many(items: list[tuple[Node, Outcome]]) -> list[Node]:
    """Apply the outcomes of a batch's steps (one traversal): every ``Done`` in one
    transaction (the writes of a wide fan-out's leaves, one commit instead of one each; their
    ready successors enqueued together), the others one by one as :func:`apply` does. If the
    shared transaction fails, nothing of it was written and each is applied alone.

    :returns: the nodes whose outcome raised (the caller releases and re-enqueues them)."""
    done = [(n, o) for n, o in items if isinstance(o, Done)]
    alone = [(n, o) for n, o in items if not isinstance(o, Done)]
    failed: list[Node] = []
    if len(done) > 1:
        try:
            prepared = [(n, _prepare(n, o)) for n, o in done]
            later = concurrent_writers()
            with session() as s:
                ended, by_node = _write_finished(s, prepared)
                events.add_events(s, [e for _, f in prepared for e in f.events])
                ready = [k for n, _ in prepared for k in by_node.get(n.key, ())]
                if ready:
                    _enqueue_after_commit(s, done[0][0].stack.id, done[0][0].traversal_id,
                                          ready)
                if ended and not later:
                    _count(s, done[0][0], len(ended))
            written, done = done, []
        except Exception:
            log.exception("a batch of %d finished steps could not be written at once; "
                          "writing them one by one", len(done))
        else:
            if ended and later:
                try:
                    count_committed(written[0][0], ended)
                except Exception:  # their steps, delivered again one by one, count them
                    log.exception("%d finished steps not counted; enqueued again", len(ended))
                    failed.extend(n for n, _ in written if n.key in set(ended))
    for n, o in [*done, *alone]:
        try:
            apply(n, o)
        except Exception:
            log.exception("outcome of resource %s failed", n.resource.id)
            failed.append(n)
    return failed


def _done(node: Node, d: Done) -> None:
    prepared = _prepare(node, d)
    if not concurrent_writers():
        _done_alone(node, prepared)
        return
    got = _GROUP.submit((node, prepared))
    if got is None:  # its batch could not be written: on its own, as before
        _done_alone(node, prepared)
        return
    ended, ready = got
    if ready:
        dispatch.get().check_resources(node.stack.id, node.traversal_id, ready)
    if not ended:
        ended_again(node)


def _done_alone(node: Node, prepared: _Finished) -> None:
    """Write one finished node in a transaction of its own (SQLite; or PostgreSQL after its
    group's transaction failed)."""
    later = concurrent_writers()
    with session() as s:
        ended, ready = _write_finished(s, [(node, prepared)])
        events.add_events(s, prepared.events)
        if ready:
            _enqueue_after_commit(s, node.stack.id, node.traversal_id, ready[node.key])
        if ended and not later:
            _count(s, node, len(ended))
    if ended and later:
        count_committed(node, ended)
    elif later:
        ended_again(node)


_Written = tuple[bool, list[NodeKey]] | None


def _write_group(items: list[tuple[Node, _Finished]]) -> list[_Written | BaseException]:
    """:data:`_GROUP`'s write (PostgreSQL): the finished nodes of one process that arrived
    together, one transaction per traversal (:func:`_write_finished`, their events in one
    insert), then one count of those that ended (:func:`count_committed`).

    :returns: per item ``(ended, ready successors)``; None where its traversal's transaction
        failed (the item is written on its own); an exception where it was written but not
        counted (raised in its step, whose next delivery counts it)."""
    out: list[_Written | BaseException] = [None] * len(items)
    parts: dict[tuple[str, str], list[int]] = {}
    for i, (n, _) in enumerate(items):
        parts.setdefault((n.stack.id, n.traversal_id), []).append(i)
    for idx in parts.values():
        part = [items[i] for i in idx]
        try:
            with session() as s:
                ended, ready = _write_finished(s, part)
                events.add_events(s, [e for _, f in part for e in f.events])
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
        done = set(ended)
        for i, (n, _) in zip(idx, part):
            out[i] = (n.key in done, ready.get(n.key, []))
    return out


#: The finished steps of this process that arrive together share a transaction
#: (:mod:`app.convergence.group_commit`)
_GROUP: GroupCommit[tuple[Node, _Finished], _Written] = GroupCommit(_write_group)


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
class _Finished:
    """What a finished node writes, computed before its transaction opens (SQLite has one
    writer: the time a transaction holds the write lock is the embedded default's limit)."""
    values: dict[str, Any]
    events: list[dict[str, Any]]
    data: Any


def _prepare(node: Node, d: Done) -> _Finished:
    r, is_update = node.resource, node.is_update
    pacing.finished(r, node.stack.action, node.is_update, node.looked)
    row_action = d.action or _default_action(node)
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
        rows.append(events.event_row(r.stack_id, r.name, r.physical_resource_id, r.type,
                                     d.start.action, Status.IN_PROGRESS, events.STATE_CHANGED))
    if d.record is Record.EVENT:
        rows.append(events.event_row(r.stack_id, r.name, values.get("physical_resource_id",
                                                                    r.physical_resource_id),
                                     r.type, row_action, Status.COMPLETE, d.reason))
    return _Finished(values, rows, data)


def _write_finished(s: Session, prepared: list[tuple[Node, _Finished]]
                    ) -> tuple[list[NodeKey], dict[NodeKey, list[NodeKey]]]:
    """Write finished nodes of one traversal in ``s`` (their events are the caller's to add):
    their DONE states in one statement, their rows in one ``executemany`` per shape, their
    successors' sync points in one more (:func:`syncpoints.report_all`). A node that had
    already ended (a redelivery) only has its lock released: nothing is counted and its
    events are dropped.

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
            traversal.release_lock(s, r.id)
            f.events.clear()
            continue
        ended.append(node.key)
        rows.setdefault(tuple(sorted(f.values)), []).append({"row_id": r.id, **f.values})
        key = r.name if is_update else f"R:{r.name}"  # a node may hear from F(x) and R(x)
        for sid, upd in _successors(node):
            reports.append((sid, upd, key, f.data if is_update and upd else None))
            reporter.setdefault((sid, upd), node.key)
    ready: dict[NodeKey, list[NodeKey]] = {}
    for succ in syncpoints.report_all(s, traversal_id, reports):
        ready.setdefault(reporter[succ], []).append(succ)
    for same_shape in rows.values():
        s.connection().execute(SET_ROW, same_shape)
    return ended, ready


def _enqueue_after_commit(s: Session, stack_id: str, traversal_id: str,
                          ready: list[NodeKey]) -> None:
    after_commit(s, lambda: dispatch.get().check_resources(stack_id, traversal_id, ready))


def _count(s: Session, node: Node, ended: int) -> None:
    pending = syncpoints.decrement(s, node.stack.id, node.traversal_id, ended)
    if pending == 0:
        traversal.finish(s, node.stack.id, node.traversal_id, node.loaded)


def _skip_descendants(s: Session, node: Node) -> int:
    """Skip every node reachable from ``node`` (the descendants computed once, by the pure
    plan); :returns: how many were still waiting. O(stack), on a failure only."""
    stored = syncpoints.graph(s, node.traversal_id, node.stack.id)
    succs = {k: [(int(i), bool(u)) for i, u in v] for k, v in stored.items()}
    blocked = graph.descendants(succs, node.key)
    return sum(syncpoints.skip(s, node.traversal_id, upd,
                               [int(i) for i, u in blocked if u == upd])
               for upd in (True, False))


def _failed(node: Node, f: Failed) -> None:
    r, is_update = node.resource, node.is_update
    row_action = f.action or _default_action(node)
    stack_action = f.stack_action or row_action
    values: dict[str, Any] = {"engine_id": None, "updated_at": utcnow()}
    if f.record is not Record.UNTOUCHED:
        values.update(action=row_action, status=Status.FAILED, status_reason=f.reason)
        if f.plugin is not None:
            if PROPS_BEFORE in f.plugin.data:  # what the failed update did not reach
                values["properties_data"] = f.plugin.data.pop(PROPS_BEFORE)
            values.update(physical_resource_id=f.plugin.resource_id, rsrc_data=f.plugin.data)
    if f.attr_data is not None:
        values["attr_data"] = f.attr_data
    with session() as s:
        if not syncpoints.mark_failed(s, node.traversal_id, is_update, r.id):
            traversal.release_lock(s, r.id)
            return
        if f.start is not None:
            events.write_start(s, r, f.start.action, f.start.properties)
        s.connection().execute(SET_ROW, {"row_id": r.id, **values})
        if f.record is not Record.UNTOUCHED:
            events.add_event(s, r.stack_id, r.name, r.physical_resource_id, r.type, row_action,
                             Status.FAILED, f.reason)
        events.add_events(s, list(f.events))
        skipped = _skip_descendants(s, node)
        s.connection().execute(update(Stack).where(Stack.id == node.stack.id,
                                      Stack.current_traversal == node.traversal_id,
                                      Stack.failed.is_(False))
                  .values(failed=True, status_reason=f"Resource {stack_action} failed: "
                                                     f"{f.stack_reason or f.reason}"))
        _count(s, node, 1 + skipped)


def reenqueue_successors(node: Node) -> None:
    """After a redelivery of a finished node: enqueue successors that fired but never finished
    (the crash came between commit and enqueue)."""
    succ = _successors(node)
    with session() as s:
        todo = [(i, upd) for upd in (True, False) for i in syncpoints.fired_not_done(
            s, node.traversal_id, upd, [i for i, u in succ if u == upd])]
    if todo:
        dispatch.get().check_resources(node.stack.id, node.traversal_id, todo)
