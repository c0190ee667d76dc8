"""Engine leases: heartbeats, and the sweep that takes a dead engine's work over.

Each engine (worker process, ``host:pid``) writes its heartbeat (``worker_heartbeat``) every
``heartbeat_seconds`` (1 s; from a native thread under gevent); one whose heartbeat is older
than ``engine_lease_seconds`` (5 s) has lost its lease. Every live engine sweeps once a beat
(:func:`sweep`): it claims each dead engine's heartbeat row, takes its resource locks back
(``atomic_key`` + 1 voids its fencing tokens) and re-enqueues the in-flight nodes no live
engine holds. Heat pings an engine within ``engine_life_check_timeout`` (2 s); here the
database holds the answer. The details: docs/code/convergence.md.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite

from app import config
from app.convergence import reconciler
from app.convergence.store import definitions, locks, nodes
from app.models import (
    WorkerHeartbeat,
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
#: the running heartbeat's generation: a thread whose generation is not this one stops
_generation = 0
_wake = threading.Event()
_thread: threading.Thread | None = None
#: monotonic s since which this engine's heartbeats have reached the database without a break
#: (None: the last one failed; 0.0: none ever failed)
_ok_since: float | None = 0.0


def beat(engine: Engine | None = None) -> None:
    """Write this engine's heartbeat now (an upsert), on ``engine`` (default: the process's).
    On PostgreSQL it is stamped with the server's clock when the write runs: a beat sent just
    before its link was cut and delivered when it came back is not a stale one."""
    me = locks.engine_id()

    def upsert(dialect: str) -> Any:
        now: Any = func.timezone("UTC", func.clock_timestamp()) if dialect == "postgresql" \
            else utcnow()
        ins: Any = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(
            WorkerHeartbeat).values(engine_id=me, last_seen=now)
        return ins.on_conflict_do_update(index_elements=["engine_id"], set_={"last_seen": now})

    if engine is not None:
        with engine.begin() as c:
            c.execute(upsert(engine.dialect.name))
        return
    with session() as s:
        s.execute(upsert(s.get_bind().dialect.name))


def _beaten(ok: bool, took: float = 0.0) -> None:
    """Note a heartbeat of this engine: written (``ok``) in ``took`` s, or not. One that took
    longer than the lease counts as a break (it was late by the time it landed)."""
    global _ok_since
    if not ok or took >= config.get().engine_lease_seconds:
        _ok_since = None
    elif _ok_since is None:
        _ok_since = time.monotonic()


def trusted() -> bool:
    """Whether this engine's own heartbeats have reached the database without a break for a
    whole lease (or never failed). Only then does another engine's stale heartbeat say that it
    died: after an outage of the database (or of this engine's link to it) every engine's
    heartbeat is stale, live ones included, until each has beaten again."""
    since = _ok_since
    return since is not None and time.monotonic() - since >= config.get().engine_lease_seconds


def sweep() -> int:
    """Take over the work of every engine whose lease ran out (see the module): its heartbeat
    row deleted, its locks cleared with their keys moved on, the in-flight nodes no live engine
    holds re-enqueued; nothing while this engine's own heartbeats are not :func:`trusted`.
    O(dead engines' locks + in-flight nodes) when an engine died, one read of the heartbeat
    table otherwise. :returns: how many engines were taken over."""
    if not trusted():
        return 0
    cutoff = utcnow() - locks.lease()
    me, store = locks.engine_id(), nodes.current()
    with read_session() as s:
        dead = [e for e in s.execute(select(WorkerHeartbeat.engine_id).where(
            WorkerHeartbeat.last_seen < cutoff, WorkerHeartbeat.engine_id != me)).scalars()
            if store.may_be_dead(e)]
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
        sent = 0 if store.one_writer else reconciler.enqueue_in_flight()
    if store.one_writer:
        sent = reconciler.enqueue_in_flight()
    log.warning("engines %s lost their lease: %d resource locks taken back, %d in-flight "
                "steps enqueued again", ", ".join(sorted(claimed)), len(freed), sent)
    return len(claimed)


def ensure_heartbeat() -> None:
    """Start (once per process; again after a fork) the heartbeat and the sweep: a native
    thread beating every ``heartbeat_seconds`` under gevent, and a thread (a greenlet under
    gevent) that beats otherwise, sweeps (:func:`sweep`) and releases orphaned locks
    (:func:`locks.release_orphans`)."""
    global _started_pid, _thread
    if _started_pid == os.getpid():
        return
    with _start_lock:
        if _started_pid == os.getpid():
            return
        beat()
        native = _native_starter()
        if native is not None:
            native(_native_beats, (_generation,))
        _started_pid = os.getpid()
        _wake.clear()
        _thread = threading.Thread(target=_loop, args=(native is None, _generation),
                                   name="stoker-lease", daemon=True)
        _thread.start()


def stop(timeout: float = 5.0) -> None:
    """Stop this process's heartbeat and sweep (a worker shutting down; a process switching
    databases): the threads end within a beat, the sweep thread waited for up to ``timeout``
    s; the next :func:`ensure_heartbeat` starts them again. The lease itself runs out
    ``engine_lease_seconds`` later, when another engine's sweep takes what is left over."""
    global _started_pid, _generation, _thread
    with _start_lock:
        if _started_pid != os.getpid():
            return
        _generation += 1
        _started_pid = None
        _wake.set()
        thread, _thread = _thread, None
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)


def release() -> bool:
    """A clean stop (a worker's warm shutdown, its steps finished): :func:`stop`, then delete
    this engine's heartbeat row unless it still holds a resource lock, so that no other engine
    reads the stop as a death (and warns that the lease was lost). One read and one delete.
    :returns: whether the row was deleted (False: locks held, left to the sweep)."""
    stop()
    me = locks.engine_id()
    with session() as s:
        if s.execute(select(RT.c.id).where(RT.c.engine_id == me).limit(1)).first() is not None:
            return False
        s.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.engine_id == me))
    return True


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


def _native_beats(generation: int) -> None:
    """The heartbeat on a native thread (under gevent), on its own engine, until
    :func:`stop`."""
    from gevent import monkey
    pause: Callable[[float], None] = monkey.get_original("time", "sleep")
    engine = side_engine()
    period = float(config.get().heartbeat_seconds)
    while True:
        pause(period)
        if generation != _generation:
            return
        _timed_beat(engine)


def _timed_beat(engine: Engine | None) -> None:
    """:func:`beat`, noted (:func:`_beaten`); a failure is logged, not raised."""
    started = time.monotonic()
    try:
        beat(engine)
    except Exception:  # the database may be briefly unavailable; beat again soon
        _beaten(False)
        log.debug("heartbeat not written", exc_info=True)
        return
    _beaten(True, time.monotonic() - started)


def _loop(beats: bool, generation: int) -> None:
    period = float(config.get().heartbeat_seconds)
    due = time.monotonic() + period
    while True:
        _wake.wait(ORPHAN_RETRY_SECONDS if locks.has_orphans()
                   else max(0.0, due - time.monotonic()))
        if generation != _generation:
            return
        try:
            locks.release_orphans()
            if time.monotonic() >= due:
                due = time.monotonic() + period
                if beats:
                    _timed_beat(None)
                sweep()
                definitions.drop_idle()
        except Exception:  # the database or the broker may be briefly unavailable
            log.debug("lease sweep failed; again at the next beat", exc_info=True)
