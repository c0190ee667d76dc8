"""Bulk inserts of the rows a large traversal starts with: a group's 100,000 members and their
sync points.

On PostgreSQL more than :data:`COPY_FROM` rows go through ``COPY ... FROM STDIN``, each row built
while the copy runs: the server stays busy with the statement, where one multi-row ``INSERT``
has every row's parameters processed before the first is sent (a pause longer than the engine
lease on a loaded host, after which PostgreSQL ends the idle transaction:
:func:`app.models.base.pg_connect_args`). Fewer rows, and SQLite, take one ``INSERT``
(``executemany``). Values are those an ``INSERT`` would store: the columns' Python defaults
filled in, JSON columns serialised as the engine serialises them.
"""
from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sqlalchemy import JSON, Table, insert
from sqlalchemy.orm import Session

from app.engine.plan import Plan

#: rows from which PostgreSQL copies instead of inserting
COPY_FROM = 2000


def insert_rows(s: Session, table: Table, rows: Iterable[dict[str, Any]], count: int) -> None:
    """Insert ``rows`` (``count`` of them, each a mapping of column name -> value; a column
    left out gets its default) into ``table`` in ``s``'s transaction. O(rows)."""
    if count == 0:
        return
    conn = s.connection()
    if count < COPY_FROM or conn.dialect.name != "postgresql":
        s.execute(insert(table), list(rows))
        return
    columns = [c for c in table.columns if not (c.primary_key and c.autoincrement is True)]
    names = ", ".join(conn.dialect.identifier_preparer.quote(c.name) for c in columns)
    dumps: Any = getattr(conn.dialect, "_json_serializer", None) or json.dumps
    fill: list[tuple[str, Any, Any, bool]] = []
    for c in columns:
        default: Any = c.default
        fill.append((c.name, default.arg if default is not None and default.is_scalar else None,
                     default.arg if default is not None and default.is_callable else None,
                     isinstance(c.type, JSON)))
    dbapi: Any = conn.connection.dbapi_connection
    with dbapi.cursor() as cur, cur.copy(f"COPY {table.name} ({names}) FROM STDIN") as copy:
        for row in rows:
            values = []
            for name, scalar, make, is_json in fill:
                if name in row:
                    value = row[name]
                else:
                    value = make(None) if make is not None else scalar
                if is_json and value is not None:
                    value = dumps(value)
                elif isinstance(value, enum.Enum):   # a str enum: its value, as INSERT binds it
                    value = value.value
                values.append(value)
            copy.write_row(values)


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
