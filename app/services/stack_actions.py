"""Stack actions (``POST /stacks/{name}/{id}/actions``), as Heat's engine ``stack_suspend``,
``stack_resume``, ``stack_check`` and ``stack_cancel_update`` (``heat/engine/service.py``) on the
convergence engine.

More in docs/code/services.md (app.services.stack_actions).
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.context import RequestContext
from app.convergence import traversal
from app.convergence.steps import stopped
from app.engine.states import Action, Status
from app.models import Stack, session
from app.services import stacks, updates

#: Heat's action names (``heat/api/openstack/v1/actions.py``), in its order
ACTIONS = ("suspend", "resume", "check", "cancel_update", "cancel_without_rollback")


def _live(ctx: RequestContext, stack_name: str, stack_id: str) -> Stack:
    st = stacks.get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None or (st.action, st.status) == (Action.DELETE, Status.COMPLETE):
        raise errors.NotFound("Stack", stack_name)
    return st


def in_progress(st: Any) -> errors.Conflict:
    """Heat's ``ActionInProgress`` (409) for ``st``."""
    return errors.Conflict(f"Stack {st.name} already has an action ({st.action}) in progress.",
                           heat_type="ActionInProgress")


def _traversal_action(ctx: RequestContext, stack_name: str, stack_id: str,
                      action: Action) -> None:
    st = _live(ctx, stack_name, stack_id)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        if row.status == Status.IN_PROGRESS:
            raise in_progress(row)
        if action != Action.CHECK and (row.action, row.status) == (action, Status.COMPLETE):
            return  # Heat: "already suspended" / "already resumed", nothing to do
        traversal.start_action(s, row, action)


def suspend(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Suspend the stack's resources, dependents first (Heat's ``stack_suspend``).
    :raises errors.Conflict: ``ActionInProgress``."""
    _traversal_action(ctx, stack_name, stack_id, Action.SUSPEND)


def resume(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Resume the stack's resources in dependency order (Heat's ``stack_resume``).
    :raises errors.Conflict: ``ActionInProgress``."""
    _traversal_action(ctx, stack_name, stack_id, Action.RESUME)


def check(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Check every resource against the live cloud (Heat's ``stack_check``).
    :raises errors.Conflict: ``ActionInProgress``."""
    _traversal_action(ctx, stack_name, stack_id, Action.CHECK)


def _cannot_cancel(row: Any) -> errors.BadRequest:
    return errors.BadRequest(f"Cancelling update when stack is {row.action}_{row.status} "
                             "is not supported.", heat_type="NotSupported")


def cancel_update(ctx: RequestContext, stack_name: str, stack_id: str, *,
                  rollback: bool = True) -> None:
    """Cancel the update in progress (Heat's ``stack_cancel_update``): with ``rollback``, roll
    it back to the previous template (allowed in UPDATE_IN_PROGRESS only); without, stop the
    traversal (UPDATE_IN_PROGRESS or CREATE_IN_PROGRESS).

    :raises errors.BadRequest: ``NotSupported`` in any other state (or with nothing to roll
        back to)."""
    allowed = (Action.UPDATE,) if rollback else (Action.UPDATE, Action.CREATE)
    st = _live(ctx, stack_name, stack_id)
    if not (st.status == Status.IN_PROGRESS and st.action in allowed):
        raise _cannot_cancel(st)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        if not (row.status == Status.IN_PROGRESS and row.action in allowed):
            raise _cannot_cancel(row)
        if not rollback:
            stopped.stop(s, row)
        elif updates.rollback(s, row) is None:
            raise _cannot_cancel(row)


def act(ctx: RequestContext, stack_name: str, stack_id: str, action: str) -> None:
    """Run one of :data:`ACTIONS` on the stack. :raises ValueError: an unknown action (the API
    checks the name first); otherwise as the action's function."""
    if action == "cancel_update":
        cancel_update(ctx, stack_name, stack_id, rollback=True)
    elif action == "cancel_without_rollback":
        cancel_update(ctx, stack_name, stack_id, rollback=False)
    elif action in ("suspend", "resume", "check"):
        {"suspend": suspend, "resume": resume, "check": check}[action](ctx, stack_name, stack_id)
    else:
        raise ValueError(action)
