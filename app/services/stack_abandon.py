"""Stack abandon, export and adopt, as Heat's engine ``abandon_stack`` / ``export_stack`` and
``create_stack`` with ``adopt_stack_data`` (``heat/engine/service.py``, ``heat/engine/stack.py``
``prepare_abandon``, ``heat/engine/resource.py`` ``prepare_abandon`` / ``handle_adopt``).

More in docs/code/services.md (app.services.stack_abandon).
"""
from __future__ import annotations

from typing import Any

import yaml

from app import config, errors
from app.context import RequestContext
from app.convergence import traversal as convergence_traversal
from app.convergence.steps import retain
from app.convergence.store import stack_data
from app.engine.states import Action
from app.models import Stack, read_session, session
from app.services import exports, protection, stacks


def refuse(feature: str) -> errors.BadRequest:
    """Heat's ``NotSupported``: ``"<feature> is not supported."`` (400)."""
    return errors.BadRequest(f"{feature} is not supported.", heat_type="NotSupported")


def abandon_data(ctx: RequestContext, st: Stack) -> dict[str, Any]:
    """The stack's abandon data (:mod:`app.convergence.store.stack_data`). O(resources)."""
    with read_session() as s:
        row = s.get(Stack, st.id)
        assert row is not None
        return stack_data.of(s, row)


def _live(ctx: RequestContext, stack_name: str, stack_id: str) -> Stack:
    if not config.get().enable_stack_abandon:
        raise refuse("Stack Abandon")
    st = stacks.get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None or st.stack_status == f"{Action.DELETE}_COMPLETE":
        raise errors.NotFound("Stack", stack_name)
    return st


def export_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> dict[str, Any]:
    """The stack's abandon data; nothing changes. :raises errors.BadRequest: disabled;
    :raises errors.NotFound: unknown or deleted stack."""
    return abandon_data(ctx, _live(ctx, stack_name, stack_id))


def abandon_stack(ctx: RequestContext, stack_name: str, stack_id: str) -> dict[str, Any]:
    """Delete the stack but keep its cloud resources; :returns: its abandon data, taken before.
    :raises: as :func:`export_stack`; errors.Conflict: termination protection is enabled, or
        another stack imports one of its exports."""
    st = _live(ctx, stack_name, stack_id)
    data = abandon_data(ctx, st)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        protection.check_deletable(s, row)
        exports.check_delete(s, row)
        retain.retain_all(s, st.id)
        convergence_traversal.start_reverse(s, row, Action.DELETE)
    return data


def parse_adopt_data(raw: Any) -> dict[str, Any]:
    """The adopt data of a create body (a JSON/YAML text, as heatclient sends it, or a mapping),
    checked up front as heat-api's ``InstantiationData.template`` (``simple_parse``).

    :raises errors.BadRequest: "Invalid adopt data: <why>" (heat-api's wording: "Error parsing
        template [root stack] ...", "The template is not a JSON object or YAML mapping.",
        "'template'" for a missing template) when it does not parse, is not a mapping or has no
        ``template``; also (Stoker, before anything is written) when its template or its
        ``resources`` is not a mapping, where Heat fails later or answers 500."""
    try:
        data = yaml.safe_load(raw) if isinstance(raw, str) else raw
    except yaml.YAMLError as exc:
        raise errors.BadRequest(f"Invalid adopt data: Error parsing template [root stack] "
                                f"{exc}") from None
    if data is None and isinstance(raw, str):
        data = {}
    if not isinstance(data, dict):
        raise errors.BadRequest("Invalid adopt data: The template is not a JSON object or YAML "
                                "mapping.")
    if "template" not in data:
        raise errors.BadRequest("Invalid adopt data: 'template'")
    if not isinstance(data["template"], dict):
        raise errors.BadRequest("Invalid adopt data: its template is not a JSON object or YAML "
                                "mapping.")
    if not isinstance(data.get("resources") or {}, dict):
        raise errors.BadRequest("Invalid adopt data: resources must be a mapping")
    return dict(data)


def adopt_stack(ctx: RequestContext, adopt_data: dict[str, Any], **create: Any) -> Stack:
    """Create a stack (``create``: :func:`app.services.stacks.create_stack`'s arguments, its
    template the adopt data's) whose resources are adopted from ``adopt_data["resources"]``.
    Parameters are the adopt data's environment's, overridden by the request's (Heat).

    :raises errors.BadRequest: ``NotSupported`` when adopt is disabled; as ``create_stack``."""
    if not config.get().enable_stack_adopt:
        raise refuse("Stack Adopt")
    env = adopt_data.get("environment") or {}
    params = dict(env.get("parameters") or {}) if isinstance(env, dict) else {}
    params.update(create.pop("parameters", None) or {})
    resources = adopt_data.get("resources") or {}
    if not isinstance(resources, dict):
        raise errors.BadRequest("Invalid adopt data: resources must be a mapping")
    return stacks.create_stack(ctx, parameters=params, adopt_resources=resources, **create)
