"""One step of one traversal node: Heat's convergence ``check_resource``, on Celery.

Called by the thin task ``app.tasks.check_resource`` (or in-process by the inline dispatcher).
Each call does a bounded amount of work and returns: it never sleeps on a cloud; an unfinished
action is persisted and re-enqueued with a countdown (DESIGN.md, invariant 4). Cost per call is
O(degree) queries (invariant 5). Steps:

1. stop if the stack's current traversal is not this one (superseded), or the node is not FIRED;
2. take the resource lock (compare-and-swap), else retry shortly;
3. forward: resolve properties from the snippet and the predecessors' passed-on data, create,
   poll; reverse: delete (honouring deletion_policy), poll;
4. finished: one transaction writes the resource, its event, the successors' sync points, and the
   stack-level count — then the successors that became ready are enqueued.
"""
from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

from sqlalchemy import and_, select, update

from app import clients, errors
from app.models import Resource, Stack, SyncPoint, read_session, session, utcnow
from app.resource_types import registry
from app.services import attrdata, completion, definitions, dispatch, locks, nested, syncpoints
from app.templates import properties as tproperties

log = logging.getLogger(__name__)
LOCK_RETRY_SECONDS = 0.1


RT = Resource.__table__
ST = Stack.__table__
SP = SyncPoint.__table__
InputsContext = attrdata.DataContext


def _impl(r: Resource) -> str:
    """The built-in type behind the row (a registry alias is resolved at stack create)."""
    return str((r.rsrc_data or {}).get("_impl") or r.type)


def _plugin(r: Resource, st: Any, properties: dict[str, Any] | None, loaded: Any = None) -> Any:
    if (r.rsrc_data or {}).get("nested"):
        return nested.NestedResource(st, r, properties, loaded)
    cls = registry.get(_impl(r))
    if cls is None:
        raise errors.ResourceFailure(f"The Resource Type ({r.type}) could not be found.")
    ident = definitions.identity(st.name, st.id, st.tenant)
    return cls(r.name, dict(properties or {}), resource_id=r.physical_resource_id,
               data=dict(r.rsrc_data or {}), stack=ident, clients=clients.for_stack(ident),
               uuid=r.uuid)


def check_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """Run one step of node ``(resource_id, is_update)`` of ``traversal_id``.

    The usual path is one transaction that reads the stack and the node's state and takes the
    resource lock (``UPDATE ... RETURNING`` the row), then the step, then one transaction that
    finishes the node. Idempotent: a redelivered call for a finished node re-enqueues only
    successors that fired but have not finished; a call for a superseded traversal does nothing.
    """
    locks.ensure_heartbeat()
    row = None
    data: dict[str, Any] = {}
    with session() as s:
        st = s.execute(
            select(ST.c.id, ST.c.name, ST.c.tenant, ST.c.raw_template_id, ST.c.current_traversal,
                   ST.c.action, ST.c.nested_depth, ST.c.failed, ST.c.disable_rollback,
                   SP.c.state, SP.c.expected, SP.c.succ)
            .select_from(ST.outerjoin(SP, and_(SP.c.stack_id == ST.c.id,
                                               SP.c.traversal_id == ST.c.current_traversal,
                                               SP.c.entity_id == resource_id,
                                               SP.c.is_update == is_update)))
            .where(ST.c.id == stack_id)).first()
        if st is None or st.current_traversal != traversal_id:
            return
        if st.state == syncpoints.FIRED:
            row = s.execute(update(RT).where(RT.c.id == resource_id, RT.c.engine_id.is_(None))
                            .values(engine_id=locks.engine_id(),
                                    atomic_key=RT.c.atomic_key + 1)
                            .returning(*RT.c)).first()
            if row is not None and is_update and st.expected:
                data = syncpoints.inputs(s, traversal_id, is_update, resource_id)
    if st.state == syncpoints.DONE:
        with read_session() as s:
            done_row = s.execute(select(RT).where(RT.c.id == resource_id)).first()
        if done_row is not None:
            completion.reenqueue_successors(st, done_row, traversal_id, is_update)
        return
    if st.state != syncpoints.FIRED:
        return
    if row is None:  # held: by a live engine (retry soon) or a dead one (take it over)
        if locks.acquire(resource_id) is False:
            dispatch.get().check_resource(stack_id, traversal_id, resource_id, is_update,
                                          countdown=LOCK_RETRY_SECONDS)
            return
        with read_session() as s:
            row = s.execute(select(RT).where(RT.c.id == resource_id)).first()
            if is_update and st.expected:
                data = syncpoints.inputs(s, traversal_id, is_update, resource_id)
        if row is None:
            return
    r: Any = SimpleNamespace(**row._mapping)
    try:
        if is_update:
            _forward(st, r, traversal_id, data)
        elif st.succ is not None:  # the cleanup node of an UPDATE
            from app.services import cleanup
            cleanup.cleanup(st, r, traversal_id)
        else:
            _reverse(st, r, traversal_id)
    except Exception:
        locks.release(resource_id)
        raise


