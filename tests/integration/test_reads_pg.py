"""The hot reads' rows (:func:`app.models.rows`, psycopg's cursor on PostgreSQL) are the rows
SQLAlchemy's Core reads for the same statement: same columns, names and values (JSON decoded,
naive UTC times), in the same order."""
from __future__ import annotations

from sqlalchemy import bindparam, select

from app.context import RequestContext
from app.models import Event, Resource, Stack, first_row, read_connection, rows
from app.services import resources, stack_list, stack_reads, stacks
from tests.fixtures.stacks import final, none_stack

CTX = RequestContext(tenant_id="reads")


def _same(conn, statement, params) -> list:
    ours = rows(conn, statement, params)
    theirs = conn.execute(statement, params).all()
    assert [tuple(r) for r in ours] == [tuple(r) for r in theirs]
    assert [r._fields for r in ours] == [tuple(r._fields) for r in theirs]
    return ours


def test_rows_match_sqlalchemys_on_postgresql(pg_db):
    made = [final(CTX, stacks.create_stack(CTX, stack_name=f"s{i}", template=none_stack(3),
                                           tags=["a", "b"] if i else None).id)
            for i in range(3)]
    st = made[-1]
    order = tuple(stack_list.sort_order(["creation_time"], "desc"))
    with read_connection() as conn:
        listed = _same(conn, stack_list._plain_page(False, False, False, (), order, True),
                       {"tenant": "reads", "limit": 2})
        assert [r.name for r in listed] == ["s2", "s1"] and listed[0].tags == ["a", "b"]
        shown = _same(conn, stack_reads._SHOWN_BY_ID, {"stack_id": st.id})
        assert shown[0].parameters_show["OS::stack_name"] == "s2"
        assert first_row(conn, stack_reads._SHOWN_BY_ID, {"stack_id": st.id}) == shown[0]
        assert first_row(conn, stack_reads._SHOWN_BY_ID, {"stack_id": "nope"}) is None
        for table, columns, desc, limit in (
                (Resource.__table__, resources._LISTED_COLUMNS, False, None),
                (Event.__table__, resources._EVENT_COLUMNS, True, 2)):
            joined = _same(conn, stack_reads._joined(table, columns, desc, limit is not None),
                           {"stack_id": st.id, "limit": limit})
            assert joined and all(r.owner_id == st.id for r in joined)
        assert len(joined) == 2 and joined[0].id > joined[1].id


def test_statements_sqlalchemy_must_expand_run_through_it(pg_db):
    """A statement whose parameters are expanded at execution (an ``IN`` list) is run by
    SQLAlchemy: the same rows."""
    final(CTX, stacks.create_stack(CTX, stack_name="x", template=none_stack(1)).id)
    q = select(Stack.name).where(Stack.name.in_(bindparam("names", expanding=True)))
    with read_connection() as conn:
        assert [r.name for r in rows(conn, q, {"names": ["x", "y"]})] == ["x"]


def test_a_read_after_the_server_ended_its_sessions_answers(pg_db):
    """A pooled connection whose session the server ended (``pg_terminate_backend``, waited
    for) is not handed to the next read: the read answers from a new one."""
    import psycopg

    from app.models import base
    st = final(CTX, stacks.create_stack(CTX, stack_name="t", template=none_stack(1)).id)
    assert stack_reads.shown_stack(CTX, "t", st.id).name == "t"
    database = base.get_engine().url.database
    with psycopg.connect(pg_db.database_url.replace("+psycopg", "").rsplit("/", 1)[0] +
                         "/postgres", autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                      "WHERE datname = %s AND pid <> pg_backend_pid()", (database,))
    assert stack_reads.shown_stack(CTX, "t", st.id).name == "t"
    assert [r.name for r in stack_list.list_stacks(CTX, limit=5, summary=True)] == ["t"]
