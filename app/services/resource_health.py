"""Marking a resource unhealthy (or healthy again), as Heat's engine
``resource_mark_unhealthy`` (``heat/engine/service.py``).

``mark_unhealthy=True`` puts the resource in CHECK_FAILED with the reason (default "state changed
by resource_mark_unhealthy api") unless its last action is DELETE; ``False`` brings a
CHECK_FAILED resource back to CHECK_COMPLETE; otherwise nothing changes. Each change writes the
resource's event. A CHECK_FAILED resource is replaced by the next update (Heat's
``always_replace_on_check_failed``). The resource is named by its logical name or its physical
id. One transaction, the row locked.
"""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import errors
from app.context import RequestContext
from app.convergence.store import events
from app.engine.states import Action, Status
from app.models import Resource, Stack, session, utcnow
from app.services import stacks
from app.services.stack_actions import in_progress

DEFAULT_REASON = "state changed by resource_mark_unhealthy api"


def _find(s: Session, stack: Stack, resource_name: str) -> Resource:
    """The stack's resource by name, else by physical id (Heat's ``_find_resource_in_stack``).

    :raises errors.NotFound: ``ResourceNotFound`` "The Resource (x) could not be found in Stack
        y."; :raises errors.BadRequest: ``PhysicalResourceIDAmbiguity``."""
    q = select(Resource).where(Resource.stack_id == stack.id).with_for_update()
    row = s.execute(q.where(Resource.name == resource_name)).scalar()
    if row is not None:
        return row
    rows = list(s.execute(q.where(Resource.physical_resource_id == resource_name)).scalars())
    if len(rows) > 1:
        raise errors.BadRequest(f"Multiple resources were found with the physical ID "
                                f"({resource_name}).", heat_type="PhysicalResourceIDAmbiguity")
    if not rows:
        raise errors.NotFound("Resource", resource_name,
                              f"The Resource ({resource_name}) could not be found in Stack "
                              f"{stack.name}.", heat_type="ResourceNotFound")
    return rows[0]


def mark_unhealthy(ctx: RequestContext, stack_name: str, stack_id: str, resource_name: str,
                   mark: bool, reason: str | None = None) -> None:
    """Set the resource's health (see the module docstring).

    :raises errors.NotFound: unknown stack or resource; :raises errors.BadRequest: ``Invalid``
        when ``mark`` is not a boolean; :raises errors.Conflict: ``ActionInProgress`` when an
        action of the resource is in progress (its lock is held, or it is IN_PROGRESS)."""
    if not isinstance(mark, bool):
        raise errors.BadRequest("Data supplied was not valid: mark_unhealthy is not a boolean",
                                heat_type="Invalid")
    st = stacks.get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None:
        raise errors.NotFound("Stack", stack_name)
    reason = reason or DEFAULT_REASON
    with session() as s:
        r = _find(s, st, resource_name)
        if r.engine_id is not None or r.status == Status.IN_PROGRESS:
            raise in_progress(st)
        if mark:
            if r.action == Action.DELETE:
                return
            r.action, r.status = Action.CHECK.value, Status.FAILED.value
        elif (r.action, r.status) == (Action.CHECK, Status.FAILED):
            r.status = Status.COMPLETE.value
        else:
            return
        r.status_reason, r.updated_at = reason, utcnow()
        events.add_event(s, st.id, r.name, r.physical_resource_id, r.type, r.action, r.status,
                         reason)
