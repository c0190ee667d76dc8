"""A stack as the hot read routes need it (show, resource list, event list): one plain row of
the columns they use, read on the request's read connection (:func:`app.models.read_connection`),
no ORM instance. The same visibility as :func:`app.services.stacks.get_stack`.
"""
from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Select, Table, bindparam, select

from app import auth, config, errors
from app.context import RequestContext
from app.models import Stack, first_row, read_connection, rows

_T = Stack.__table__
#: what a listing under a stack links with
_REF = ("id", "name", "tenant")
#: what ``GET /stacks/{name}/{id}`` shows, and what its outputs are resolved from
_SHOWN = (*_REF, "username", "description", "action", "status", "status_reason", "created_at",
          "updated_at", "deleted_at", "parent_id", "parameters_show", "disable_rollback",
          "timeout_mins", "tags", "outputs", "raw_template_id")


def _by_id(columns: tuple[str, ...]) -> Select[Any]:
    return select(*(_T.c[name] for name in columns)).where(_T.c.id == bindparam("stack_id"))


_REF_BY_ID, _SHOWN_BY_ID = _by_id(_REF), _by_id(_SHOWN)


def visible(ctx: RequestContext, st: Any) -> bool:
    """Whether the caller sees the stack ``st`` (anything with ``tenant`` and ``id``): its
    tenant's, an admin (Heat: admins see all), or a token scoped to its stack-user project."""
    return (st.tenant == ctx.tenant_id or ctx.is_admin
            or auth.is_stack_user_project(ctx, st.tenant, st.id, config.get()))


def _check(ctx: RequestContext, st: Any, stack_name: str) -> None:
    if st is None or st.name != stack_name or not visible(ctx, st):
        raise errors.NotFound("Stack", stack_name)


def _found(ctx: RequestContext, statement: Select[Any], stack_name: str, stack_id: str) -> Any:
    with read_connection() as conn:
        st = first_row(conn, statement, {"stack_id": stack_id})
    _check(ctx, st, stack_name)
    return st


def stack_ref(ctx: RequestContext, stack_name: str, stack_id: str) -> Any:
    """The stack ``stack_name``/``stack_id`` as a row of ``id``, ``name`` and ``tenant``.
    :raises errors.NotFound: as :func:`app.services.stacks.get_stack`."""
    return _found(ctx, _REF_BY_ID, stack_name, stack_id)


def shown_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> Any:
    """The stack ``stack_name``/``stack_id`` as a row of the columns of :data:`_SHOWN`.
    :raises errors.NotFound: as :func:`app.services.stacks.get_stack`."""
    return _found(ctx, _SHOWN_BY_ID, stack_name, stack_id)


@functools.lru_cache(maxsize=8)
def _joined(table: Table, columns: tuple[str, ...], desc: bool, limited: bool) -> Select[Any]:
    """The stack ``:stack_id`` (``owner_id``, ``owner_name``, ``owner_tenant``) beside each of
    its rows of ``table`` in ``id`` order (one row of NULLs when it has none), at most
    ``:limit`` when ``limited``: built once per shape."""
    c = table.c
    q = select(_T.c.id.label("owner_id"), _T.c.name.label("owner_name"),
               _T.c.tenant.label("owner_tenant"), *(c[name] for name in columns)).select_from(
        _T.outerjoin(table, c.stack_id == _T.c.id)).where(_T.c.id == bindparam("stack_id"))
    q = q.order_by(c.id.desc() if desc else c.id.asc())
    return q.limit(bindparam("limit")) if limited else q


def with_rows(ctx: RequestContext, stack_name: str, stack_id: str, table: Table,
              columns: tuple[str, ...], *, desc: bool = False, limit: int | None = None
              ) -> tuple[Any, list[Any]]:
    """``(stack, rows)``: the stack as :func:`stack_ref` has it, and its rows of ``table``
    (a table with ``stack_id`` and ``id``; ``columns`` to read, ``id`` among them) in ``id``
    order (descending with ``desc``), at most ``limit`` (a positive number, or None): one
    statement. :raises errors.NotFound: as :func:`stack_ref`."""
    with read_connection() as conn:
        found = rows(conn, _joined(table, columns, desc, limit is not None),
                     {"stack_id": stack_id, "limit": limit})
    first = found[0] if found else None
    stack = None if first is None else SimpleNamespace(
        id=first.owner_id, name=first.owner_name, tenant=first.owner_tenant)
    _check(ctx, stack, stack_name)
    return stack, [row for row in found if row.id is not None]
