"""Ways forward for a failed stack (CloudFormation's, which Heat lacks): ``retry`` a stack that
ended CREATE_FAILED or UPDATE_FAILED (rollback disabled), running again what failed or never
started while what completed is kept (same physical ids); ``rollback`` such a stack on
request (AWS's RollbackStack): a create by deleting what it made, an update back to the
previous template.

Both are stack actions (``POST .../actions {"retry": null}`` / ``{"rollback": null}``).
Errors: 409 ``ActionInProgress``; 400 ``NotSupported`` for a stack in any other state;
nothing is changed then.
"""
from __future__ import annotations

from app import errors
from app.context import RequestContext
from app.convergence import traversal
from app.engine.states import Action, Status
from app.models import Stack, session
from app.services import updates
from app.services.stack_actions import _live, in_progress

ACTIONS = ("retry", "rollback")
FAILED = ((Action.CREATE, Status.FAILED), (Action.UPDATE, Status.FAILED))


def _check_failed(row: Stack, what: str) -> None:
    if row.status == Status.IN_PROGRESS:
        raise in_progress(row)
    if (row.action, row.status) not in FAILED:
        raise errors.BadRequest(f"{what} a stack in {row.stack_status} state is not supported: "
                                "only a CREATE_FAILED or UPDATE_FAILED stack can be.",
                                heat_type="NotSupported")


def retry(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Run the failed action again on the stack's own template, parameters and environment:
    the update's classifier keeps every completed resource (unchanged) and makes again the
    failed ones (Heat's ``needs_replace_failed``) and those never created, as an UPDATE
    (Heat's update of a failed stack); what a later rollback returns to is kept.
    :raises: see the module docstring."""
    st = _live(ctx, stack_name, stack_id)
    _check_failed(st, "Retrying")
    prep = updates.prepare_update(ctx, st, existing=True)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        _check_failed(row, "Retrying")
        previous = row.prev_raw_template_id
        updates.apply(s, row, prep)
        row.prev_raw_template_id = previous


def rollback(ctx: RequestContext, stack_name: str, stack_id: str) -> None:
    """Roll the failed stack back (AWS's RollbackStack): a failed CREATE deletes what it made
    (ROLLBACK_COMPLETE), a failed UPDATE updates back to the previous template (deletes what
    it made when the stack never completed: a retried create).
    :raises: see the module docstring."""
    st = _live(ctx, stack_name, stack_id)
    _check_failed(st, "Rolling back")
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        _check_failed(row, "Rolling back")
        if row.action == Action.CREATE or updates.rollback(s, row) is None:
            traversal.start_reverse(s, row, Action.ROLLBACK)  # it never completed: delete


def act(ctx: RequestContext, stack_name: str, stack_id: str, action: str) -> None:
    """Run one of :data:`ACTIONS`. :raises ValueError: an unknown one."""
    if action == "retry":
        retry(ctx, stack_name, stack_id)
    elif action == "rollback":
        rollback(ctx, stack_name, stack_id)
    else:
        raise ValueError(action)
