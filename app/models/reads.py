"""Core reads for the API's hot routes: one pooled read connection shared by the statements
of one use case, and plain rows (no ORM instance, no session).

A :func:`read_connection` nested in another (the same thread or greenlet) is the outer one's
connection, so a use case that reads a stack and then its resources or events checks out one
connection, not one per statement.

:func:`rows` / :func:`first_row` run a statement built once (a module constant or a cached
builder's) and answer rows read by column name (``row.id``). On PostgreSQL they run its SQL,
compiled once, on psycopg's cursor (rows as named tuples), as SQLAlchemy would run it (same
text, so psycopg prepares it after a few runs as it does SQLAlchemy's); the execute path and
result set of SQLAlchemy's Core cost about 0.1 ms of CPU a statement more, a tenth of a read
request. The engine's ``before_cursor_execute`` listeners still see each statement.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Iterator, Mapping
from typing import Any

from sqlalchemy import Select
from sqlalchemy.engine import Connection, Dialect

from app.models import base

_held: contextvars.ContextVar[Connection | None] = contextvars.ContextVar(
    "stoker_read_connection", default=None)


@contextlib.contextmanager
def read_connection() -> Iterator[Connection]:
    """A connection of the read engine (:func:`app.models.base.read_session`'s: autocommit on
    PostgreSQL, a deferred transaction on SQLite); inside another, that one."""
    held = _held.get()
    if held is not None:
        yield held
        return
    base.get_engine()
    assert base._read_engine is not None
    with base._read_engine.connect() as conn:
        token = _held.set(conn)
        try:
            yield conn
        finally:
            _held.reset(token)


@functools.lru_cache(maxsize=256)
def _driver_sql(statement: Select[Any], dialect: Dialect) -> tuple[str, dict[str, Any]] | None:
    """``(sql, default parameters)`` of ``statement`` for psycopg, or None where SQLAlchemy
    must run it: another driver, parameters it expands at execution (``IN`` lists) or converts
    (types with a bind processor)."""
    if dialect.driver != "psycopg":
        return None
    compiled = statement.compile(dialect=dialect)
    if compiled.post_compile_params or compiled.literal_execute_params or \
            compiled._bind_processors:
        return None
    return str(compiled), dict(compiled.params)


def _run(conn: Connection, statement: Select[Any], params: Mapping[str, Any]) -> Any:
    """psycopg's cursor having run ``statement``, or None (:func:`_driver_sql`)."""
    found = _driver_sql(statement, conn.dialect)
    if found is None:
        return None
    from psycopg.rows import namedtuple_row
    sql, defaults = found
    values = {**defaults, **params}
    driver: Any = conn.connection.driver_connection
    cursor = driver.cursor(row_factory=namedtuple_row)
    if conn.dispatch.before_cursor_execute:  # a listener counting or logging statements
        conn.dispatch.before_cursor_execute(conn, cursor, sql, values, None, False)
    try:
        cursor.execute(sql, values)
    except Exception:
        if driver.broken:  # as SQLAlchemy's disconnect handling: not back to the pool
            conn.invalidate()
        raise
    return cursor


def rows(conn: Connection, statement: Select[Any], params: Mapping[str, Any]) -> list[Any]:
    """Every row of ``statement`` (built once: module constant or cached builder) run with
    ``params`` on ``conn`` (a :func:`read_connection`): rows read by column name."""
    cursor = _run(conn, statement, params)
    if cursor is None:
        return list(conn.execute(statement, params).all())
    with cursor:
        return list(cursor.fetchall())


def first_row(conn: Connection, statement: Select[Any], params: Mapping[str, Any]) -> Any:
    """The first row of ``statement`` as :func:`rows` reads them, or None."""
    cursor = _run(conn, statement, params)
    if cursor is None:
        return conn.execute(statement, params).first()
    with cursor:
        return cursor.fetchone()