def _forward(st: Any, r: Resource, traversal_id: str, data: dict[str, Any]) -> None:
    if st.action != "CREATE":  # an UPDATE, or the ROLLBACK of one
        from app.services import updating
        updating.forward(st, r, traversal_id, data)
        return
    loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    if r.status == "COMPLETE" and r.action in ("CREATE", "CHECK"):
        completion.succeed(st, r, traversal_id, True, loaded, None)
        return
    rdef = loaded.definition.resources.get(r.name)
    if rdef is not None and rdef.external_id:
        _adopt(st, r, traversal_id, loaded, str(rdef.external_id))
        return
    create_step(st, r, traversal_id, data, loaded)


def create_step(st: Any, r: Resource, traversal_id: str, data: dict[str, Any],
                loaded: Any) -> None:
    """One step of creating ``r`` from ``loaded``'s definition: start it, or poll it."""
    polling = r.action == "CREATE" and r.status == "IN_PROGRESS" and r.handle is not None
    start: tuple[str, Any] | None = None
    try:
        if polling:
            plugin = _plugin(r, st, r.properties_data, loaded)
            handle = r.handle.get("h") if isinstance(r.handle, dict) else r.handle
        else:
            try:
                props = loaded.definition.resolve_properties(r.name, InputsContext(data))
                is_nested = (r.rsrc_data or {}).get("nested")
                cls = registry.get(_impl(r))
                schema = cls.validation_schema(props) if cls is not None else None
                if schema is not None and is_nested != nested.TEMPLATE:
                    props = tproperties.validate(schema, props, ("resources", r.name, "properties"))
                plugin = _plugin(r, st, props, loaded)
                if not is_nested:
                    plugin.validate()
            except Exception as exc:  # resolution failed: the resource never started (Heat)
                completion.fail(st, r, traversal_id, True, loaded, _message(exc), started=False)
                return
            if r.status != "IN_PROGRESS":  # written with the outcome, in one transaction
                start = ("CREATE", props)
            if is_nested:
                handle = plugin.handle_create(traversal_id)
            else:
                handle = plugin.handle_create()  # persisted by succeed() or _poll_later()
        done = plugin.check_create_complete(handle)
    except Exception as exc:
        plugin = locals().get("plugin")
        completion.fail(st, r, traversal_id, True, loaded, _reason(r.name, exc), started=True,
                        plugin=plugin, start=start,
                        attr_data=_failed_attr_data(plugin, loaded, r.name))
        return
    if done:
        completion.succeed(st, r, traversal_id, True, loaded, plugin, start=start)
    else:
        _poll_later(st, r, traversal_id, True, plugin, handle, start)


def _failed_attr_data(plugin: Any, loaded: Any, name: str) -> Any:
    """A failed nested stack still has outputs its parent may read (Heat)."""
    if isinstance(plugin, nested.NestedResource) and plugin.resource_id:
        try:
            return plugin.attr_data(loaded.definition.referenced_attributes(name))
        except Exception:
            return None
    return None


