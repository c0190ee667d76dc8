"""The steps of an UPDATE traversal's nodes (Heat's convergence update), called by
:func:`app.services.convergence.check_resource`.

Forward node of resource ``x`` (it is in the new template):

- never created (INIT, deleted by a rollback) → create it, as a CREATE traversal would;
- FAILED, or its type changed → replace it (Heat replaces a failed resource on update);
- a nested stack → update the child stack (Heat always does: the members decide);
- properties unchanged → nothing, no event (its attributes are re-read for the new template);
- else UPDATE_IN_PROGRESS and the plugin's :meth:`update_diff`: ``NotSupported`` (an
  ``immutable`` property changed) → UPDATE_FAILED; ``UpdateReplace`` → replace; otherwise
  ``handle_update`` / ``check_update_complete`` (polled) → UPDATE_COMPLETE.

Replacing moves the old physical resource into ``rsrc_data["_replaced"]`` and creates the new
one on the same row (CREATE_IN_PROGRESS / CREATE_COMPLETE), so the dependents that run after this
node see the replacement. The cleanup node of ``x`` (:mod:`app.services.cleanup`) later
deletes what ``_replaced`` holds (DELETE_IN_PROGRESS / DELETE_COMPLETE events with the old
physical id, honouring the old deletion policy); the cleanup node of a resource that left the
template deletes it.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import select, update

from app.models import Resource, new_id, session, utcnow
from app.resource_types import base, registry
from app.services import completion, convergence, definitions, nested
from app.templates import properties as tproperties

RT = Resource.__table__
REPLACED = "_replaced"


def _row(rid: int) -> Any:
    with session() as s:
        row = s.execute(select(RT).where(RT.c.id == rid)).first()
    assert row is not None
    return SimpleNamespace(**row._mapping)


#: Heat's reason when a FAILED resource needs neither an update nor a replacement
FAILED_TO_COMPLETE = "Update status to COMPLETE for FAILED resource neither update nor replace."


def replace_failed(st: Any, r: Any, loaded: Any) -> bool:
    """Heat's ``needs_replace_failed`` for a FAILED row (a cloud error while asking: yes)."""
    try:
        return bool(convergence.plugin_for(r, st, r.properties_data, loaded)
                    .needs_replace_failed())
    except Exception:
        return True


def _foreign(handle: Any, traversal_id: str) -> bool:
    """Whether an in-progress action's handle was stored by another (superseded) traversal."""
    return isinstance(handle, dict) and handle.get("t") not in (None, traversal_id)


def _settle(st: Any, r: Any, traversal_id: str, loaded: Any) -> Any:
    """Finish polling the action a superseded traversal left in progress on ``r`` (a create,
    an update, a delete, or the freeing before a replacement), so that this traversal can
    compare the result with its own definition. :returns: the row once the action has ended
    (COMPLETE or FAILED, its attributes to be read again), or None when it is still running
    (this node polls it again later, as its own)."""
    handle = r.handle.get("h")
    action = r.action
    if action == "UPDATE" and isinstance(handle, dict) and "prep" in handle:
        with session() as s:  # the replacement is this traversal's to make
            s.execute(update(RT).where(RT.c.id == r.id).values(
                handle={**r.handle, "t": traversal_id}))
        return _row(r.id)
    plugin = convergence.plugin_for(r, st, r.properties_data, loaded)
    check = {"CREATE": "check_create_complete", "UPDATE": "check_update_complete",
             "DELETE": "check_delete_complete"}.get(action)
    status, reason = "COMPLETE", "state changed"
    try:
        done = True if check is None else bool(getattr(plugin, check)(handle))
    except Exception as exc:
        status, reason, done = "FAILED", convergence.reason_of(r.name, exc), True
    if not done:  # still the superseded traversal's action: settled again at the next poll
        convergence.poll_later(st, r, traversal_id, True, plugin, handle, owner=r.handle["t"])
        return None
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(
            status=status, status_reason=reason, handle=None, poll_attempt=0, attr_data=None,
            physical_resource_id=plugin.resource_id, rsrc_data=plugin.data,
            updated_at=utcnow()))
        completion.add_event(s, r.stack_id, r.name, plugin.resource_id, r.type, action, status,
                             reason)
    return _row(r.id)


