"""The reconciler and the timeout sweep, run periodically by Celery beat.

The database is the truth (DESIGN.md, invariant 6): if Redis loses messages (flushed, restarted),
the reconciler finds nodes that fired but show no activity and enqueues them again; the engine's
guards make a duplicate harmless.
"""
from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import select

from app import config
from app.convergence import runtime, timeouts, traversal
from app.convergence.dispatch import NodeKey
from app.convergence.store import locks
from app.convergence.store import nodes as node_store
from app.engine.states import NodeState, Status
from app.models import (
    Resource,
    Stack,
    SyncPoint,
    WorkerHeartbeat,
    read_session,
    session,
    utcnow,
)

log = logging.getLogger(__name__)


def check_timeouts() -> int:
    """Fail every traversal that has run longer than its stack's timeout. :returns: how many."""
    now = utcnow()
    with read_session() as s:
        rows = s.execute(select(Stack.id, Stack.current_traversal, Stack.timeout_mins,
                                Stack.traversal_started_at)
                         .where(Stack.status == Status.IN_PROGRESS)).all()
    n = 0
    for r in rows:
        if r.traversal_started_at and timeouts.seconds_left(
                timeouts.deadline_at(r.traversal_started_at, r.timeout_mins), now) < 0:
            traversal.stack_timeout(r.id, r.current_traversal)
            n += 1
    return n


def reconcile() -> int:
    """Re-enqueue fired nodes of in-progress traversals that look abandoned: not locked by a live
    engine and not touched for ``reconcile_after_seconds``; on PostgreSQL also finished nodes
    never counted; finish traversals whose count is settled but that never finished.
    :returns: how many nodes were enqueued and traversals finished."""
    settings = config.get()
    idle = utcnow() - dt.timedelta(seconds=settings.reconcile_after_seconds)
    # a waiting node's own safety poll comes every SAFETY_POLL_SECONDS: missing two, it is lost
    parked = utcnow() - dt.timedelta(seconds=2 * timeouts.SAFETY_POLL_SECONDS
                                     + settings.reconcile_after_seconds)
    n = _enqueue_idle(idle, parked)
    with read_session() as s:
        settled = list(s.execute(select(Stack.id, Stack.current_traversal).where(
            Stack.status == Status.IN_PROGRESS, Stack.pending_nodes <= 0,
            Stack.traversal_started_at < idle)).all())
    for r in settled:  # every node counted, and the process finishing it died
        try:
            with session() as ws:
                traversal.finish(ws, r.id, r.current_traversal, None)
        except Exception:  # the others still get theirs
            log.exception("stack %s: finishing traversal %s failed", r.id, r.current_traversal)
    return n + len(settled)


def redrive() -> int:
    """Re-enqueue at once, with no idle threshold, every fired node of an in-progress
    traversal that no live engine holds, waiting ones too, and on PostgreSQL every finished
    node not counted yet: what the broker may have lost when it restarted empty, was
    flushed, or could take no message for a while (a step's successors, a poll, the first
    steps of an operation the API accepted then). A node whose message survived runs twice:
    its step is idempotent (DESIGN.md, invariant 1) and finds it locked or ended.
    O(in-flight nodes). :returns: how many were enqueued."""
    n = enqueue_in_flight()
    if n:
        log.warning("re-enqueued %d in-flight steps after the broker's return", n)
    return n


def enqueue_in_flight() -> int:
    """Enqueue at once every fired node of an in-progress traversal that no live engine
    holds, waiting ones too, and on PostgreSQL every finished node not counted yet
    (:func:`redrive`'s set; also what an engine whose lease ran out may have held the messages
    of, :mod:`app.convergence.store.lease`). O(in-flight nodes). :returns: how many."""
    now = utcnow()
    return _enqueue_idle(now, now)


