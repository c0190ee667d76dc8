"""Bulk writes and reads of the rows a large traversal starts with: a group's 100,000 members
and their sync points.

On PostgreSQL more than :data:`COPY_FROM` rows go through ``COPY ... FROM STDIN``, each row built
while the copy runs: the server stays busy with the statement, where one multi-row ``INSERT``
has every row's parameters processed before the first is sent (a pause longer than the engine
lease on a loaded host, after which PostgreSQL ends the idle transaction:
:func:`app.models.connect.pg_connect_args`). Fewer rows, and SQLite, take one ``INSERT``
(``executemany``). Values are those an ``INSERT`` would store: the columns' Python defaults
filled in, JSON columns serialised as the engine serialises them.
"""
from __future__ import annotations

import datetime as dt
import enum
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sqlalchemy import JSON, String, Table, cast, insert, select, text
from sqlalchemy.orm import Session

from app.convergence.store.rows import table
from app.engine.plan import Plan
from app.models import Resource

#: rows from which PostgreSQL copies instead of inserting
COPY_FROM = 2000
_RT = table(Resource)


def insert_rows(s: Session, table: Table, rows: Iterable[dict[str, Any]], count: int) -> None:
    """Insert ``rows`` (``count`` of them, each a mapping of column name -> value, the same
    keys in each; a column left out gets its default) into ``table`` in ``s``'s transaction
    (PostgreSQL: from one JSON parameter, :func:`_insert_from_json`, or copied). O(rows)."""
    if count == 0:
        return
    conn = s.connection()
    if conn.dialect.name != "postgresql":
        s.execute(insert(table), list(rows))
        return
    if count < COPY_FROM:
        given, payload = _json_rows(table, list(rows))
        conn.execute(_insert_from_json(conn, table, given, returning=False), {"rows": payload})
        return
    columns = [c for c in table.columns if not (c.primary_key and c.autoincrement is True)]
    names = ", ".join(conn.dialect.identifier_preparer.quote(c.name) for c in columns)
    fill = _fillers(columns, getattr(conn.dialect, "_json_serializer", None) or json.dumps)
    dbapi: Any = conn.connection.dbapi_connection
    with dbapi.cursor() as cur, cur.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:
        write = copy.write_row
        for row in rows:
            write([f(row) for f in fill])


_ABSENT = object()


def _fillers(columns: list[Any], dumps: Callable[[Any], str]) -> list[Callable[[dict[str, Any]],
                                                                               Any]]:
    """Per column, the function that gives a row's value as an ``INSERT`` would store it: the
    row's own (JSON serialised, a str enum as its value), else the column's Python default
    (a scalar computed once, a callable called per row). An empty JSON list or map is
    serialised once: a group's rows carry thousands of them."""
    return [_filler(c.name, isinstance(c.type, JSON), *_default(c), dumps) for c in columns]


def _default(column: Any) -> tuple[Callable[[Any], Any] | None, Any]:
    """``column``'s Python default as ``(callable called per row or None, scalar or None)``."""
    default: Any = column.default
    if default is None:
        return None, None
    return (default.arg if default.is_callable else None,
            default.arg if default.is_scalar else None)


def _filler(name: str, is_json: bool, make: Any, scalar: Any,
            dumps: Callable[[Any], str]) -> Callable[[dict[str, Any]], Any]:
    def plain(value: Any) -> Any:
        if is_json and value is not None:
            if not value and isinstance(value, (list, dict)):
                return "[]" if isinstance(value, list) else "{}"
            return dumps(value)
        return value.value if isinstance(value, enum.Enum) else value

    if make is None:
        absent = plain(scalar)

        def fill(row: dict[str, Any]) -> Any:
            value = row.get(name, _ABSENT)
            return absent if value is _ABSENT else plain(value)
    else:
        def fill(row: dict[str, Any]) -> Any:
            value = row.get(name, _ABSENT)
            return plain(make(None) if value is _ABSENT else value)
    return fill


#: resource rows in one multi-row ``INSERT ... RETURNING`` (the ORM would insert them one
#: statement each, to match each returned id to its object)
_INSERT_ROWS = insert(_RT).returning(_RT.c.id, _RT.c.name)


#: PostgreSQL: ``{(table, column names, returning): INSERT ... FROM json_to_recordset}``
_FROM_JSON: dict[tuple[str, tuple[str, ...], bool], Any] = {}


