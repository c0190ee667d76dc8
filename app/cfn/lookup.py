"""Two use cases the CFN API needs that the services do not offer (yet): the stack that owns a
physical resource (Heat's ``find_physical_resource``) and the cancel of an update in progress
(Heat's ``stack_cancel_update``). Both are small and follow the services' rules: the caller's
project only; one transaction."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.models import Resource, Stack, read_session, session
from app.services import stacks, updates


def stack_of_physical(ctx: RequestContext, physical_resource_id: str) -> Any:
    """The live stack of the caller's project holding a resource with this physical id.
    :raises errors.NotFound: none (Heat: ``The Resource (<id>) could not be found.``)."""
    with read_session() as s:
        stack_id = s.execute(
            select(Resource.stack_id).join(Stack, Stack.id == Resource.stack_id)
            .where(Resource.physical_resource_id == physical_resource_id,
                   Stack.tenant == ctx.tenant_id, Stack.deleted_at.is_(None))
            .order_by(Resource.id.desc()).limit(1)).scalar()
    if stack_id is None:
        raise errors.NotFound("Resource", physical_resource_id)
    return stacks.get_by_id(ctx, stack_id)


def cancel_update(ctx: RequestContext, st: Any) -> None:
    """Roll back the update in progress of ``st`` to its previous template, as Heat's
    ``stack_cancel_update(cancel_with_rollback=True)`` (convergence: a ROLLBACK traversal that
    supersedes the update).

    :raises errors.BadRequest: ``NotSupported`` unless the stack is UPDATE_IN_PROGRESS, with
        Heat's message ``Cancelling update when stack is ('CREATE', 'COMPLETE')``.
    """
    def not_supported(row: Any) -> errors.BadRequest:
        return errors.BadRequest(f"Cancelling update when stack is "
                                 f"('{row.action}', '{row.status}')", heat_type="NotSupported")

    if (st.action, st.status) != ("UPDATE", "IN_PROGRESS"):
        raise not_supported(st)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        if (row.action, row.status) != ("UPDATE", "IN_PROGRESS"):
            raise not_supported(row)
        if updates.rollback(s, row) is None:
            raise not_supported(row)
