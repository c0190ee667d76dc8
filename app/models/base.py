"""SQLAlchemy 2 declarative base, column types, the process's engine and its sessions.

One engine per process, installed by :func:`init` from ``Settings.database_url`` (engines are
made by :mod:`app.models.connect`). On SQLite every transaction starts with ``BEGIN IMMEDIATE``
and the processes take turns through one writer lock, so that the compare-and-swap updates of
the engine serialise cleanly across the API and worker processes. PostgreSQL uses READ
COMMITTED with row locks taken by ``UPDATE ... RETURNING``.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import JSON, DateTime, create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.types import TypeDecorator

from app.models.connect import make_engine, pg_connect_args


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def isotime(value: dt.datetime | None) -> str | None:
    """Heat's ``timeutils.isotime``: ``2026-11-29T08:06:07Z`` for a naive-UTC (or aware)
    datetime; ``None`` stays ``None``."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    if value.year < 1000:  # strftime's %Y does not pad it
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    return value.isoformat(timespec="seconds") + "Z"


class UTCDateTime(TypeDecorator[dt.datetime]):
    """Naive UTC datetimes in storage, naive UTC out (Heat's API prints them with a ``Z``)."""
    impl = DateTime
    cache_ok = True


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


_engine: Engine | None = None
_read_engine: Engine | None = None
#: :func:`autocommit`'s engine: the readers' on PostgreSQL (autocommit from the connect), the
#: writers' with autocommit set per connection on SQLite
_autocommit_engine: Engine | None = None
_factory: sessionmaker[Session] | None = None
_read_factory: sessionmaker[Session] | None = None
_engine_pid: int | None = None


#: held while :func:`init` installs an engine: threads of one process that start together (the
#: worker's lease and broker threads, its first steps) install it once, with one writer lock
_init_lock = threading.Lock()


def init(url: str) -> Engine:
    """Install the process-wide engine for ``url`` (idempotent for the same URL and process;
    thread-safe)."""
    if _installed(url):
        return _engine  # type: ignore[return-value]
    with _init_lock:
        return _install(url)


def _installed(url: str) -> bool:
    """Whether this process's engine is already the one for ``url``."""
    return (_engine is not None and str(_engine.url) == str(make_url(url))
            and _engine_pid == os.getpid())


def _install(url: str) -> Engine:
    global _engine, _factory, _engine_pid, _read_engine, _read_factory, _autocommit_engine
    if _installed(url):
        return _engine  # type: ignore[return-value]
    if _engine is not None:
        _engine.dispose(close=_engine_pid == os.getpid())
        if _read_engine is not None and _read_engine.pool is not _engine.pool:
            _read_engine.dispose(close=_engine_pid == os.getpid())
    _engine = make_engine(url)
    if url.startswith("sqlite"):
        _read_engine = make_engine(url, immediate=False)
        _autocommit_engine = _engine.execution_options(isolation_level="AUTOCOMMIT")
    else:
        _read_engine = _autocommit_engine = make_engine(url, reads=True)
    path = _engine.url.database if _engine.dialect.name == "sqlite" else None
    _writer.attach(os.path.abspath(path) if path and path != ":memory:" else None)
    _engine_pid = os.getpid()
    _factory = sessionmaker(_engine, expire_on_commit=False)
    _read_factory = sessionmaker(_read_engine, expire_on_commit=False)
    return _engine


def make_url(url: str) -> Any:
    from sqlalchemy.engine import make_url as _mk
    return _mk(url)


def get_engine() -> Engine:
    if _engine is None or _engine_pid != os.getpid():
        from app import config
        init(config.get().database_url)
    assert _engine is not None
    return _engine


def side_engine() -> Engine:
    """An engine of at most one connection to the process's database, for a native thread
    of its own (the heartbeat under gevent, :mod:`app.convergence.store.lease`): it shares no pool,
    lock or connection with the greenlets of the process."""
    url = get_engine().url.render_as_string(hide_password=False)
    if url.startswith("sqlite"):
        return make_engine(url)
    return create_engine(url, pool_size=1, max_overflow=0, pool_pre_ping=True,
                         connect_args=pg_connect_args())


def concurrent_writers() -> bool:
    """Whether transactions write side by side (PostgreSQL), so a row that many of them update
    is a queue: its lock is held from the statement to the commit, across client round trips.
    False on SQLite, whose one writer runs transactions one at a time anyway."""
    return get_engine().dialect.name != "sqlite"


def for_update(q: Any, **kw: Any) -> Any:
    """``q`` with ``FOR UPDATE`` (``kw`` as ``Select.with_for_update``'s) where writers run side
    by side (PostgreSQL), whose row locks order them; ``q`` itself on SQLite (one writer)."""
    return q.with_for_update(**kw) if concurrent_writers() else q


@contextlib.contextmanager
def autocommit() -> Iterator[Any]:
    """A connection whose every statement commits on its own (a row lock it takes is held only
    while the server runs the statement, not until a client's COMMIT arrives). On PostgreSQL,
    one of the readers' pool, whose connections are in autocommit already."""
    get_engine()
    assert _autocommit_engine is not None
    with _autocommit_engine.connect() as conn:
        yield conn


