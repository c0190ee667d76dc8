"""The steps of an UPDATE traversal's nodes (Heat's convergence update), called by
:func:`app.convergence.check.check_resource`.

More in docs/code/convergence.md (app.convergence.steps.update).
"""
from __future__ import annotations

import enum
from dataclasses import replace
from typing import Any

from app.convergence import unchanged
from app.convergence.nested import stacks as nested
from app.convergence.nested.groups import TEMPLATE, kind
from app.convergence.outcome import (
    Done,
    Failed,
    Node,
    Outcome,
    Poll,
    Record,
    ResourceEvent,
    Start,
    Wait,
    with_events,
)
from app.convergence.steps import changes, create, hooks, unfinished, waits
from app.convergence.store import attrdata, events, nodes
from app.convergence.store.rows import REPLACED, ResourceRow
from app.convergence.traversal import PROPS_BEFORE
from app.engine import change
from app.engine.change import Change, Why
from app.engine.states import Action, Status
from app.models import new_id, utcnow
from app.resource_types import base, failures

#: Heat's reason when a FAILED resource needs neither an update nor a replacement
FAILED_TO_COMPLETE = "Update status to COMPLETE for FAILED resource neither update nor replace."


def new_props(st: Any, r: Any, loaded: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The resource's new properties, resolved and validated as a create would."""
    if kind(loaded.definition.resources[r.name]) == TEMPLATE:
        props = loaded.definition.resolve_properties(r.name, attrdata.DataContext(data))
        return create.template_params(loaded.definition, r.name, props)
    return unchanged.properties(loaded, r.name, data)


def _foreign(handle: Any, traversal_id: str) -> bool:
    """Whether an in-progress action's handle was stored by another (superseded) traversal."""
    return isinstance(handle, dict) and handle.get("t") not in (None, traversal_id)


def _settle(node: Node) -> tuple[ResourceRow | Outcome, list[ResourceEvent]]:
    """Finish polling the action a superseded traversal left in progress on the row (a create,
    an update, a delete, or the freeing before a replacement), so that this traversal can
    compare the result with its own definition. :returns: the row once the action has ended
    (COMPLETE or FAILED, its attributes to be read again), or the Poll that looks again later
    (as this node's own)."""
    r = node.resource
    handle = r.stored_handle()
    action = r.action
    if action == Action.UPDATE and isinstance(handle, dict) and "prep" in handle:
        # the replacement is this traversal's to make
        return nodes.current().rewrite(r, handle={**r.handle, "t": node.traversal_id}), []
    plugin = nested.driver_for(r, node.stack, r.properties_data, node.loaded)
    check = {Action.CREATE: "check_create_complete", Action.UPDATE: "check_update_complete",
             Action.DELETE: "check_delete_complete"}.get(Action(action))
    status, reason = Status.COMPLETE, events.STATE_CHANGED
    try:
        done = True if check is None else bool(getattr(plugin, check)(handle))
    except Exception as exc:
        status, reason, done = Status.FAILED, failures.reason_of(r.name, exc), True
    if not done:  # still the superseded traversal's action: settled again at the next poll
        waiting = waits.wait_outcome(node, plugin, handle, None)  # a wait condition, a delay
        if isinstance(waiting, Wait):  # ... or when its event comes, holding no task
            return replace(waiting, owner=r.handle["t"]), []
        attempt = (r.poll_attempt or 0) + 1
        return Poll(handle, float(plugin.poll_delay(handle, attempt)), plugin,
                    owner=r.handle["t"]), []
    ended = nodes.current().rewrite(
        r, status=status, status_reason=reason, handle=None, poll_attempt=0, attr_data=None,
        physical_resource_id=plugin.resource_id, rsrc_data=plugin.data, updated_at=utcnow())
    return ended, [ResourceEvent(plugin.resource_id, r.type, action, status, reason)]


def forward(node: Node) -> Outcome:
    """One step of the forward node of the row in an UPDATE (or update ROLLBACK) traversal."""
    loaded = node.loaded
    assert loaded is not None
    if node.resource.status == Status.IN_PROGRESS \
            and _foreign(node.resource.handle, node.traversal_id):
        settled, rows = _settle(node)  # what a superseded traversal left running
        if not isinstance(settled, ResourceRow):
            return settled
        node.resource = settled
        return with_events(_forward(node, loaded), rows)  # its end's event, then this step's
    return _forward(node, loaded)


def _forward(node: Node, loaded: Any) -> Outcome:
    rdef = loaded.definition.resources[node.resource.name]
    r = node.resource
    if r.status == Status.IN_PROGRESS and r.handle is not None and r.action == Action.UPDATE:
        handle = r.stored_handle()
        if isinstance(handle, dict) and "prep" in handle:  # freeing things for a replacement
            return _prepare_then_replace(node, rdef, handle["prep"], Reset.REPLACE_ANNOUNCED)
        return _poll_update(node)
    if r.status == Status.IN_PROGRESS:  # a create (or an interrupted one) goes on
        return create.step(node)
    if changes.created(r) and r.rsrc_data.get(REPLACED):
        restored = _restore_previous(node, getattr(rdef, "implementation", rdef.type))
        if restored is not None:
            return restored
    props = changes.memo(lambda: new_props(node.stack, r, loaded, node.inputs))
    says = changes.PluginSays(
        lambda p: nested.driver_for(r, node.stack, p, loaded), r.properties_data,
        lambda p: nested.driver_for(r, node.stack, dict(p), loaded).validate())
    try:
        verdict = change.classify(changes.stored(r), changes.wanted(r.name, rdef, props), says)
        if verdict.why is Why.NESTED:
            props()  # resolved before the hook, as every other update's are
    except changes.Unresolved as exc:  # a property check starts and fails it
        return create.not_started(r.name, exc.cause, Action.UPDATE)
    except changes.Invalid as exc:
        return _refused(node, says, props(), exc.cause)
    return _act(node, rdef, verdict, says, props)


def _act(node: Node, rdef: Any, verdict: change.Verdict, says: changes.PluginSays,
         props: Any) -> Outcome:
    """Carry out ``verdict`` on the row (``props()``: its new properties, resolved once)."""
    r = node.resource
    if verdict.why is Why.NOT_CREATED:
        if r.physical_resource_id:
            node.resource, _ = _reset(r, rdef, Reset.AFRESH)
        return create.step(node)
    if verdict.why is Why.TYPE:
        return _prepare_then_replace(node, rdef, None, Reset.REPLACE)
    if verdict.why is Why.EXTERNAL_ID_CHANGED:  # Heat fails it before anything else
        return _refused(node, says, dict(r.properties_data or {}),
                        base.NotSupported(str(verdict.refusal)))
    if verdict.why is not Why.EXTERNAL_ID_KEPT:
        paused = hooks.pause(node, "pre-update", "UPDATE", says.old())
        if paused is not None:  # Heat breaks before comparing (an unchanged one pauses too)
            return paused
    if verdict.change is Change.UNCHANGED:
        # nothing to do, but its attributes are read again (the cloud may have changed
        # them: a volume attached since, an address), as Heat resolves them live
        plugin = says.old() if verdict.why is Why.EXTERNAL_ID_KEPT \
            else nested.driver_for(r, node.stack, props(), node.loaded)
        if r.status == Status.FAILED:  # healthy and as wanted: Heat marks it COMPLETE
            return Done(plugin, action=Action(r.action), reason=FAILED_TO_COMPLETE)
        return Done(plugin, record=Record.UNTOUCHED)
    if verdict.change is Change.REPLACE:
        announced = verdict.why in (Why.NOT_UPDATE_ALLOWED, Why.PLUGIN_RULE)
        return _prepare_then_replace(node, rdef, None,
                                     Reset.REPLACE_ANNOUNCED if announced else Reset.REPLACE)
    if verdict.refusal is not None:
        return _refused(node, says, props(), base.NotSupported(verdict.refusal))
    return _update(node, says, props())


def _refused(node: Node, says: changes.PluginSays, props: dict[str, Any],
             exc: Exception) -> Outcome:
    """UPDATE_IN_PROGRESS, then UPDATE_FAILED for ``exc``; the row keeps the properties it
    had."""
    r = node.resource
    plugin = says.old()
    plugin.data[PROPS_BEFORE] = dict(r.properties_data or {})
    return Failed(exc, plugin=plugin,
                  start=Start(Action.UPDATE, props), action=Action.UPDATE)


def _update(node: Node, says: changes.PluginSays, props: dict[str, Any]) -> Outcome:
    """Update in place: the child stack of a nested resource, else the plugin's
    ``handle_update`` with its diff, polled by ``check_update_complete``."""
    r = node.resource
    plugin = says.old()
    start = Start(Action.UPDATE, props)
    try:
        if r.nested_kind:
            handle = plugin.handle_update(node.traversal_id, props)
        else:
            # kept: an update that fails keeps the properties it had
            plugin.data[PROPS_BEFORE] = dict(r.properties_data or {})
            handle = plugin.handle_update(props, says.changed)
        done = plugin.check_update_complete(handle)
    except base.UpdateReplace:
        assert node.loaded is not None
        return _prepare_then_replace(node, node.loaded.definition.resources[r.name], None,
                                     Reset.REPLACE_ANNOUNCED)
    except Exception as exc:
        return Failed(exc, plugin=plugin, start=start,
                      action=Action.UPDATE)
    return _finish_update(node, plugin, handle, done, start)


def _restore_previous(node: Node, impl: str) -> Outcome | None:
    """Heat's "rolling back to previous resource": when a physical resource this row replaced
    (and still holds, ``_replaced``) matches the new definition exactly (type and resolved
    properties), it becomes the row's resource again and the replacement is queued for the
    cleanup node instead — a rollback restores the original rather than building a third.
    One that was FAILED when replaced (a drift revert's deleted resource, a CHECK_FAILED one)
    is never restored: Heat replaces a FAILED resource. :returns: Done when it did, else None."""
    r = node.resource
    try:
        props = new_props(node.stack, r, node.loaded, node.inputs)
    except Exception:
        return None
    queue = list(r.rsrc_data.get(REPLACED) or [])
    match = next((i for i in range(len(queue) - 1, -1, -1)
                  if queue[i].get("impl") == impl and "attr_data" in queue[i]
                  and queue[i].get("properties_data") == props and "handle" not in queue[i]
                  and not queue[i].get("failed")),
                 None)
    if match is None:
        return None
    old = queue.pop(match)
    current = dict(r.rsrc_data)
    current.pop(REPLACED, None)
    if r.physical_resource_id or current.get("nested"):
        queue.append(_entry(r, current))
    restored = {**(old.get("rsrc_data") or {}), **({REPLACED: queue} if queue else {})}
    node.resource = nodes.current().rewrite(
        r, uuid=old.get("uuid") or r.uuid, type=old["type"],
        physical_resource_id=old.get("physical_resource_id"),
        properties_data=old.get("properties_data"), attr_data=old.get("attr_data"),
        rsrc_data=restored, handle=None, poll_attempt=0)
    return Done(action=Action.UPDATE, start=Start(Action.UPDATE))


def _entry(r: ResourceRow, data: dict[str, Any], rdef: Any = None) -> dict[str, Any]:
    """What the cleanup node needs to delete (or a later update to restore) the row's current
    physical resource; its policy is the replacing definition ``rdef``'s
    ``update_replace_policy`` when it has one, else the row's deletion policy."""
    policy = getattr(rdef, "update_replace_policy", None) or r.deletion_policy
    return {"type": r.type, "impl": r.impl(), "uuid": r.uuid,
            "physical_resource_id": r.physical_resource_id,
            "properties_data": r.properties_data, "rsrc_data": data,
            "attr_data": r.attr_data, "deletion_policy": policy,
            "failed": r.status == Status.FAILED}


def _finish_update(node: Node, plugin: Any, handle: Any, done: bool,
                   start: Start | None) -> Outcome:
    if done:
        return Done(plugin, action=Action.UPDATE, start=start)
    return unfinished.outcome(node, plugin, handle, start)


def _poll_update(node: Node) -> Outcome:
    r = node.resource
    plugin = nested.driver_for(r, node.stack, r.properties_data, node.loaded)
    handle = r.stored_handle()
    try:
        done = plugin.check_update_complete(handle)
    except Exception as exc:
        return Failed(exc, plugin=plugin, action=Action.UPDATE)
    return _finish_update(node, plugin, handle, done, None)


class Reset(enum.Enum):
    """How a row is made ready for a fresh create."""
    AFRESH = "afresh"              # nothing of it exists any more: nothing is kept
    REPLACE = "replace"            # its physical resource is queued for the cleanup node
    REPLACE_ANNOUNCED = "announced"  # the same, with an UPDATE_IN_PROGRESS event


def _reset(r: ResourceRow, rdef: Any, how: Reset) -> tuple[ResourceRow, list[ResourceEvent]]:
    """Make the row ready for a fresh create of ``rdef`` (see :class:`Reset`), in one
    transaction, before the create's cloud call; :returns: the row, and the announcing
    event for the create's outcome to carry."""
    old_data = dict(r.rsrc_data)
    queue = list(old_data.pop(REPLACED, None) or [])
    keep = how is not Reset.AFRESH
    if keep and (r.physical_resource_id or old_data.get("nested")):
        queue.append(_entry(r, old_data, rdef))
    data: dict[str, Any] = {REPLACED: queue} if queue else {}
    impl = getattr(rdef, "implementation", rdef.type)
    if impl != rdef.type:
        data["_impl"] = impl
    if kind(rdef):
        data["nested"] = kind(rdef)
    values: dict[str, Any] = {"uuid": new_id()} if keep else {}  # a new resource, as Heat's
    reset = nodes.current().rewrite(
        r, **values, type=rdef.type, action=Action.INIT, status=Status.COMPLETE,
        status_reason="", physical_resource_id=None, properties_data=None, attr_data=None,
        handle=None, poll_attempt=0, rsrc_data=data, updated_at=utcnow())
    announced = [ResourceEvent(r.physical_resource_id, r.type, Action.UPDATE, Status.IN_PROGRESS)
                 ] if how is Reset.REPLACE_ANNOUNCED else []
    return reset, announced


def _prepare_then_replace(node: Node, rdef: Any, handle: Any, how: Reset) -> Outcome:
    """Replace the row's resource, once the old physical resource has freed what the
    replacement takes over (the plugin's ``prepare_for_replace``, polled; ``handle`` is the
    stored one of an earlier poll). ``how=REPLACE_ANNOUNCED``: write UPDATE_IN_PROGRESS when
    the replacement starts (in the step that starts it)."""
    r = node.resource
    old = nested.driver_for(r, node.stack, r.properties_data, node.loaded)
    first = handle is None
    try:
        if first and hasattr(old, "prepare_for_replace"):
            handle = old.prepare_for_replace()
        done = handle is None or old.check_prepare_for_replace_complete(handle)
    except Exception as exc:
        return Failed(exc, plugin=old,
                      start=Start(Action.UPDATE) if first else None, action=Action.UPDATE)
    if not done:
        return Poll.next(old, {"prep": handle}, r, Start(Action.UPDATE) if first else None)
    # UpdateReplace: keep the old physical resource for the cleanup node, create the new
    node.resource, announced = _reset(r, rdef, how if first else Reset.REPLACE)
    return with_events(create.step(node), announced)
