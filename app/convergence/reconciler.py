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
from app.convergence import dispatch, timeouts, traversal
from app.engine.states import NodeState, Status
from app.models import (
    Resource,
    Stack,
    SyncPoint,
    WorkerHeartbeat,
    concurrent_writers,
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
    stale = utcnow() - dt.timedelta(seconds=settings.lock_stale_seconds)
    # a waiting node's own safety poll comes every SAFETY_POLL_SECONDS: missing two, it is lost
    parked = utcnow() - dt.timedelta(seconds=2 * timeouts.SAFETY_POLL_SECONDS
                                     + settings.reconcile_after_seconds)
    with read_session() as s:
        live = set(s.execute(select(WorkerHeartbeat.engine_id)
                             .where(WorkerHeartbeat.last_seen >= stale)).scalars())
        wanted = SyncPoint.state == NodeState.FIRED
        if concurrent_writers():  # PostgreSQL counts a node after its commit: a process that
            # died in between, with its message lost too, left it finished but not counted
            wanted = wanted | ((SyncPoint.state == NodeState.DONE) & SyncPoint.counted.is_(False))
        rows = s.execute(
            select(Stack.id, Stack.current_traversal, SyncPoint.entity_id, SyncPoint.is_update,
                   SyncPoint.state, Resource.engine_id, Resource.updated_at,
                   Resource.created_at, Resource.handle)
            .join(SyncPoint, (SyncPoint.stack_id == Stack.id)
                  & (SyncPoint.traversal_id == Stack.current_traversal))
            .join(Resource, Resource.id == SyncPoint.entity_id)
            .where(Stack.status == Status.IN_PROGRESS, wanted)).all()
        settled = list(s.execute(select(Stack.id, Stack.current_traversal).where(
            Stack.status == Status.IN_PROGRESS, Stack.pending_nodes <= 0,
            Stack.traversal_started_at < idle)).all())
    n = 0
    for r in rows:
        touched = r.updated_at or r.created_at
        if r.state == NodeState.DONE:  # its step, delivered again, counts it
            abandoned = touched < idle
        else:
            abandoned = (r.engine_id is None or r.engine_id not in live) \
                and touched < (parked if _waiting(r.handle) else idle)
        if abandoned:
            dispatch.get().check_resource(r.id, r.current_traversal, r.entity_id, r.is_update)
            n += 1
    for r in settled:  # every node counted, and the process finishing it died
        try:
            with session() as ws:
                traversal.finish(ws, r.id, r.current_traversal, None)
        except Exception:  # the others still get theirs
            log.exception("stack %s: finishing traversal %s failed", r.id, r.current_traversal)
    return n + len(settled)


def _waiting(handle: Any) -> bool:
    """A node parked by a ``Wait``: its event or its safety poll wakes it; the reconciler
    only when both were lost."""
    return isinstance(handle, dict) and "wait" in handle