def after_commit(s: Session, fn: Callable[[], Any]) -> None:
    """Run ``fn`` once ``s``'s transaction has committed (never if it rolls back): how services
    enqueue work only after the state it depends on is visible to workers."""
    s.info.setdefault("after_commit", []).append(fn)


def _give_back_writer(s: Session) -> None:
    """Release SQLite's writer mutex once ``s``'s transaction ended (before its after-commit
    work: an inline dispatcher's next steps must not hold the other threads out)."""
    if s.info.pop("writer", False):
        _writer.release()


@event.listens_for(Session, "after_commit")
def _run_after_commit(s: Session) -> None:
    _give_back_writer(s)
    todo = s.info.pop("after_commit", [])
    if s.info.get("deferred"):  # a session() of ours: run once its connection is back
        s.info.setdefault("committed", []).extend(todo)
        return
    for fn in todo:
        fn()


@event.listens_for(Session, "after_rollback")
def _drop_after_commit(s: Session) -> None:
    _give_back_writer(s)
    s.info.pop("after_commit", None)


class _Writer:
    """SQLite's one writer. The threads of a process queue for it on a reentrant mutex, and the
    processes sharing a database file on an ``flock`` of ``<database>-writer.lock``, instead of
    in SQLite's busy handler: that handler sleeps 1 to 100 ms between tries, so the write lock
    sits idle after its holder commits, and a process whose threads hand it to each other keeps
    the other processes out, their CPUs idle. A waiter in ``flock`` is woken as the holder lets
    go; the kernel drops the lock of a process that dies. Reentrant: the file lock is taken by
    the outermost acquisition. Without a lock file (``:memory:``, or before :meth:`attach`)
    only the mutex is used. A process *stopped* (not killed) inside a write transaction holds
    the others' writers until it goes on or dies (the busy handler failed them after 60 s)."""

    def __init__(self) -> None:
        self._mutex = threading.RLock()
        self._depth = 0
        self._fd: int | None = None
        self._locked: int | None = None  # the descriptor whose lock the holder took
        self._pid = os.getpid()

    def attach(self, path: str | None) -> None:
        """Lock ``path + "-writer.lock"`` across processes (``None``: the mutex only). Called by
        :func:`init`, once per process and database: a forked child opens its own descriptor
        (an inherited one would share its parent's lock) and a mutex of its own (the parent's
        may have been held by a thread that the child does not have)."""
        if self._pid != os.getpid():
            self._mutex, self._depth, self._pid = threading.RLock(), 0, os.getpid()
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
        if path is not None:
            with contextlib.suppress(OSError):
                self._fd = os.open(f"{path}-writer.lock", os.O_RDWR | os.O_CREAT, 0o600)

    def acquire(self, timeout: float) -> bool:
        """Queue for the writer (the mutex for at most ``timeout`` s, then the file lock);
        False if the mutex was not had in time (the caller goes to SQLite's busy handler)."""
        if not self._mutex.acquire(timeout=timeout):
            return False
        if self._depth == 0 and self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX)
            except OSError:
                self._mutex.release()
                raise
            self._locked = self._fd
        self._depth += 1
        return True

    def release(self) -> None:
        """Unlock the descriptor the lock was taken on (a re-attach in between opened another)."""
        self._depth -= 1
        if self._depth == 0 and self._locked is not None:
            with contextlib.suppress(OSError):  # closed by a re-attach: its lock went with it
                fcntl.flock(self._locked, fcntl.LOCK_UN)
            self._locked = None
        self._mutex.release()


_writer = _Writer()
#: s; after this long in the queue a writer goes to SQLite's own busy timeout instead
WRITER_QUEUE_TIMEOUT = 30.0


@contextlib.contextmanager
def session() -> Iterator[Session]:
    """A transaction: commits on success, rolls back on error; then the work given to
    :func:`after_commit` runs, with the session closed. On SQLite, the threads of a process
    take the write lock in turn (:data:`_writer`)."""
    engine = get_engine()
    assert _factory is not None
    queued = engine.dialect.name == "sqlite" and _writer.acquire(timeout=WRITER_QUEUE_TIMEOUT)
    with _factory() as s:
        s.info["writer"] = queued
        s.info["deferred"] = True
        try:
            with s.begin():
                yield s
        finally:
            _give_back_writer(s)  # if the transaction never began or ended
    # after-commit work runs once the session gave its connection back to the pool: work that
    # reads or writes (a courier's first look at a stack's sinks, an inline step) must not hold
    # two connections at once, which a pool shared by many greenlets cannot always give
    for fn in s.info.pop("committed", []):
        fn()


@contextlib.contextmanager
def read_session() -> Iterator[Session]:
    """A session for reads (nothing to commit). On PostgreSQL its statements run in autocommit
    (the readers' pool, :func:`app.models.connect.make_engine`): each is one round trip,
    without the BEGIN and ROLLBACK a transaction costs (two more), and sees what READ
    COMMITTED would show it in a transaction (a snapshot per statement). On SQLite, one
    deferred transaction of a second engine (WAL readers never wait for the writer)."""
    get_engine()
    assert _read_factory is not None
    with _read_factory() as s:
        yield s
