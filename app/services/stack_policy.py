"""Stack policies (CloudFormation's; Heat has none): stored with the stack, checked before an
update does anything.

An update is classified first by the update step's own verdicts
(:func:`app.services.update_preview.classify_prepared`): a resource updated in place is
``Update:Modify``, one replaced ``Update:Replace``, one removed ``Update:Delete`` (added ones
are not governed, as in AWS). The stack's policy — or the temporary one given for this update
only (CloudFormation's ``StackPolicyDuringUpdateBody``) — must allow every one of them
(:func:`app.engine.stack_policy.decide`), else the update is refused with nothing changed.
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.context import RequestContext
from app.engine import stack_policy as grammar
from app.models import Stack, session
from app.services import export_guard, guards, stacks, update_preview, updates

#: the Heat fault type of a refused update (HTTP 409); the CFN API answers ValidationError
DENIED = "UpdateDeniedByStackPolicy"
#: the preview's lists and the policy action each one needs
GOVERNED = {"updated": grammar.MODIFY, "replaced": grammar.REPLACE, "deleted": grammar.DELETE}


def parse_document(raw: Any) -> dict[str, Any]:
    """A policy document from a request (a mapping or its JSON text), checked.
    :raises errors.BadRequest: ``InvalidStackPolicy`` (400)."""
    return grammar.parse(raw)


def get_policy(ctx: RequestContext, stack_name: str, stack_id: str) -> dict[str, Any] | None:
    """The stack's policy document, None when it has none. :raises errors.NotFound."""
    return stacks.get_stack(ctx, stack_name, stack_id).stack_policy


def set_policy(ctx: RequestContext, stack_name: str, stack_id: str, raw: Any) -> dict[str, Any]:
    """Replace the stack's policy (CloudFormation's SetStackPolicy; a policy cannot be removed,
    only replaced, as in AWS). :returns: the stored document.

    :raises errors.BadRequest: a malformed document; nothing changes.
    :raises errors.NotFound: unknown, another tenant's, or deleted.
    """
    document = parse_document(raw)
    st = stacks.get_stack(ctx, stack_name, stack_id)
    with session() as s:
        guards.locked_live(s, st).stack_policy = document
    return document


def denials(st: Stack, prep: updates.Prepared, policy: dict[str, Any]) -> list[str]:
    """What ``policy`` refuses of the update ``prep`` of ``st``, one sentence per resource
    action, in the preview's order; empty when everything is allowed."""
    changes = update_preview.classify_prepared(st, prep)
    return refusals(policy, {kind: [(c.name, c.type) for c in changes[kind]]
                             for kind in GOVERNED})


def refusals(policy: dict[str, Any], changes: dict[str, list[tuple[str, str]]]) -> list[str]:
    """What ``policy`` refuses of ``changes`` (``{"updated"|"replaced"|"deleted": [(name,
    type)]}``), one sentence per resource action; empty when everything is allowed."""
    out = []
    for kind, action in GOVERNED.items():
        for name, rtype in changes.get(kind, []):
            verdict = grammar.decide(policy, action, name, rtype)
            if not verdict.allowed:
                out.append(f"{action} of resource [{name}] ({rtype}): {verdict.statement()}")
    return out


def refuse(refused: list[str]) -> None:
    """:raises errors.Conflict: ``UpdateDeniedByStackPolicy`` (409) when ``refused``."""
    if refused:
        raise errors.Conflict(f"Action denied by stack policy: {'; '.join(refused)}. "
                              "Nothing was changed.", heat_type=DENIED)


def update_stack(ctx: RequestContext, stack_name: str, stack_id: str, *,
                 stack_policy_during_update: Any = None, **request: Any) -> Stack:
    """:func:`app.services.updates.update_stack` behind the stack policy: the request is
    checked, classified and held against the stack's policy (or
    ``stack_policy_during_update``, a document used for this update instead) before anything
    is written. :returns: the stack row.

    :raises errors.Conflict: ``UpdateDeniedByStackPolicy`` (409) naming every refused resource
        action and the statement that decided it; nothing changes.
    :raises: as :func:`app.services.updates.update_stack`; errors.BadRequest for a malformed
        override policy.
    """
    override = None if stack_policy_during_update is None else parse_document(
        stack_policy_during_update)
    st = stacks.get_stack(ctx, stack_name, stack_id)
    updates.check_updatable(st)
    prep = updates.prepare_update(ctx, st, **request)
    check(st, prep, override)
    export_guard.check(st, prep)
    return updates.commit(ctx, st, prep)


def check(st: Stack, prep: updates.Prepared, override: dict[str, Any] | None = None) -> None:
    """Hold the prepared update ``prep`` of ``st`` against its stack policy (or ``override``,
    a parsed document used for this update instead); no policy: everything is allowed.

    :raises errors.Conflict: ``UpdateDeniedByStackPolicy`` (409) naming every refused resource
        action and the statement that decided it."""
    policy = override if override is not None else st.stack_policy
    if policy is not None:
        refuse(denials(st, prep, policy))
