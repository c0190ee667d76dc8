"""Resource locks by compare-and-swap, and worker heartbeats.

A resource is held by one engine (worker process) at a time: ``engine_id`` is set from NULL by
an ``UPDATE ... WHERE engine_id IS NULL`` that bumps ``atomic_key`` (Heat's convergence uses the
same two columns). A lock whose holder has not written a heartbeat for ``lock_stale_seconds`` is
taken over by a second compare-and-swap on ``(engine_id, atomic_key)`` — that is how a SIGKILLed
worker's resources are recovered when its tasks are redelivered.
"""
from __future__ import annotations

import datetime as dt
import os
import socket
import threading
import time
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite

from app import config
from app.convergence.rows import changed, table
from app.models import Resource, WorkerHeartbeat, session, utcnow

_hb_thread: threading.Thread | None = None
_hb_pid: int | None = None


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
        while True:
            time.sleep(period)
            try:
                beat()
            except Exception:  # the database may be briefly unavailable; try again next period
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
            return False  # another thread of this process holds it
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
