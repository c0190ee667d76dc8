"""Resource locks by compare-and-swap, and worker heartbeats.

A resource is held by one engine (worker process) at a time: ``engine_id`` is set from NULL by
an ``UPDATE ... WHERE engine_id IS NULL`` that bumps ``atomic_key`` (Heat's convergence uses the
same two columns). A lock whose holder has not written a heartbeat for ``lock_stale_seconds`` is
taken over by a second compare-and-swap on ``(engine_id, atomic_key)`` — that is how a SIGKILLed
worker's resources are recovered when its tasks are redelivered.

A lock is held only while a step of this process works on its resource (:func:`working`
marks that span, from before the lock is taken to after it is let go). A lock that names this
engine while no step of it works on the resource was left behind: its release failed (the
database went away under the step). Such a lock is an orphan: the next step of the resource
in this process takes it over at once (:func:`acquire`), and the heartbeat thread releases the
orphans it knows of as soon as the database answers again, so that a step on another engine
is not held off by this live engine's heartbeat.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite

from app import config
from app.convergence.rows import changed, table
from app.models import Resource, WorkerHeartbeat, session, utcnow

log = logging.getLogger(__name__)
_hb_thread: threading.Thread | None = None
_hb_pid: int | None = None
#: s between two looks for orphaned locks to release (when there are any)
ORPHAN_RETRY_SECONDS = 0.5
#: Resources a step of this process works on now (how many steps each), and resources whose
#: lock a step may have left behind; both guarded by ``_registry``
_working: Counter[int] = Counter()
_orphans: set[int] = set()
_releasing: set[int] = set()
_registry = threading.Lock()


@contextlib.contextmanager
def working(resource_ids: list[int]) -> Iterator[None]:
    """Mark the span in which a step of this process may hold the locks of ``resource_ids``
    (taking them, working, releasing them). Leaving it with an exception notes them as
    possible orphans: :func:`release_orphans` lets go of those still held by this engine
    while no step works on them."""
    with _registry:
        _working.update(resource_ids)
    failed = False
    try:
        yield
    except BaseException:
        failed = True
        raise
    finally:
        with _registry:
            _working.subtract(resource_ids)
            for rid in resource_ids:
                if _working[rid] <= 0:
                    del _working[rid]
            if failed:
                _orphans.update(resource_ids)


def release_orphans() -> int:
    """Release the locks this engine left behind (:func:`working`) that no step of it works
    on now; :returns: how many were released. While the statement runs, a step of this
    process does not take one of them over (:func:`acquire` waits); no mutex is held across
    it (a step may be inside a transaction of SQLite's single writer).

    :raises Exception: the database error (they are kept for the next try)."""
    with _registry:
        _orphans.difference_update(_working)
        todo = sorted(_orphans)
        _releasing.update(todo)
    if not todo:
        return 0
    try:
        with session() as s:
            n = changed(s.execute(update(RT).where(RT.c.id.in_(todo), RT.c.engine_id == engine_id())
                                  .values(engine_id=None)))
        with _registry:
            _orphans.difference_update(todo)
    finally:
        with _registry:
            _releasing.difference_update(todo)
    if n:
        log.warning("released %d resource locks left behind by failed steps", n)
    return n


def engine_id() -> str:
    """This process's engine id, ``host:pid`` (recomputed after a fork)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def beat() -> None:
    """Write this engine's heartbeat now (an upsert: safe from any thread)."""
    me, now = engine_id(), utcnow()
    with session() as s:
        ins: Any = (postgresql.insert if s.get_bind().dialect.name == "postgresql"
                    else sqlite.insert)(WorkerHeartbeat).values(engine_id=me, last_seen=now)
        s.execute(ins.on_conflict_do_update(index_elements=["engine_id"],
                                            set_={"last_seen": now}))


_hb_lock = threading.Lock()


def ensure_heartbeat() -> None:
    """Start (once per process) a daemon thread that beats every ``heartbeat_seconds``."""
    if _hb_thread is not None and _hb_pid == os.getpid():
        return
    with _hb_lock:
        if _hb_thread is not None and _hb_pid == os.getpid():
            return
        _start_heartbeat()


def _start_heartbeat() -> None:
    global _hb_thread, _hb_pid
    beat()
    period = config.get().heartbeat_seconds

    def loop() -> None:
        due = time.monotonic() + period
        while True:
            time.sleep(ORPHAN_RETRY_SECONDS if _orphans else max(0.0, due - time.monotonic()))
            try:
                if _orphans:
                    release_orphans()
                if time.monotonic() >= due:
                    due = time.monotonic() + period
                    beat()
            except Exception:  # the database may be briefly unavailable; try again soon
                pass

    _hb_pid = os.getpid()
    _hb_thread = threading.Thread(target=loop, name="stoker-heartbeat", daemon=True)
    _hb_thread.start()


RT = table(Resource)


def acquire(resource_id: int) -> bool | None:
    """Take the lock of ``resource_id`` for this engine. O(1) queries.

    :returns: True if it was free and is now taken; None if it was taken over from an engine
        whose heartbeat is stale (its last writes may be newer than the caller's copy: re-read);
        False if a live engine holds it (the caller re-enqueues itself with a countdown).
    """
    me = engine_id()
    with session() as s:
        if changed(s.execute(update(RT).where(RT.c.id == resource_id, RT.c.engine_id.is_(None))
                             .values(engine_id=me, atomic_key=RT.c.atomic_key + 1))):
            return True
        row = s.execute(select(Resource.engine_id, Resource.atomic_key)
                        .where(Resource.id == resource_id)).first()
        if row is None or row.engine_id is None:
            return False  # gone, or released meanwhile: retry later
        holder, key = row.engine_id, row.atomic_key
        if holder == me:
            with _registry:
                if _working[resource_id] > 1 or resource_id in _releasing:
                    return False  # another step of this process holds it, or it is let go
            # left behind by a step of this process that failed: taken over at its key
            if not changed(s.execute(update(RT).where(
                    RT.c.id == resource_id, RT.c.engine_id == me, RT.c.atomic_key == key)
                    .values(atomic_key=key + 1))):
                return False
            log.warning("resource %s: its lock, left behind by a failed step of this engine, "
                        "taken over", resource_id)
            return None
        last = s.execute(select(WorkerHeartbeat.last_seen)
                         .where(WorkerHeartbeat.engine_id == holder)).scalar()
        stale_after = dt.timedelta(seconds=config.get().lock_stale_seconds)
        if last is not None and utcnow() - last < stale_after:
            return False
        if changed(s.execute(update(RT).where(RT.c.id == resource_id, RT.c.engine_id == holder,
                                      RT.c.atomic_key == key)
                     .values(engine_id=me, atomic_key=key + 1))):
            return None  # taken over from a dead engine: its last writes may be newer
        return False


def release(resource_id: int) -> None:
    """Release this engine's lock of ``resource_id`` (no-op if another engine took it over)."""
    with session() as s:
        s.execute(update(RT).where(RT.c.id == resource_id, RT.c.engine_id == engine_id())
                  .values(engine_id=None))
