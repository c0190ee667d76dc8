"""The hot read routes run a constant number of SQL statements, whatever the number of stacks in
the project, of resources in the stack, or of events (no query per row)."""
from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator

from sqlalchemy import event, insert, select
from sqlalchemy.engine import Engine

from app.context import RequestContext
from app.models import Event, Stack, read_session, session
from app.services import stacks
from tests.fixtures.stacks import final, none_stack

TENANT = "counted"
CTX = RequestContext(tenant_id=TENANT)


@contextlib.contextmanager
def counting() -> Iterator[list[str]]:
    """Every SQL statement this thread's engines run meanwhile (not the lease's heartbeat and
    sweep, which run on a thread of their own)."""
    seen: list[str] = []
    me = threading.get_ident()

    def record(conn, cursor, statement, *args) -> None:
        if threading.get_ident() == me and not statement.lstrip().upper().startswith(("BEGIN", "PRAGMA", "COMMIT", "ROLLBACK")):
            seen.append(statement)
    event.listen(Engine, "before_cursor_execute", record)  # every engine
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


def _created(name: str, n: int) -> Stack:
    st = stacks.create_stack(CTX, stack_name=name, template=none_stack(n))
    st = final(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE"
    return st


def _copies(st: Stack, n: int) -> None:
    """``n`` more stacks of the project like ``st`` (rows only, newer than it)."""
    with read_session() as s:
        row = s.execute(select(Stack.__table__).where(Stack.id == st.id)).mappings().one()
    base_time = row["created_at"]
    with session() as s:
        s.execute(insert(Stack), [
            {**row, "id": f"{i:08d}-0000-0000-0000-{st.id[-12:]}", "name": f"copy{i}",
             "created_at": base_time + dt.timedelta(seconds=i + 1)} for i in range(n)])


def _more_events(st: Stack, n: int) -> None:
    with session() as s:
        s.execute(insert(Event), [
            {"uuid": f"{i:08d}-1111-1111-1111-{st.id[-12:]}", "stack_id": st.id,
             "resource_name": "r0", "resource_type": "OS::Heat::None", "action": "CREATE",
             "status": "COMPLETE", "status_reason": "state changed"} for i in range(n)])


def _statements(client, url: str) -> int:
    with counting() as seen:
        resp = client.get(url)
    assert resp.status_code == 200, resp.get_json()
    return len(seen)


ROUTES = {
    "stack list": "/v1/{t}/stacks?limit=20&sort_dir=desc&sort_keys=creation_time",
    "stack list with count": "/v1/{t}/stacks?with_count=true",
    "stack show": "/v1/{t}/stacks/{name}/{id}",
    "resource list": "/v1/{t}/stacks/{name}/{id}/resources",
    "event list": "/v1/{t}/stacks/{name}/{id}/events",
    "event page": "/v1/{t}/stacks/{name}/{id}/events?limit=20",
}


def _counts(client, st: Stack) -> dict[str, int]:
    return {route: _statements(client, url.format(t=TENANT, name=st.name, id=st.id))
            for route, url in ROUTES.items()}


def test_statements_per_request_do_not_grow_with_stacks_resources_or_events(client):
    check_no_growth(client)


def test_statements_per_request_on_postgresql(pg_db):
    """The same on PostgreSQL, where the hot reads run on psycopg's cursor
    (:func:`app.models.rows`): the engine's listeners still see each statement."""
    from app.api import create_app
    check_no_growth(create_app(pg_db).test_client())


def check_no_growth(client) -> None:
    small = _created("small", 1)
    big = _created("big", 40)
    alone = _counts(client, small)
    _copies(small, 1000)
    _more_events(big, 1000)
    crowded = _counts(client, big)
    assert crowded == alone
    assert 1 <= min(alone.values()) and max(alone.values()) <= 6, alone


def test_a_create_writes_its_stack_row_once_with_the_traversal_started(client):
    """POST /stacks: the stack row's one INSERT already holds the started CREATE traversal
    (Heat's CREATE_IN_PROGRESS "Stack CREATE started"): no UPDATE of it before the commit."""
    seen: list[tuple[str, object]] = []
    committed: list[int] = []
    me = threading.get_ident()

    def record(conn, cursor, statement, parameters, context, executemany) -> None:
        if threading.get_ident() == me:  # the values by column name, whatever the paramstyle
            seen.append((" ".join(statement.split()).upper(), context.compiled_parameters[0]))

    def commit(conn) -> None:
        if threading.get_ident() == me and not committed:
            committed.append(len(seen))
    event.listen(Engine, "before_cursor_execute", record)
    event.listen(Engine, "commit", commit)
    try:
        resp = client.post(f"/v1/{TENANT}/stacks",
                           json={"stack_name": "once", "template": none_stack(2)})
    finally:
        event.remove(Engine, "before_cursor_execute", record)
        event.remove(Engine, "commit", commit)
    assert resp.status_code == 201, resp.get_json()
    create = seen[:committed[0]]
    inserts = [p for sql, p in create if sql.startswith("INSERT INTO STACK ")]
    assert len(inserts) == 1
    assert not [sql for sql, _ in create if sql.startswith("UPDATE STACK ")]
    row = inserts[0]
    assert (row["action"], row["status"], row["status_reason"], row["pending_nodes"]) == (
        "CREATE", "IN_PROGRESS", "Stack CREATE started", 2)
    assert row["current_traversal"] and row["traversal_started_at"] is not None