def _insert_from_json(conn: Any, table: Table, names: tuple[str, ...],
                      returning: bool = True) -> Any:
    """One ``INSERT`` (``RETURNING id, name`` if ``returning``) of ``table``'s columns
    ``names`` from a JSON array of rows (one parameter, ``rows``): the same short text whatever
    the number of rows, so psycopg's parsed-query cache and the server's prepared statement
    serve every call (a multi-row ``VALUES`` has a text and parameters per row count, which
    psycopg parses anew past 50 parameters: ~0.5 ms of CPU for 20 resource rows; an
    ``executemany`` dumps each row's parameters)."""
    key = (table.name, names, returning)
    stmt = _FROM_JSON.get(key)
    if stmt is None:
        quote = conn.dialect.identifier_preparer.quote
        cols = ", ".join(quote(n) for n in names)
        spec = ", ".join(f"{quote(n)} {table.c[n].type.compile(conn.dialect)}" for n in names)
        stmt = _FROM_JSON[key] = text(
            f"INSERT INTO {quote(table.name)} ({cols}) SELECT {cols} FROM "
            f"json_to_recordset(CAST(:rows AS JSON)) AS r({spec})"
            + (" RETURNING id, name" if returning else ""))
    return stmt


def _json_rows(table: Table, rows: list[dict[str, Any]]) -> tuple[tuple[str, ...], str]:
    """``rows`` (each with the same keys) with every column's Python default filled in, as
    ``(column names, JSON array)``: the values an ``INSERT`` would store (datetimes in ISO
    form, JSON columns nested as themselves)."""
    given = rows[0].keys()
    fill = [(c.name, *_default(c)) for c in table.columns
            if c.name not in given and c.default is not None and not c.primary_key]
    out = []
    for row in rows:
        full = dict(row)
        for name, make, scalar in fill:
            full[name] = make(None) if make is not None else scalar
        out.append(full)
    names = tuple(out[0])
    return names, json.dumps(out, default=_iso)


def _iso(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def insert_resources(s: Session, stack_id: str, rows: Iterable[dict[str, Any]],
                     count: int) -> dict[str, int]:
    """Insert ``count`` resource rows of stack ``stack_id`` (each with the same keys; built as
    they are written; many are copied: :func:`insert_rows`). :returns: ``{name: id}`` (copied:
    of every row of the stack)."""
    if count == 0:
        return {}
    conn = s.connection()
    if conn.dialect.name != "postgresql":
        return {str(name): int(rid) for rid, name in conn.execute(_INSERT_ROWS, list(rows))}
    if count < COPY_FROM:
        names, payload = _json_rows(_RT, list(rows))
        return {str(name): int(rid) for rid, name in conn.execute(
            _insert_from_json(conn, _RT, names), {"rows": payload})}
    insert_rows(s, _RT, rows, count)
    return {str(name): int(rid) for rid, name in s.execute(
        select(_RT.c.id, _RT.c.name).where(_RT.c.stack_id == stack_id))}


def stored_graph(s: Session, stack_id: str) -> tuple[dict[str, int], dict[str, Any]]:
    """The stack's rows ``{name: id}`` and ``{name: names it requires}``, the ``requires`` of
    those that require nothing not decoded (a group's 100,000 members: the time a transaction
    spends idle after its read). Two queries, O(rows)."""
    ids = {str(name): int(rid) for rid, name in s.execute(
        select(Resource.id, Resource.name).where(Resource.stack_id == stack_id))}
    requires: dict[str, Any] = dict.fromkeys(ids, ())
    requires.update({r.name: set(r.requires or ()) for r in s.execute(
        select(Resource.name, Resource.requires).where(
            Resource.stack_id == stack_id, cast(Resource.requires, String) != "[]"))})
    return ids, requires


class PlanNodes:
    """The ``count`` sync points of the plan ``make`` computes, as
    :func:`app.convergence.store.syncpoints.create_nodes` takes them: ``(entity_id,
    is_update, expected, successors)``, ``ids`` naming the resources' rows. The plan is
    computed when they are first iterated (while they are copied), then kept (:meth:`plan`)."""

    def __init__(self, make: Callable[[], Plan], ids: dict[str, int], count: int) -> None:
        self._make, self.ids, self.count = make, ids, count
        self._plan: Plan | None = None

    def plan(self) -> Plan:
        if self._plan is None:
            self._plan = self._make()
        return self._plan

    def __len__(self) -> int:
        return self.count

    def __contains__(self, item: object) -> bool:
        return any(item == node for node in self)

    def __iter__(self) -> Iterator[tuple[int, bool, int, list[list[Any]]]]:
        p, ids = self.plan(), self.ids
        for (n, upd), count in p.expected.items():
            yield ids[n], upd, count, [[ids[sn], su] for sn, su in p.successors[(n, upd)]]