def new_props(st: Any, r: Any, loaded: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The resource's new properties, resolved and validated as a create would."""
    props = loaded.definition.resolve_properties(r.name, convergence.InputsContext(data))
    rdef = loaded.definition.resources[r.name]
    cls = registry.get(getattr(rdef, "implementation", rdef.type))
    schema = cls.validation_schema(props) if cls is not None else None
    if schema is not None and nested.kind(rdef) != nested.TEMPLATE:
        props = tproperties.validate(schema, props, ("resources", r.name, "properties"))
    return dict(props)


def forward(st: Any, r: Any, traversal_id: str, data: dict[str, Any]) -> None:
    """One step of the forward node of ``r`` in an UPDATE (or update ROLLBACK) traversal."""
    loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    rdef = loaded.definition.resources[r.name]
    if r.status == "IN_PROGRESS" and _foreign(r.handle, traversal_id):
        r = _settle(st, r, traversal_id, loaded)  # what a superseded traversal left running
        if r is None:
            return
    if r.status == "IN_PROGRESS" and r.handle is not None and r.action == "UPDATE":
        handle = r.handle.get("h") if isinstance(r.handle, dict) else r.handle
        if isinstance(handle, dict) and "prep" in handle:  # freeing things for a replacement
            _prepare_then_replace(st, r, traversal_id, data, loaded, rdef, handle["prep"])
        else:
            _poll_update(st, r, traversal_id, loaded)
        return
    never = r.action == "INIT" or (r.action == "DELETE" and r.status == "COMPLETE") \
        or (r.properties_data is None and not r.physical_resource_id)
    if never or r.status == "IN_PROGRESS":  # a create (or an interrupted one) goes on
        if never and r.physical_resource_id:
            r = _reset(r, rdef, keep_old=False)
        convergence.create_step(st, r, traversal_id, data, loaded)
        return
    new_impl = getattr(rdef, "implementation", rdef.type)
    is_nested = (r.rsrc_data or {}).get("nested")
    same_kind = new_impl == convergence.impl_of(r) and nested.kind(rdef) == is_nested
    if (r.rsrc_data or {}).get(REPLACED) and _restore_previous(st, r, traversal_id, data,
                                                               loaded, new_impl):
        return
    # a failed resource is replaced unless its physical resource is healthy (the plugin's
    # needs_replace_failed); a failed nested stack is updated (Heat's StackResource)
    if not same_kind or (r.status == "FAILED" and not (is_nested and r.physical_resource_id)
                         and replace_failed(st, r, loaded)):
        _prepare_then_replace(st, r, traversal_id, data, loaded, rdef, None, event=False)
        return
    try:
        props = new_props(st, r, loaded, data)
    except Exception as exc:  # the new definition cannot be resolved: the update never starts
        completion.fail(st, r, traversal_id, True, loaded, convergence.message_of(exc),
                        started=False, row_action="UPDATE", action="UPDATE")
        return
    if props == (r.properties_data or {}) and not is_nested:
        # unchanged: nothing to do, but its attributes are read again (the cloud may have
        # changed them: a volume attached since, an address), as Heat resolves them live
        plugin = convergence.plugin_for(r, st, props, loaded)
        if r.status == "FAILED":  # healthy and as wanted: Heat marks it COMPLETE
            completion.succeed(st, r, traversal_id, True, loaded, plugin, action=r.action,
                               reason=FAILED_TO_COMPLETE)
        else:
            completion.succeed(st, r, traversal_id, True, loaded, plugin, state=False,
                               events=False)
        return
    plugin = convergence.plugin_for(r, st, r.properties_data, loaded)
    start = ("UPDATE", props)
    try:
        if is_nested:
            handle = plugin.handle_update(traversal_id, props)
        else:
            convergence.plugin_for(r, st, props, loaded).validate()
            changed = plugin.update_diff(props)
            plugin.data[completion.PROPS_BEFORE] = dict(r.properties_data or {})
            handle = plugin.handle_update(props, changed)
        done = plugin.check_update_complete(handle)
    except base.UpdateReplace:
        _prepare_then_replace(st, r, traversal_id, data, loaded, rdef, None)
        return
    except Exception as exc:
        completion.fail(st, r, traversal_id, True, loaded, convergence.reason_of(r.name, exc),
                        started=True, plugin=plugin, start=start, row_action="UPDATE",
                        action="UPDATE")
        return
    _finish_update(st, r, traversal_id, loaded, plugin, handle, done, start)


def _restore_previous(st: Any, r: Any, traversal_id: str, data: dict[str, Any], loaded: Any,
                      impl: str) -> bool:
    """Heat's "rolling back to previous resource": when a physical resource this row replaced
    (and still holds, ``_replaced``) matches the new definition exactly (type and resolved
    properties), it becomes the row's resource again and the replacement is queued for the
    cleanup node instead — a rollback restores the original rather than building a third.
    :returns: whether it did (the node is finished)."""
    try:
        props = new_props(st, r, loaded, data)
    except Exception:
        return False
    queue = list((r.rsrc_data or {}).get(REPLACED) or [])
    match = next((i for i in range(len(queue) - 1, -1, -1)
                  if queue[i].get("impl") == impl and "attr_data" in queue[i]
                  and queue[i].get("properties_data") == props and "handle" not in queue[i]),
                 None)
    if match is None:
        return False
    old = queue.pop(match)
    current = dict(r.rsrc_data or {})
    current.pop(REPLACED, None)
    if r.physical_resource_id or current.get("nested"):
        queue.append(_entry(r, current))
    restored = {**(old.get("rsrc_data") or {}), **({REPLACED: queue} if queue else {})}
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(
            uuid=old.get("uuid") or r.uuid, type=old["type"],
            physical_resource_id=old.get("physical_resource_id"),
            properties_data=old.get("properties_data"), attr_data=old.get("attr_data"),
            rsrc_data=restored, handle=None, poll_attempt=0))
    fresh = _row(r.id)
    completion.succeed(st, fresh, traversal_id, True, loaded, None, action="UPDATE",
                       start=("UPDATE", None))
    return True


