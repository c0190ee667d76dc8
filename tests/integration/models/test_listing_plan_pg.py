"""The default stack listing (``GET /stacks``: live top-level stacks, newest first, a page)
reads its page in index order on PostgreSQL, without sorting every live stack, even on a
table whose statistics were never gathered (a busy database between two autovacuum runs, or
one with autovacuum off)."""
from __future__ import annotations

import datetime as dt
import uuid

from sqlalchemy import insert

from app.context import RequestContext
from app.models import RawTemplate, Stack, base, read_connection, reads
from app.services import stack_list

N = 3000


def _fill() -> None:
    now = dt.datetime(2026, 1, 1)
    with base.session() as s:
        tid = s.execute(insert(RawTemplate).values(template={}, files={}, environment={})
                        .returning(RawTemplate.id)).scalar_one()
        s.execute(insert(Stack), [
            {"id": str(uuid.uuid4()), "name": f"s{i}", "tenant": f"p{i % 10}",
             "raw_template_id": tid, "created_at": now + dt.timedelta(seconds=i),
             "parent_id": None if i % 3 else "a-parent", "action": "CREATE",
             "status": "COMPLETE"} for i in range(N)])


def _plan(ctx: RequestContext) -> str:
    """PostgreSQL's plan of the page's statement as the API runs it (its SQL on psycopg)."""
    order = tuple(stack_list.sort_order(["creation_time"], "desc"))
    q = stack_list._plain_page(ctx.is_admin, False, False, (), order, True)
    found = reads._driver_sql(q, base.get_engine().dialect)
    assert found is not None
    sql, defaults = found
    with read_connection() as conn:
        cur = conn.connection.driver_connection.cursor()
        cur.execute("SELECT reltuples < 0 FROM pg_class WHERE relname = 'stack'")
        assert cur.fetchone()[0]  # never analyzed
        cur.execute("EXPLAIN " + sql, {**defaults, "tenant": ctx.tenant_id, "limit": 20})
        return "\n".join(r[0] for r in cur.fetchall())


def test_the_default_listing_reads_an_index_in_order(pg_db):
    _fill()
    for ctx in (RequestContext(tenant_id="p3", roles=("member",), is_admin=False),
                RequestContext(tenant_id="p3", roles=("admin",), is_admin=True)):
        plan = _plan(ctx)
        assert "Sort" not in plan and "Index Scan Backward" in plan, plan
    page = stack_list.list_stacks(RequestContext(tenant_id="p3", roles=("member",)),
                                  limit=5, sort_keys=["creation_time"], sort_dir="desc")
    assert [s.name for s in page] == ["s2993", "s2983", "s2963", "s2953", "s2933"]
