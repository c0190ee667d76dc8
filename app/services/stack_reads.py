"""A stack as the hot read routes need it (show, resource list, event list): one plain row of
the columns they use, read on the request's read connection (:func:`app.models.read_connection`),
no ORM instance. The same visibility as :func:`app.services.stacks.get_stack`.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, select

from app import auth, config, errors
from app.context import RequestContext
from app.models import Stack, read_connection

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


def _found(ctx: RequestContext, statement: Select[Any], stack_name: str, stack_id: str) -> Any:
    with read_connection() as conn:
        st = conn.execute(statement, {"stack_id": stack_id}).first()
    if st is None or st.name != stack_name or (
            st.tenant != ctx.tenant_id and not ctx.is_admin  # Heat: admins see all
            and not auth.is_stack_user_project(ctx, st.tenant, st.id, config.get())):
        raise errors.NotFound("Stack", stack_name)
    return st


def stack_ref(ctx: RequestContext, stack_name: str, stack_id: str) -> Any:
    """The stack ``stack_name``/``stack_id`` as a row of ``id``, ``name`` and ``tenant``.
    :raises errors.NotFound: as :func:`app.services.stacks.get_stack`."""
    return _found(ctx, _REF_BY_ID, stack_name, stack_id)


def shown_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> Any:
    """The stack ``stack_name``/``stack_id`` as a row of the columns of :data:`_SHOWN`.
    :raises errors.NotFound: as :func:`app.services.stacks.get_stack`."""
    return _found(ctx, _SHOWN_BY_ID, stack_name, stack_id)
