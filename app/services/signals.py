"""Resource signals and metadata, for the API (Heat's ``EngineService.resource_signal`` and
``describe_stack_resource``'s metadata, heat/engine/service.py).

- :func:`signal` checks what Heat checks before a signal runs (the stack is live, the
  resource exists, its type takes signals, it is not being deleted or suspended), then delivers
  it through :mod:`app.convergence.steps.signals` (the plugin's ``handle_signal`` under the
  resource's lock, Heat's signal event, the waiting node woken).
- :func:`metadata` is the resource's live metadata: a wait condition handle's signals, else its
  template ``metadata`` resolved.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.convergence import plugins, stack_outputs, wakeups
from app.convergence.steps import hooks
from app.convergence.steps import signals as delivery
from app.convergence.store import attrdata, definitions, events
from app.convergence.store.rows import ResourceRow
from app.engine.states import Status
from app.models import Resource, Stack, read_session, session
from app.resource_types import _wait, base, registry
from app.templates.registry import HOOK_TYPES


def _live(stack: Stack) -> None:
    if stack.deleted_at is not None:
        raise errors.NotFound("Stack", stack.name)


def _row(stack: Stack, resource_name: str) -> Resource:
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == stack.id,
                                               Resource.name == resource_name)).scalar()
    if row is None:
        raise errors.NotFound("Resource", resource_name,
                              f"The Resource ({resource_name}) could not be found in Stack "
                              f"{stack.name}.", heat_type="ResourceNotFound")
    return row


def signal(ctx: RequestContext, stack: Stack, resource_name: str, details: Any) -> None:
    """Signal ``resource_name`` of ``stack`` with ``details`` (the request's JSON, or None).

    :raises errors.NotFound: the stack was deleted (``The Stack (s) could not be found.``), or
        the resource does not exist (Heat's ``ResourceNotFound``).
    :raises base.ResourceActionNotSupported: its type takes no signal (400
        "signal is not supported for resource.").
    :raises base.NotSupported: it is being deleted or suspended (400).
    :raises errors.BadRequest: the signal is malformed for the type (e.g. a wait condition
        handle's "Metadata format invalid").
    """
    _live(stack)
    row = _row(stack, resource_name)
    cls = registry.get(str((row.rsrc_data or {}).get("_impl") or row.type))
    if isinstance(details, dict) and "unset_hook" in details:
        _unset_hook(stack, row, cls, details["unset_hook"])
        return
    if not delivery.takes_signal(cls):
        raise base.ResourceActionNotSupported("signal")
    if delivery.deliver(stack, row.id, details) is not None \
            and getattr(cls, "signals_change_attributes", False):
        _read_attributes_again(stack, row.id)


def _read_attributes_again(stack: Stack, resource_id: int) -> None:
    """Heat resolves attributes live, so what a signal changed (a workflow's ``executions``)
    shows at once: the attributes the resource passes on are read again and, unless a
    traversal is in progress (it resolves them at its end), the stack's outputs too.
    O(referenced attributes) cloud reads; one that fails leaves what was stored."""
    with read_session() as s:
        row = s.get(Resource, resource_id)
        st = s.get(Stack, stack.id)
        if row is None or st is None:
            return
        r = ResourceRow.of(row)
        props = dict(row.properties_data or {})
    loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    try:
        plugin = plugins.registry_plugin(r, st, props)
        data = attrdata.attr_data(plugin, loaded.definition.referenced_attributes(r.name))
    except Exception:   # the cloud cannot be read now: the stored attributes stay
        return
    with session() as s:
        current = s.get(Resource, resource_id, with_for_update=True)
        st = s.get(Stack, stack.id)
        if current is None or st is None:
            return
        current.attr_data = {**(current.attr_data or {}), **data}
        s.flush()
        if st.status != Status.IN_PROGRESS:
            st.outputs = stack_outputs.resolve_outputs(s, st.id, loaded)


def _describe(stack: Stack, row: Resource, cls: type[Any] | None) -> str:
    """Heat's ``str(resource)``: ``<Class> "<name>" [<physical id>] Stack "<name>" [<id>]``."""
    rid = f" [{row.physical_resource_id}]" if row.physical_resource_id else ""
    return (f'{cls.__name__ if cls else "Resource"} "{row.name}"{rid} '
            f'Stack "{stack.name}" [{stack.id}]')


def _unset_hook(stack: Stack, row: Resource, cls: type[Any] | None, hook: Any) -> None:
    """A signal ``{"unset_hook": <hook>}`` clears a breakpoint (Heat's ``_signal_check_hook``
    and ``_unset_hook``): the hook must be a hook type and set on the resource in the stack's
    environment; the "Hook <hook> is cleared" event is written.

    :raises errors.BadRequest: ``InvalidBreakPointHook`` with Heat's wording."""
    if hook not in HOOK_TYPES:
        raise errors.BadRequest(f'Invalid hook type "{hook}" for {_describe(stack, row, cls)}',
                                heat_type="InvalidBreakPointHook")
    loaded = definitions.load(stack.id, stack.raw_template_id, stack.name, stack.tenant)
    env = loaded.definition.environment
    defined = env.registry().hooks_for(row.name) if env is not None else set()
    if hook not in defined:
        raise errors.BadRequest(f'The "{hook}" hook is not defined on '
                                f'{_describe(stack, row, cls)}',
                                heat_type="InvalidBreakPointHook")
    with session() as s:
        events.add_event(s, stack.id, row.name, row.physical_resource_id, row.type, row.action,
                         row.status, f"Hook {hook} is cleared")
    wakeups.wake(stack.id, row.id, hooks.hook_event(row.id))   # the paused node goes on


def metadata(ctx: RequestContext, stack: Stack, resource_name: str) -> dict[str, Any]:
    """The resource's metadata (``{}`` when it has none): a handle's stored signals
    ``{id: {"status", "reason", "data"}}``, else the template's ``metadata`` resolved
    against the stack's resources. :raises errors.NotFound: no such resource."""
    row = _row(stack, resource_name)
    data = row.rsrc_data or {}
    if _wait.METADATA in data:
        return _wait.metadata_of(data)
    with read_session() as s:
        rows = s.execute(select(Resource.name, Resource.attr_data)
                         .where(Resource.stack_id == stack.id)).all()
    try:
        loaded = definitions.load(stack.id, stack.raw_template_id, stack.name, stack.tenant)
        value = loaded.definition.resolve_metadata(
            resource_name, attrdata.DataContext({r.name: r.attr_data for r in rows}))
    except Exception:  # a definition that no longer resolves has no metadata to show
        return {}
    return dict(value) if isinstance(value, dict) else {}


def signing_keys(stack: Stack, resource_name: str) -> tuple[str, str] | None:
    """``(access key, secret key)`` that sign the resource's pre-signed URL (an AWS wait
    condition handle's), None when it has none. :raises errors.NotFound: no such resource."""
    data = _row(stack, resource_name).rsrc_data or {}
    if data.get("access_key") and data.get("secret_key"):
        return str(data["access_key"]), str(data["secret_key"])
    return None
