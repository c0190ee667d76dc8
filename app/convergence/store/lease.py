"""Engine leases: heartbeats, and the sweep that takes a dead engine's work over.

Each engine (worker process, ``host:pid``) writes its heartbeat (``worker_heartbeat``) every
``heartbeat_seconds`` (1 s); one whose heartbeat is older than ``engine_lease_seconds`` (5 s)
has lost its lease: it died, or was stopped or frozen for that long. Under gevent (the workers'
pool on PostgreSQL) the heartbeat is written by a native thread on a connection of its own
(:func:`app.models.side_engine`), so a greenlet that keeps the CPU does not starve it: only a
process that makes no progress at all loses its lease. Heat checks an engine's liveness by an
RPC ping answered within ``engine_life_check_timeout`` (2 s); here the database holds the
answer.

Every live engine sweeps once a heartbeat (:func:`sweep`): it claims each dead engine by
deleting its heartbeat row (``DELETE ... WHERE last_seen < cutoff RETURNING``: of several
sweepers, the row lock lets one win), and in the same transaction takes the dead engine's
resource locks back (``engine_id`` := NULL, ``atomic_key`` + 1: its fencing tokens are void,
:mod:`app.convergence.store.locks`), then re-enqueues every node of an in-progress traversal that
fired and that no live engine holds (:func:`app.convergence.reconciler.enqueue_in_flight`):
the steps it ran, and the polls and continued steps whose messages it held (the broker gives
those back only after ``visibility_timeout``). On PostgreSQL they are sent before the commit,
so a sweeper that dies leaves the row for the next (on SQLite after it: its one writer is not
held while the broker takes them); a node enqueued twice runs once (DESIGN.md, invariant 1).
On SQLite an engine of this host whose process runs is not dead, however late its heartbeat
(:func:`app.convergence.store.locks.running_here`). A node of the dead engine therefore runs again within a lease, a heartbeat and a
hop of its death. The workers sweep, not beat: beat is one process and may die with them, and
a worker sweeps as soon as it starts (both workers killed and restarted).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from app import config
from app.convergence import reconciler
from app.convergence.store import locks
from app.models import (
    WorkerHeartbeat,
    concurrent_writers,
    read_session,
    session,
    side_engine,
    utcnow,
)

log = logging.getLogger(__name__)
RT = locks.RT
#: s between two looks for orphaned locks to release (when there are any)
ORPHAN_RETRY_SECONDS = 0.5
_started_pid: int | None = None
_start_lock = threading.Lock()


def beat(engine: Engine | None = None) -> None:
    """Write this engine's heartbeat now (an upsert), on ``engine`` (default: the process's)."""
    me, now = locks.engine_id(), utcnow()

    def upsert(dialect: str) -> Any:
        ins: Any = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(
            WorkerHeartbeat).values(engine_id=me, last_seen=now)
        return ins.on_conflict_do_update(index_elements=["engine_id"], set_={"last_seen": now})

    if engine is not None:
        with engine.begin() as c:
            c.execute(upsert(engine.dialect.name))
        return
    with session() as s:
        s.execute(upsert(s.get_bind().dialect.name))


def sweep() -> int:
    """Take over the work of every engine whose lease ran out (see the module): its heartbeat
    row deleted, its locks cleared with their keys moved on, the in-flight nodes no live engine
    holds re-enqueued. O(dead engines' locks + in-flight nodes) when an engine died, one read
    of the heartbeat table otherwise. :returns: how many engines were taken over."""
    cutoff = utcnow() - locks.lease()
    me = locks.engine_id()
    with read_session() as s:
        dead = [e for e in s.execute(select(WorkerHeartbeat.engine_id).where(
            WorkerHeartbeat.last_seen < cutoff, WorkerHeartbeat.engine_id != me)).scalars()
            if concurrent_writers() or not locks.running_here(e)]
    if not dead:
        return 0
    with session() as s:
        claimed = list(s.execute(delete(WorkerHeartbeat).where(
            WorkerHeartbeat.engine_id.in_(dead), WorkerHeartbeat.last_seen < cutoff)
            .returning(WorkerHeartbeat.engine_id)).scalars())
        if not claimed:
            return 0  # another engine's sweep took them, or they beat again
        freed = list(s.execute(update(RT).where(RT.c.engine_id.in_(claimed))
                               .values(engine_id=None, atomic_key=RT.c.atomic_key + 1)
                               .returning(RT.c.id)).scalars())
        # PostgreSQL: sent before the commit (a sweeper that dies leaves the rows for the
        # next); SQLite: after it, not holding its single writer while the broker takes them
        sent = reconciler.enqueue_in_flight() if concurrent_writers() else 0
    if not concurrent_writers():
        sent = reconciler.enqueue_in_flight()
    log.warning("engines %s lost their lease: %d resource locks taken back, %d in-flight "
                "steps enqueued again", ", ".join(sorted(claimed)), len(freed), sent)
    return len(claimed)


def ensure_heartbeat() -> None:
    """Start (once per process; again after a fork) the heartbeat and the sweep: a native
    thread beating every ``heartbeat_seconds`` under gevent, and a thread (a greenlet under
    gevent) that beats otherwise, sweeps (:func:`sweep`) and releases orphaned locks
    (:func:`locks.release_orphans`)."""
    global _started_pid
    if _started_pid == os.getpid():
        return
    with _start_lock:
        if _started_pid == os.getpid():
            return
        beat()
        native = _native_starter()
        if native is not None:
            native(_native_beats, ())
        _started_pid = os.getpid()
        threading.Thread(target=_loop, args=(native is None,), name="stoker-lease",
                         daemon=True).start()


def _native_starter() -> Callable[..., Any] | None:
    """``_thread.start_new_thread`` as it was before gevent patched it, when it did."""
    try:
        from gevent import monkey  # type: ignore[import-untyped]
    except ImportError:
        return None
    if not monkey.is_module_patched("threading"):
        return None
    starter: Callable[..., Any] = monkey.get_original("_thread", "start_new_thread")
    return starter


def _native_beats() -> None:
    """The heartbeat on a native thread (under gevent), on its own engine."""
    from gevent import monkey
    pause: Callable[[float], None] = monkey.get_original("time", "sleep")
    engine = side_engine()
    period = float(config.get().heartbeat_seconds)
    while True:
        pause(period)
        try:
            beat(engine)
        except Exception:  # the database may be briefly unavailable; beat again soon
            log.debug("heartbeat not written", exc_info=True)


def _loop(beats: bool) -> None:
    period = float(config.get().heartbeat_seconds)
    due = time.monotonic() + period
    while True:
        time.sleep(ORPHAN_RETRY_SECONDS if locks.has_orphans()
                   else max(0.0, due - time.monotonic()))
        try:
            locks.release_orphans()
            if time.monotonic() >= due:
                due = time.monotonic() + period
                if beats:
                    beat()
                sweep()
        except Exception:  # the database or the broker may be briefly unavailable
            log.debug("lease sweep failed; again at the next beat", exc_info=True)
