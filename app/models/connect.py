"""How the process connects to its database: engines for SQLite (WAL, busy timeout, ``BEGIN
IMMEDIATE`` for writers, SQLAlchemy's documented pysqlite recipe) and PostgreSQL (connect
arguments bounding a silent client, a checkout check instead of ``pool_pre_ping``), the JSON
columns' codec, and what says the database cannot be reached (:func:`unavailable`).
"""
from __future__ import annotations

import json
import os
import re
import select
import sqlite3
import time
from collections.abc import Iterator
from typing import Any

import orjson
from sqlalchemy import create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine


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


class _NulRefused(ValueError):
    """A text value to store holds a NUL character: refused on SQLite as PostgreSQL's driver
    refuses it, so that the embedded default and production answer the same input alike."""


def _no_nul(_conn: Any, _cursor: Any, _statement: str, params: Any, _context: Any,
            executemany: bool) -> None:
    """SQLite's ``before_cursor_execute``: :raises _NulRefused: a text parameter holds
    ``\\x00`` (JSON documents hold it escaped, as PostgreSQL's ``json`` columns accept).
    O(parameters): ~10 ms of CPU for 10,000 rows of 15 values (the strings gathered, then one
    search)."""
    texts: list[str] = []
    for row in (params if executemany else (params,)) or ():
        kind = type(row)
        if kind is tuple or kind is list:
            texts.extend([value for value in row if type(value) is str])
        elif kind is dict:
            texts.extend([value for value in row.values() if type(value) is str])
        elif kind is str:  # a batch of many rows' values in one flat tuple
            texts.append(row)
    if "\x00" in "\x01".join(texts):
        raise _NulRefused("a text value holds a NUL character")


def _sqlite_setup(engine: Engine, immediate: bool) -> None:
    event.listen(engine, "before_cursor_execute", _no_nul)

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


def make_engine(url: str, *, immediate: bool = True, reads: bool = False) -> Engine:
    """Create an engine for ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``).

    ``immediate``: SQLite transactions take the write lock at BEGIN (for writers); readers use a
    second engine with deferred BEGIN so that reads never queue behind writes (WAL).
    ``reads`` (PostgreSQL): the readers' engine, a pool of its own whose connections are in
    autocommit from the start; a shared pool would switch a connection into autocommit and back
    at each checkout (~60 us of CPU, more than the checkout itself).
    """
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        eng = create_engine(url, connect_args={"timeout": 60, "check_same_thread": False},
                            json_serializer=json.dumps, json_deserializer=json_loads)
        _sqlite_setup(eng, immediate)
        return eng
    pool = {"pool_size": 10, "max_overflow": 20, "isolation_level": "AUTOCOMMIT"} if reads \
        else {"pool_size": 20, "max_overflow": 10}
    eng = create_engine(url, json_serializer=json.dumps, json_deserializer=json_loads,
                        connect_args=pg_connect_args(), **pool)
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


def _psycopg(*names: str) -> tuple[type[Exception], ...]:
    """psycopg's exception classes ``names`` (none without psycopg); psycopg is imported at
    the first error looked at, not at start (a quarter second of a SQLite process)."""
    try:
        import psycopg
    except ImportError:  # pragma: no cover - SQLite only
        return ()
    return tuple(getattr(psycopg, name) for name in names)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from (``__cause__``, else ``__context__``; a SQLAlchemy
    ``DBAPIError`` then the driver's error it wraps), each once."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        yield cur
        cur = cur.orig if isinstance(cur, sa_exc.DBAPIError) else \
            cur.__cause__ or cur.__context__


#: PostgreSQL error classes of a lost or refused connection: connection exception (08),
#: operator intervention (57P: admin or crash shutdown, cannot connect now)
_UNAVAILABLE_SQLSTATES = ("08", "57P")


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) says the database cannot be
    reached: a connection refused, lost or closed by the server (SQLAlchemy's disconnect
    detection, psycopg's ``OperationalError`` without a server error or with an error of
    class 08 / 57P), or no pooled connection to be had. Such an error says nothing about the
    request or the step: it may be tried again once the server is back."""
    lost = _psycopg("OperationalError", "InterfaceError")
    for cur in _chain(exc):
        if isinstance(cur, (sa_exc.DisconnectionError, sa_exc.TimeoutError)):
            return True
        if isinstance(cur, sa_exc.DBAPIError) and cur.connection_invalidated:
            return True
        if isinstance(cur, lost):
            state = getattr(cur, "sqlstate", None)
            if state is None or state.startswith(_UNAVAILABLE_SQLSTATES):
                return True
    return False


#: psycopg's refusal to send a string holding ``\x00`` (PostgreSQL text cannot hold one)
_NUL_REFUSED = "cannot contain NUL (0x00)"
#: the server's refusal of a JSON ``\u0000`` it is asked to convert to text
#: (``untranslatable_character``, e.g. from ``json_to_recordset``)
_UNTRANSLATABLE = "22P05"


def nul_refused(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is PostgreSQL's driver refusing a
    text value that holds a NUL character, or the server refusing a JSON ``\\u0000`` it is to
    store as text (SQLSTATE 22P05), or SQLite's engine refusing the same text
    (:class:`_NulRefused`): the request's input, not the server, is at fault (the URL's NULs
    are refused before any query, see :mod:`app.api.nul_check`)."""
    data = _psycopg("DataError")
    return any(isinstance(cur, _NulRefused) or isinstance(cur, data) and (
        _NUL_REFUSED in str(cur) or getattr(cur, "sqlstate", None) == _UNTRANSLATABLE)
        for cur in _chain(exc))


#: what ``str.encode`` says of a lone surrogate (sqlite3 and psycopg encode text as UTF-8)
_SURROGATES = "surrogates not allowed"
#: the server's refusal of a JSON ``\\ud800`` escape with no pair, a text's or a JSON column's
#: to be parsed (``invalid_text_representation``, e.g. from ``json_to_recordset``)
_INVALID_TEXT = "22P02"


def surrogate_refused(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) refuses a lone UTF-16 surrogate
    (an unpaired ``U+D800``-``U+DFFF``, as a JSON body's ``"\\ud800"`` decodes): the driver's
    ``UnicodeEncodeError`` for a text value (sqlite3 and psycopg alike), or PostgreSQL's refusal
    of such a JSON escape it is to parse (SQLSTATE 22P02). The text is not valid Unicode: the
    request's input is at fault."""
    data = _psycopg("DataError")
    for cur in _chain(exc):
        if isinstance(cur, UnicodeEncodeError) and cur.reason == _SURROGATES:
            return True
        if isinstance(cur, data) and getattr(cur, "sqlstate", None) == _INVALID_TEXT:
            detail = getattr(getattr(cur, "diag", None), "message_detail", None) or ""
            if "surrogate" in detail:
                return True
    return False
