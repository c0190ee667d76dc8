"""Ways forward for a failed stack (CloudFormation's; Heat lacks them): ``retry`` a
CREATE_FAILED or UPDATE_FAILED stack (rollback disabled): what failed or never started runs
again, what completed is kept; ``rollback`` it on request (AWS's RollbackStack);
``continue_rollback`` a ROLLBACK_FAILED one (AWS's ContinueUpdateRollback), skipping failed
resources: each is kept in the cloud and dropped from the stack, with an event.

They are stack actions (``POST .../actions {"retry": null}``, ``{"rollback": null}``,
``{"continue_rollback": {"resources_to_skip": [...]}}``).
Errors: 409 ``ActionInProgress``; 400 ``NotSupported`` for a stack in any other state; 400
for an action value with a key the action does not take; nothing is changed then.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.convergence import traversal
from app.convergence.store import definitions, events
from app.engine.states import Action, Status
from app.models import Resource, Stack, session
from app.services import updates
from app.services.stack_actions import _live, in_progress

ACTIONS = ("retry", "rollback", "continue_rollback")
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


def continue_rollback(ctx: RequestContext, stack_name: str, stack_id: str,
                      skip: Sequence[str] = ()) -> None:
    """Run the failed rollback again: a create's deletes what is left, an update's updates
    back to the template it returns to. Each resource of ``skip`` (in a FAILED state) is
    dropped from the stack first and kept in the cloud, with an event; one that the template
    rolled back to still holds cannot be skipped (it would be made again).

    :raises errors.BadRequest: ``NotSupported`` (not ROLLBACK_FAILED), or a bad ``skip``
        (unknown, not failed, in the template); nothing is changed."""
    st = _live(ctx, stack_name, stack_id)
    _check_rollback_failed(st)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        _check_rollback_failed(row)
        rows = {r.name: r for r in s.execute(select(Resource).where(
            Resource.stack_id == row.id)).scalars()}
        forward = bool(row.current_traversal) and traversal.has_forward_nodes(
            s, str(row.current_traversal))
        loaded = definitions.load(row.id, row.raw_template_id, row.name, row.tenant) \
            if forward else None
        _check_skip(skip, rows, loaded)
        dropped = [_drop(s, rows.pop(name), rows.values()) for name in dict.fromkeys(skip)]
        if loaded is not None:
            traversal.start_update(s, row, loaded, Action.ROLLBACK)
        else:
            traversal.start_reverse(s, row, Action.ROLLBACK)
        for r in dropped:   # after the ROLLBACK's start: they are part of this operation
            _skipped(s, row, r)


def _check_rollback_failed(row: Stack) -> None:
    if row.status == Status.IN_PROGRESS:
        raise in_progress(row)
    if (row.action, row.status) != (Action.ROLLBACK, Status.FAILED):
        raise errors.BadRequest(f"Continuing the rollback of a stack in {row.stack_status} "
                                "state is not supported: only a ROLLBACK_FAILED stack's.",
                                heat_type="NotSupported")


def _check_skip(skip: Sequence[str], rows: dict[str, Resource], loaded: Any) -> None:
    if isinstance(skip, str) or not all(isinstance(n, str) for n in skip):
        raise errors.BadRequest("resources_to_skip must be a list of resource names.")
    for name in skip:
        r = rows.get(name)
        if r is None:
            raise errors.BadRequest(f"Resource {name} to skip is not in the stack.")
        if r.status != Status.FAILED:
            raise errors.BadRequest(f"Resource {name} to skip is {r.action}_{r.status}: only a "
                                    "failed resource can be skipped.")
        if loaded is not None and name in loaded.definition.resources:
            raise errors.BadRequest(f"Resource {name} is in the template the rollback returns "
                                    "to: it cannot be skipped.")


def _drop(s: Any, r: Resource, others: Any) -> Resource:
    """Forget ``r`` (its cloud object stays); dependents no longer wait on it. :returns: r."""
    for other in others:
        if r.name in (other.requires or ()):
            other.requires = [n for n in other.requires if n != r.name]
    s.delete(r)
    return r


def _skipped(s: Any, st: Stack, r: Resource) -> None:
    """The event of the skipped ``r``, written after the continued ROLLBACK's start event so
    that the operation's timeline shows it."""
    events.add_event(s, st.id, r.name, r.physical_resource_id, r.type, Action.ROLLBACK,
                     Status.COMPLETE, "Skipped by continue_rollback: kept in the cloud "
                     f"({r.physical_resource_id or 'nothing was made'}) and dropped from the "
                     "stack")


#: the keys each action's value may hold (its value is null or an object of these)
ARGUMENTS: dict[str, tuple[str, ...]] = {"retry": (), "rollback": (),
                                         "continue_rollback": ("resources_to_skip",)}


def act(ctx: RequestContext, stack_name: str, stack_id: str, action: str,
        body: Any = None) -> None:
    """Run one of :data:`ACTIONS` (``body``: the action's value in the request: null, or an
    object of the keys :data:`ARGUMENTS` allows it; an empty object is null).
    :raises errors.BadRequest: any other value or key, before anything is read or changed
        (as heat-api refuses an action body it does not know, not ignoring part of it).
    :raises ValueError: an unknown action."""
    if action not in ARGUMENTS:
        raise ValueError(action)
    allowed = ARGUMENTS[action]
    takes = "null" + (" or {" + ", ".join(f'"{k}": [...]' for k in allowed) + "}"
                      if allowed else "")
    if body is not None and not isinstance(body, dict):
        raise errors.BadRequest(f"Invalid value for action {action}: it takes {takes}.")
    unknown = sorted(set(body or {}) - set(allowed))
    if unknown:
        raise errors.BadRequest(f"Invalid key(s) {', '.join(unknown)} for action {action}: "
                                f"it takes {takes}.")
    if action == "continue_rollback":
        continue_rollback(ctx, stack_name, stack_id, (body or {}).get("resources_to_skip", []))
    elif action == "retry":
        retry(ctx, stack_name, stack_id)
    else:
        rollback(ctx, stack_name, stack_id)