def _enqueue_idle(idle: dt.datetime, parked: dt.datetime) -> int:
    """Enqueue the nodes of in-progress traversals that fired (or finished, not counted, on
    PostgreSQL) and whose resources no live engine holds and nobody touched since ``idle``
    (``parked`` for a node waiting for an event). :returns: how many."""
    stale = utcnow() - locks.lease()
    with read_session() as s:
        live = set(s.execute(select(WorkerHeartbeat.engine_id)
                             .where(WorkerHeartbeat.last_seen >= stale)).scalars())
        wanted = node_store.current().in_flight()
        rows = s.execute(
            select(Stack.id, Stack.current_traversal, SyncPoint.entity_id, SyncPoint.is_update,
                   SyncPoint.state, Resource.engine_id, Resource.updated_at,
                   Resource.created_at, Resource.handle)
            .join(SyncPoint, (SyncPoint.stack_id == Stack.id)
                  & (SyncPoint.traversal_id == Stack.current_traversal))
            .join(Resource, Resource.id == SyncPoint.entity_id)
            .where(Stack.status == Status.IN_PROGRESS, wanted)).all()
    todo: dict[tuple[str, str], list[NodeKey]] = {}
    for r in rows:
        touched = r.updated_at or r.created_at
        if r.state == NodeState.DONE:  # its step, delivered again, counts it
            abandoned = touched <= idle
        else:
            abandoned = (r.engine_id is None or r.engine_id not in live) \
                and touched <= (parked if _waiting(r.handle) else idle)
        if abandoned:
            todo.setdefault((r.id, r.current_traversal), []).append(
                (r.entity_id, bool(r.is_update)))
    for (stack_id, traversal_id), nodes in todo.items():  # a wide one in batched messages
        runtime.dispatcher().check_resources(stack_id, traversal_id, nodes)
    return sum(len(nodes) for nodes in todo.values())


def unsettled_after(stack_id: str, traversal_id: str, node: NodeKey, limit: int) -> list[NodeKey]:
    """The nodes after ``node`` in its traversal that ended but whose end may not have been
    followed through, for a step of ``node`` delivered again to run once more (each step of a
    node that had ended counts it and enqueues its successors that fired,
    :func:`app.convergence.outcome.ended_again`): the DONE nodes reached from ``node`` through
    DONE nodes, depth first in successor order, that have a FIRED successor (its enqueue may
    have been lost) or, on PostgreSQL, were not counted yet. ``node`` itself is not included
    (its own step repeated that).

    At most ``limit`` DONE nodes are visited, one query each: O(limit); beyond is the
    reconciler's. Nothing when the traversal is no longer current, or has ended. Why:
    docs/code/tasks.md (app.tasks.dispatcher.Continuation).

    :returns: those nodes, ``(resource id, is_update)``, in the walk's order."""
    counts = node_store.current().counts_after_commit  # else counted in its own transaction
    found: list[NodeKey] = []
    with read_session() as s:
        c = s.connection()

        def after(succ: Any) -> list[tuple[NodeKey, Any]]:
            keys = [(int(i), bool(u)) for i, u in succ or ()]
            if not keys:
                return []
            rows = {(r.entity_id, bool(r.is_update)): r for r in c.execute(
                select(SyncPoint.entity_id, SyncPoint.is_update, SyncPoint.state,
                       SyncPoint.counted, SyncPoint.succ)
                .where(SyncPoint.stack_id == stack_id, SyncPoint.traversal_id == traversal_id,
                       SyncPoint.entity_id.in_(sorted({rid for rid, _ in keys}))))}
            return [(k, rows[k]) for k in keys if k in rows]

        root = c.execute(select(SyncPoint.succ).join(Stack, Stack.id == SyncPoint.stack_id).where(
            Stack.id == stack_id, Stack.current_traversal == traversal_id,
            Stack.status == Status.IN_PROGRESS, SyncPoint.traversal_id == traversal_id,
            SyncPoint.entity_id == node[0], SyncPoint.is_update == node[1])).scalar()
        seen = {node}
        todo: list[tuple[NodeKey, Any, bool]] = [(node, root, True)]
        for _ in range(limit + 1):  # ``node``, then at most ``limit`` DONE nodes
            if not todo:
                break
            key, succ, counted = todo.pop()
            children = after(succ)
            if key != node and (not counted or any(r.state == NodeState.FIRED
                                                   for _, r in children)):
                found.append(key)
            for k, r in reversed(children):
                if r.state == NodeState.DONE and k not in seen:
                    seen.add(k)
                    todo.append((k, r.succ, bool(r.counted) or not counts))
    return found


def _waiting(handle: Any) -> bool:
    """A node parked by a ``Wait``: its event or its safety poll wakes it; the reconciler
    only when both were lost."""
    return isinstance(handle, dict) and "wait" in handle
