"""The guards of a stack set through the APIs: termination protection
(:mod:`app.services.protection` enforces it) and the stack policy
(:mod:`app.services.stack_policy` enforces it), as CloudFormation's UpdateTerminationProtection,
SetStackPolicy and GetStackPolicy.
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.context import RequestContext
from app.engine.states import Action, Status
from app.models import Stack, session
from app.services import stacks
from app.services.protection import root_of


def locked_live(s: Any, st: Stack) -> Stack:
    """``st``'s row in ``s``, locked for the caller's change.
    :raises errors.NotFound: deleted meanwhile (or DELETE_COMPLETE)."""
    row = s.get(Stack, st.id, with_for_update=True)
    if row is None or row.deleted_at is not None \
            or row.stack_status == f"{Action.DELETE}_{Status.COMPLETE}":
        raise errors.NotFound("Stack", st.name)
    return row


def set_termination_protection(ctx: RequestContext, stack_name: str, stack_id: str,
                               enabled: Any) -> Stack:
    """Enable or disable termination protection of a top-level stack (CloudFormation's
    UpdateTerminationProtection). :returns: the stack row after the change.

    :raises errors.NotFound: unknown, another tenant's, or deleted.
    :raises errors.BadRequest: ``enabled`` not a boolean; a nested stack (set on its root);
        a stack being deleted (CloudFormation: any status but DELETE_IN_PROGRESS).
    """
    if not isinstance(enabled, bool):
        raise errors.BadRequest(f"termination_protection must be true or false, not "
                                f"{enabled!r}.")
    st = stacks.get_stack(ctx, stack_name, stack_id)
    with session() as s:
        row = locked_live(s, st)
        if row.action == Action.DELETE and row.status == Status.IN_PROGRESS:
            raise errors.BadRequest(f"Termination protection of stack [{row.name}] cannot be "
                                    "changed while it is being deleted.",
                                    heat_type="NotSupported")
        if row.parent_id is not None:
            root = root_of(s, row)
            raise errors.BadRequest(
                f"Stack [{row.name}] is a nested stack: its termination protection is its "
                f"root stack's [{root.name}] and can only be changed there.",
                heat_type="NotSupported")
        row.termination_protection = enabled
    return stacks.get_by_id(ctx, stack_id)
