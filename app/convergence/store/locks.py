"""Resource locks by compare-and-swap, and their fencing.

A resource is held by one engine (worker process) at a time: ``engine_id`` is set from NULL by an
``UPDATE ... WHERE engine_id IS NULL`` that bumps ``atomic_key`` (Heat's convergence columns); a
lock whose holder's lease ran out (:mod:`app.convergence.store.lease`) is taken over by a second
compare-and-swap on ``(engine_id, atomic_key)``. The ``atomic_key`` a lock was taken at fences the
step: every transaction that writes what it did is conditioned on the lock being still ``(this
engine, token)`` (:func:`app.convergence.results.write_held`, :func:`hold`), so a step whose node
was taken over writes nothing. A lock naming this engine while none of its steps works on the
resource (:func:`working`) is an orphan left by a failed release: the next step here takes it
over (:func:`acquire`) and the heartbeat releases the orphans it knows of once the database answers.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping

from sqlalchemy import bindparam, select, tuple_, update
from sqlalchemy.orm import Session

from app import config, errors
from app.convergence.store.rows import changed, table
from app.models import Resource, WorkerHeartbeat, session, utcnow

log = logging.getLogger(__name__)
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


def has_orphans() -> bool:
    """Whether a step of this process may have left a lock behind (:func:`release_orphans`)."""
    return bool(_orphans)


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


RT = table(Resource)


def acquire(resource_id: int, may_be_dead: Callable[[str], bool]) -> bool | None:
    """Take the lock of ``resource_id`` for this engine. O(1) queries. ``may_be_dead(holder)``:
    whether a holder whose heartbeat is late may be taken over (the node store's).

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
        if last is not None and utcnow() - last < lease() \
                or not may_be_dead(holder):
            return False
        if changed(s.execute(update(RT).where(RT.c.id == resource_id, RT.c.engine_id == holder,
                                      RT.c.atomic_key == key)
                     .values(engine_id=me, atomic_key=key + 1))):
            log.warning("resource %s: its lock, held by %s whose lease ran out, taken over",
                        resource_id, holder)
            return None  # taken over from a dead engine: its last writes may be newer
        return False


def running_here(engine: str) -> bool:
    """Whether ``engine`` (``host:pid``) is a process of this host that runs. On SQLite (one
    host, one writer) a heartbeat waits its turn behind every other write, and under a burst
    it may come late from a live engine: there, only an engine that does not run is dead (on
    PostgreSQL a heartbeat has a connection of its own, and a late one means a dead, stopped or
    cut-off engine). A stopped (SIGSTOP), traced or zombie process, one that is gone, or one of
    another host is not known to run. Linux's ``/proc/<pid>/stat``; elsewhere, never."""
    host, _, pid = engine.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            state = f.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("T", "t", "Z", "X", "x")


def lease() -> dt.timedelta:
    """How old an engine's last heartbeat may be while it lives (``engine_lease_seconds``)."""
    return dt.timedelta(seconds=config.get().engine_lease_seconds)


def release(resource_id: int, key: int | None = None) -> None:
    """Release this engine's lock of ``resource_id`` — at fencing token ``key`` when given (a
    no-op if another engine took it over, or its key moved on)."""
    with session() as s:
        release_in(s, resource_id, key)


def release_in(s: Session, resource_id: int, key: int | None) -> None:
    """:func:`release` in the caller's transaction ``s``."""
    where = [RT.c.id == resource_id, RT.c.engine_id == engine_id()]
    if key is not None:
        where.append(RT.c.atomic_key == key)
    s.execute(update(RT).where(*where).values(engine_id=None))


#: Of several ``(id, atomic_key)``, the rows still locked by engine ``eid`` at that key, row
#: locked until the transaction ends on PostgreSQL (built once)
_HELD = (select(RT.c.id).where(tuple_(RT.c.id, RT.c.atomic_key)
                               .in_(bindparam("keys", expanding=True)),
                               RT.c.engine_id == bindparam("eid"))
         .with_for_update())


def held(s: Session, tokens: Mapping[int, int]) -> set[int]:
    """Of ``{resource id: fencing token}``, the resources whose locks this engine still holds
    at their tokens, in transaction ``s``; on PostgreSQL their rows stay locked until it ends
    (a takeover waits for it, then finds the lock released). One statement.
    Those left out lost their lease: the caller writes nothing of theirs."""
    if not tokens:
        return set()
    return set(s.connection().execute(_HELD, {"keys": list(tokens.items()),
                                              "eid": engine_id()}).scalars())


def hold(s: Session, resource_id: int, key: int) -> None:
    """Check in transaction ``s`` that this engine still holds ``resource_id``'s lock at
    fencing token ``key`` (:func:`held`).

    :raises LeaseLost: it does not (the caller's transaction must write nothing)."""
    if not held(s, {resource_id: key}):
        raise errors.LeaseLost(f"resource {resource_id}: lock lost at key {key}")
