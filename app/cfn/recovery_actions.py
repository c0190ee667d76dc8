"""RollbackStack and ContinueUpdateRollback of the CFN query API (AWS's actions and shapes)
through :mod:`app.services.recovery`: a stack that ended CREATE_FAILED or UPDATE_FAILED
(created or updated with ``DisableRollback=true`` / ``OnFailure=DO_NOTHING``) rolls back on
request; a stack whose rollback failed (ROLLBACK_FAILED: Heat names a create's and an update's
rollback alike) continues it, skipping ``ResourcesToSkip``. Any other state is AWS's
``ValidationError`` and nothing changes. (Retrying such a stack is
UpdateStack with its own template, ``UsePreviousTemplate=true``: what completed is kept.)
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.cfn import formats
from app.cfn.params import member_list, required
from app.cfn.stack_actions import identify
from app.context import RequestContext
from app.services import recovery, stacks


def rollback(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """RollbackStack → ``{"StackId": arn}``; the stack goes ROLLBACK_IN_PROGRESS (a failed
    create) or back to its previous template (a failed update)."""
    st = identify(ctx, required(params, "StackName"))
    recovery.rollback(ctx, st.name, st.id)
    return {"StackId": formats.arn_of(stacks.get_by_id(ctx, st.id))}


def continue_rollback(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """ContinueUpdateRollback → an empty result; ``ResourcesToSkip.member.N`` (logical ids of
    failed resources of the stack) are kept in the cloud and dropped from the stack."""
    st = identify(ctx, required(params, "StackName"))
    skip = [m.get("", "") for m in member_list(params, "ResourcesToSkip")]
    recovery.continue_rollback(ctx, st.name, st.id, skip)
    return {}