def _entry(r: Any, data: dict[str, Any]) -> dict[str, Any]:
    """What the cleanup node needs to delete (or a later update to restore) the row's current
    physical resource."""
    return {"type": r.type, "impl": convergence.impl_of(r), "uuid": r.uuid,
            "physical_resource_id": r.physical_resource_id,
            "properties_data": r.properties_data, "rsrc_data": data,
            "attr_data": r.attr_data, "deletion_policy": r.deletion_policy}


def _finish_update(st: Any, r: Any, traversal_id: str, loaded: Any, plugin: Any, handle: Any,
                   done: bool, start: tuple[str, Any] | None) -> None:
    if done:
        completion.succeed(st, r, traversal_id, True, loaded, plugin, action="UPDATE",
                           start=start)
    else:
        convergence.poll_later(st, r, traversal_id, True, plugin, handle, start)


def _poll_update(st: Any, r: Any, traversal_id: str, loaded: Any) -> None:
    plugin = convergence.plugin_for(r, st, r.properties_data, loaded)
    handle = r.handle.get("h") if isinstance(r.handle, dict) else r.handle
    try:
        done = plugin.check_update_complete(handle)
    except Exception as exc:
        completion.fail(st, r, traversal_id, True, loaded, convergence.reason_of(r.name, exc),
                        started=True, plugin=plugin, row_action="UPDATE", action="UPDATE")
        return
    _finish_update(st, r, traversal_id, loaded, plugin, handle, done, None)


def _reset(r: Any, rdef: Any, *, keep_old: bool, event: bool = False) -> Any:
    """Make the row ready for a fresh create of ``rdef``; with ``keep_old`` the existing
    physical resource is queued in ``_replaced`` for the cleanup node. One transaction."""
    old_data = dict(r.rsrc_data or {})
    queue = list(old_data.pop(REPLACED, None) or [])
    if keep_old and (r.physical_resource_id or old_data.get("nested")):
        queue.append(_entry(r, old_data))
    data: dict[str, Any] = {REPLACED: queue} if queue else {}
    impl = getattr(rdef, "implementation", rdef.type)
    if impl != rdef.type:
        data["_impl"] = impl
    if nested.kind(rdef):
        data["nested"] = nested.kind(rdef)
    values: dict[str, Any] = {"uuid": new_id()} if keep_old else {}  # a new resource, as Heat's
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(
            **values, type=rdef.type, action="INIT", status="COMPLETE", status_reason="",
            physical_resource_id=None, properties_data=None, attr_data=None, handle=None,
            poll_attempt=0, rsrc_data=data, updated_at=utcnow()))
        if event:
            completion.add_event(s, r.stack_id, r.name, r.physical_resource_id, r.type,
                                 "UPDATE", "IN_PROGRESS", "state changed")
    return _row(r.id)


def _prepare_then_replace(st: Any, r: Any, traversal_id: str, data: dict[str, Any],
                          loaded: Any, rdef: Any, handle: Any, *, event: bool = True) -> None:
    """Replace ``r``, once the old physical resource has freed what the replacement takes over
    (the plugin's ``prepare_for_replace``, polled; ``handle`` is the stored one of an earlier
    poll). ``event``: write UPDATE_IN_PROGRESS when the replacement starts."""
    old = convergence.plugin_for(r, st, r.properties_data, loaded)
    first = handle is None
    try:
        if first and hasattr(old, "prepare_for_replace"):
            handle = old.prepare_for_replace()
        done = handle is None or old.check_prepare_for_replace_complete(handle)
    except Exception as exc:
        completion.fail(st, r, traversal_id, True, loaded, convergence.reason_of(r.name, exc),
                        started=True, plugin=old, start=("UPDATE", None) if first else None,
                        row_action="UPDATE", action="UPDATE")
        return
    if done:
        _replace(st, r, traversal_id, data, loaded, rdef, updating=event and first)
    else:
        convergence.poll_later(st, r, traversal_id, True, old, {"prep": handle},
                               ("UPDATE", None) if first else None)


def _replace(st: Any, r: Any, traversal_id: str, data: dict[str, Any], loaded: Any, rdef: Any,
             *, updating: bool = False) -> None:
    """UpdateReplace: keep the old physical resource for the cleanup node, create the new."""
    fresh = _reset(r, rdef, keep_old=True, event=updating)
    convergence.create_step(st, fresh, traversal_id, data, loaded)
