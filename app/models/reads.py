"""Core reads for the API's hot routes: one pooled read connection shared by the statements
of one use case, and plain rows (no ORM instance, no session).

A :func:`read_connection` nested in another (the same thread or greenlet) is the outer one's
connection, so a use case that reads a stack and then its resources or events checks out one
connection, not one per statement.
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from sqlalchemy.engine import Connection

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
