"""SQLAlchemy 2 declarative base, engine and session factory.

One engine per process, created by :func:`init` from ``Settings.database_url``. SQLite (the
embedded default) runs in WAL mode with a busy timeout, and every transaction starts with
``BEGIN IMMEDIATE`` so that the compare-and-swap updates of the engine serialise cleanly across
the API and worker processes (SQLAlchemy's documented pysqlite recipe). PostgreSQL uses
READ COMMITTED with row locks taken by ``UPDATE ... RETURNING``.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import re
import select
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
from sqlalchemy import JSON, DateTime, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.types import TypeDecorator


def json_loads(data: str | bytes | bytearray | memoryview) -> Any:
    """A JSON column's value (what ``json.loads`` gives), decoded by orjson, faster than the
    stdlib on the property documents an update's start reads. orjson reads an integer wider
    than 64 bits as a float and refuses NaN, where the stdlib (and a template) keeps them: a
    document with a run of 19 or more digits, or that orjson refuses, goes to the stdlib."""
    raw = bytes(data) if isinstance(data, memoryview) else data
    long = _LONG_DIGITS.search(raw) if isinstance(raw, str) else _LONG_DIGIT_BYTES.search(raw)
    if long is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


_LONG_DIGITS = re.compile(r"[0-9]{19}")
_LONG_DIGIT_BYTES = re.compile(rb"[0-9]{19}")


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
_factory: sessionmaker[Session] | None = None
_read_factory: sessionmaker[Session] | None = None
_engine_pid: int | None = None


def _sqlite_setup(engine: Engine, immediate: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # let SQLAlchemy's begin event issue BEGIN
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=60000")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    begin = "BEGIN IMMEDIATE" if immediate else "BEGIN"

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # on the driver's connection: a statement of SQLAlchemy's costs as much CPU as the
        # BEGIN itself; one that fails is issued again through SQLAlchemy, which raises its
        # own error for it (what callers handle: app.models.unavailable)
        try:
            conn.connection.driver_connection.execute(begin)
        except sqlite3.Error:
            conn.exec_driver_sql(begin)


def make_engine(url: str, *, immediate: bool = True) -> Engine:
    """Create an engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).

    ``immediate``: SQLite transactions take the write lock at BEGIN (for writers); readers use a
    second engine with deferred BEGIN so that reads never queue behind writes (WAL).
    """
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        eng = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False},
                            json_serializer=json.dumps, json_deserializer=json_loads)
        _sqlite_setup(eng, immediate)
        return eng
    eng = create_engine(url, pool_size=20, max_overflow=10, json_serializer=json.dumps,
                        json_deserializer=json_loads, connect_args=pg_connect_args())
    _check_on_checkout(eng)
    return eng


def pg_connect_args() -> dict[str, Any]:
    """psycopg's connection arguments: :data:`CONNECT_TIMEOUT_SECONDS`, and a bound on a
    silent client: the server ends a session whose transaction is left idle, or whose answer
    is left unacknowledged, for ``engine_lease_seconds`` (at least
    :data:`SILENT_CLIENT_SECONDS`), so that a worker cut off mid-transaction holds no row lock
    once its lease ran out (PostgreSQL keeps them until TCP keepalive gives up, hours later)."""
    from app import config
    ms = int(max(SILENT_CLIENT_SECONDS, config.get().engine_lease_seconds) * 1000)
    return {"connect_timeout": CONNECT_TIMEOUT_SECONDS,
            "options": f"-c idle_in_transaction_session_timeout={ms} -c tcp_user_timeout={ms}"}


#: s a session may leave a transaction idle at least (:func:`pg_connect_args`)
SILENT_CLIENT_SECONDS = 5.0
#: A pooled PostgreSQL connection idle for longer than this is pinged before it is handed out
PING_AFTER_IDLE_SECONDS = 10.0
#: s a new PostgreSQL connection may take (a server that does not answer is unavailable)
CONNECT_TIMEOUT_SECONDS = 10


def _server_spoke(dbapi_conn: Any) -> bool:
    """Whether an idle connection's socket has something to read, or is gone: a server that
    shuts down or ends the session (``pg_ctl restart``, ``pg_terminate_backend``) sends its
    error and closes the socket, which a connection doing nothing should never see. One
    ``select`` of the socket with no timeout, no round trip (gevent's ``select`` answers that
    without yielding; its patching removes ``poll``)."""
    try:
        if getattr(dbapi_conn, "closed", False):
            return True
        readable, _, broken = select.select([dbapi_conn.fileno()], [], [dbapi_conn.fileno()], 0)
        return bool(readable or broken)
    except Exception:  # no descriptor any more, or one select cannot take: ping
        return True


def _check_on_checkout(eng: Engine) -> None:
    """Check every pooled connection as it is handed out: one the server closed (its socket
    readable while idle, :func:`_server_spoke`) or one idle for more than
    :data:`PING_AFTER_IDLE_SECONDS` (a proxy may have dropped it silently) is pinged, and a
    dead one is replaced before use, as ``pool_pre_ping`` does, without a round trip before
    every transaction of a busy worker (a step has three or four, each ping costing CPU and a
    statement for the server). So a
    restarted server costs no request and no step an error. A connection that dies while in
    use raises, and the pool discards it (SQLAlchemy's disconnect handling); the task's retry
    runs the step again (:func:`unavailable`). SQLAlchemy's documented custom checkout ping
    ("Disconnect Handling - Pessimistic"): raising ``DisconnectionError`` makes the pool
    retry with a fresh connection."""

    @event.listens_for(eng, "checkin")
    def _checked_in(dbapi_conn: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(eng, "checkout")
    def _checked_out(dbapi_conn: Any, record: Any, proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None:
            return  # a new connection
        if time.monotonic() - since <= PING_AFTER_IDLE_SECONDS and not _server_spoke(dbapi_conn):
            return
        try:
            eng.dialect.do_ping(dbapi_conn)  # outside a transaction, as pool_pre_ping's
        except Exception as exc:
            raise sa_exc.DisconnectionError(str(exc)) from exc


try:
    import psycopg
    _PG_ERRORS: tuple[type[Exception], ...] = (psycopg.OperationalError, psycopg.InterfaceError)
except ImportError:  # pragma: no cover - SQLite only
    _PG_ERRORS = ()
#: PostgreSQL error classes of a lost or refused connection: connection exception (08),
#: operator intervention (57P: admin or crash shutdown, cannot connect now)
_UNAVAILABLE_SQLSTATES = ("08", "57P")


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says the database cannot be
    reached: a connection refused, lost or closed by the server (SQLAlchemy's disconnect
    detection, psycopg's ``OperationalError`` without a server error or with an error of
    class 08 / 57P), or no pooled connection to be had. Such an error says nothing about the
    request or the step: it may be tried again once the server is back."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, (sa_exc.DisconnectionError, sa_exc.TimeoutError)):
            return True
        if isinstance(cur, sa_exc.DBAPIError):
            if cur.connection_invalidated:
                return True
            cur = cur.orig
            continue
        if isinstance(cur, _PG_ERRORS):
            state = getattr(cur, "sqlstate", None)
            if state is None or state.startswith(_UNAVAILABLE_SQLSTATES):
                return True
        cur = cur.__cause__ or cur.__context__
    return False


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
    global _engine, _factory, _engine_pid, _read_engine, _read_factory
    if _installed(url):
        return _engine  # type: ignore[return-value]
    if _engine is not None:
        _engine.dispose(close=_engine_pid == os.getpid())
        if _read_engine is not None and _read_engine.pool is not _engine.pool:
            _read_engine.dispose(close=_engine_pid == os.getpid())
    _engine = make_engine(url)
    _read_engine = make_engine(url, immediate=False) if url.startswith("sqlite") \
        else _engine.execution_options(isolation_level="AUTOCOMMIT")
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
    while the server runs the statement, not until a client's COMMIT arrives)."""
    with get_engine().connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
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
    on the same pool: each is one round trip, without the BEGIN and ROLLBACK a transaction
    costs (two more), and sees what READ COMMITTED would show it in a transaction (a snapshot
    per statement). On SQLite, one deferred transaction of a second engine (WAL readers never
    wait for the writer)."""
    get_engine()
    assert _read_factory is not None
    with _read_factory() as s:
        yield s