def _adopt(st: Any, r: Resource, traversal_id: str, loaded: Any, external_id: str) -> None:
    """A resource with ``external_id`` is not created: the existing physical resource is
    adopted as is and checked (Heat: CHECK_COMPLETE, reference id = the external id)."""
    try:
        props = loaded.definition.resolve_properties(r.name, InputsContext({}))
    except Exception:
        props = {}
    plugin = _plugin(r, st, props)
    plugin.resource_id = external_id
    r.physical_resource_id = external_id
    completion.succeed(st, r, traversal_id, True, loaded, plugin, action="CHECK",
                       start=("CHECK", props))


def _reverse(st: Any, r: Resource, traversal_id: str) -> None:
    """One step of deleting ``r`` (a DELETE or create-ROLLBACK traversal, or a resource that
    left the template in an UPDATE): start it, or poll it."""
    action = "ROLLBACK" if st.action == "ROLLBACK" else "DELETE"
    if (r.rsrc_data or {}).get("_replaced"):  # what a failed update left: deleted first
        from app.services import cleanup
        if not cleanup.drain(st, r, traversal_id):
            return
    if (r.action == "DELETE" and r.status == "COMPLETE") or r.action == "INIT" \
            or r.properties_data is None:
        completion.succeed(st, r, traversal_id, False, None, None, events=False)
        return
    polling = r.action == "DELETE" and r.status == "IN_PROGRESS" and r.handle is not None
    plugin = None
    start: tuple[str, Any] | None = None
    try:
        plugin = _plugin(r, st, r.properties_data, None)
        if polling:
            handle = r.handle.get("h") if isinstance(r.handle, dict) else r.handle
        else:
            start = ("DELETE", None)
            if r.deletion_policy == "Retain":
                completion.succeed(st, r, traversal_id, False, None, plugin, start=start)
                return
            handle = (plugin.handle_snapshot_delete() if r.deletion_policy == "Snapshot"
                      and hasattr(plugin, "handle_snapshot_delete") else plugin.handle_delete())
        done = plugin.check_delete_complete(handle)
    except Exception as exc:
        completion.fail(st, r, traversal_id, False, None, _reason(r.name, exc), started=True,
                        plugin=plugin, action=action, start=start)
        return
    if done:
        completion.succeed(st, r, traversal_id, False, None, plugin, start=start)
    else:
        _poll_later(st, r, traversal_id, False, plugin, handle, start)


def _poll_later(st: Any, r: Resource, traversal_id: str, is_update: bool, plugin: Any,
                handle: Any, start: tuple[str, Any] | None = None,
                owner: str | None = None) -> None:
    """Persist progress (and the IN_PROGRESS state if this step started the action), release
    the lock and re-enqueue this node after the plugin's delay. ``owner``: the traversal that
    started the action (default: this one), stored with the handle."""
    attempt = (r.poll_attempt or 0) + 1
    with session() as s:
        if start is not None:
            completion.write_start(s, r, *start)
        s.execute(update(Resource).where(Resource.id == r.id).values(
            handle={"h": handle, "t": owner or traversal_id},
            physical_resource_id=plugin.resource_id,
            rsrc_data=plugin.data, poll_attempt=attempt, engine_id=None, updated_at=utcnow()))
    delay = float(plugin.poll_delay(handle, attempt))
    dispatch.get().check_resource(st.id, traversal_id, r.id, is_update, countdown=delay)


def _message(exc: BaseException) -> str:
    return getattr(exc, "message", None) or str(exc)


def _reason(name: str, exc: BaseException) -> str:
    """Heat's failure reason: ``"<ExcType>: resources.<name>: <message>"`` (a failed nested
    stack's reason is built from its child's, as Heat's)."""
    if isinstance(exc, nested.NestedFailed):
        return exc.reason
    from app.resource_types import base
    return base.failure_reason(exc, name)


# the steps and helpers the UPDATE nodes (app.services.updating) share
plugin_for = _plugin
impl_of = _impl
reverse_step = _reverse
poll_later = _poll_later
message_of = _message
reason_of = _reason
