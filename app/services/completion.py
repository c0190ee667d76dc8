"""Finishing a node (success or failure), finishing a traversal, and stack timeouts.

A node finishes in ONE transaction: the resource row, its event, the successors' sync points and
the stack-level pending count change together, so a crash leaves either all or nothing and a
redelivered task can tell (the node's sync point is DONE). Successors that became ready are
enqueued after the commit.
"""
from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from app.engine import graph
from app.engine.states import stack_reason
from app.models import Event, Resource, Stack, after_commit, session, utcnow
from app.services import attrdata, dispatch, syncpoints

log = logging.getLogger(__name__)
RT = Resource.__table__
ET = Event.__table__
#: ``rsrc_data`` key holding the properties an in-place update started from: restored as the
#: resource's properties if the update fails, so that the next update compares with them
PROPS_BEFORE = "_props_before"


def _enqueuer(stack_id: str, traversal_id: str, rid: int, is_update: bool) -> Any:
    return lambda: dispatch.get().check_resource(stack_id, traversal_id, rid, is_update)


def event_row(stack_id: str, name: str, physical_id: str | None, rtype: str, action: str,
              status: str, reason: str) -> dict[str, Any]:
    return {"uuid": str(uuid.uuid4()), "stack_id": stack_id, "resource_name": name,
            "physical_resource_id": physical_id, "resource_type": rtype, "action": action,
            "status": status, "status_reason": reason, "created_at": utcnow()}


def add_event(s: Session, stack_id: str, name: str, physical_id: str | None, rtype: str,
              action: str, status: str, reason: str) -> None:
    s.execute(insert(ET).values(**event_row(stack_id, name, physical_id, rtype, action, status,
                                            reason)))


def write_start(s: Session, r: Resource, action: str, properties: dict[str, Any] | None) -> None:
    """Record that ``action`` started on ``r``: IN_PROGRESS state and event (Heat's
    "state changed"), with the resolved properties it started from."""
    values: dict[str, Any] = {"action": action, "status": "IN_PROGRESS",
                              "status_reason": "state changed", "updated_at": utcnow(),
                              "handle": None, "poll_attempt": 0}
    if properties is not None:
        values["properties_data"] = properties
    s.execute(update(RT).where(RT.c.id == r.id).values(**values))
    add_event(s, r.stack_id, r.name, r.physical_resource_id, r.type, action, "IN_PROGRESS",
              "state changed")


def stack_event(s: Session, stack: Any, action: str, status: str, reason: str) -> None:
    add_event(s, stack.id, stack.name, stack.id, "OS::Heat::Stack", action, status, reason)


def _ids_by_name(s: Session, stack_id: str, names: Any) -> dict[str, int]:
    names = list(names)
    if not names:
        return {}
    rows = s.execute(select(Resource.id, Resource.name).where(Resource.stack_id == stack_id,
                                                              Resource.name.in_(names)))
    return {r.name: r.id for r in rows}


def _successor_names(r: Resource, is_update: bool, loaded: Any) -> set[str]:
    if is_update:
        return set(loaded.required_by.get(r.name, ()))
    return set(r.requires or ())


def _successors(s: Session, st: Any, r: Resource, is_update: bool,
                loaded: Any) -> list[tuple[int, bool]]:
    """The nodes this node reports to: stored in its sync point (a mixed-direction traversal),
    else the template's dependents (forward) or the row's requirements (reverse)."""
    stored = getattr(st, "succ", None)
    if stored is not None:
        return [(int(i), bool(u)) for i, u in stored]
    names = _successor_names(r, is_update, loaded)
    return [(i, is_update) for i in _ids_by_name(s, r.stack_id, names).values()]


def _attr_data(plugin: Any, names: set[tuple[Any, ...]]) -> dict[str, Any]:
    """The reference id and the attributes that dependents/outputs reference."""
    if hasattr(plugin, "attr_data"):  # a nested stack computes its own (outputs, members)
        return dict(plugin.attr_data(names))
    attrs: dict[str, Any] = {}
    wanted = {p[0] for p in names if p}
    if any(len(p) == 0 for p in names):
        wanted |= {a for a in (type(plugin).attributes_schema or {}) if a != "show"}
    for a in sorted(wanted):
        try:
            attrs[a] = plugin.resolve_attribute(a)
        except Exception:  # an attribute that cannot be resolved reads as null (Heat)
            attrs[a] = None
    return {"ref": plugin.get_reference_id(), "attrs": json.loads(json.dumps(attrs, default=str))}


def succeed(st: Any, r: Resource, traversal_id: str, is_update: bool, loaded: Any, plugin: Any,
            *, events: bool = True, action: str | None = None,
            start: tuple[str, Any] | None = None, state: bool = True,
            extra_events: list[dict[str, Any]] | None = None,
            reason: str = "state changed") -> None:
    """Finish a node successfully: write COMPLETE (+ event), pass data on, count it.

    ``state=False`` leaves the row's action and status as they are (an update's cleanup node of
    a resource that stays); ``extra_events`` are event rows written in the same transaction."""
    row_action = action or ("CREATE" if is_update else "DELETE")
    values: dict[str, Any] = {"engine_id": None, "handle": None, "updated_at": utcnow()}
    data = r.attr_data
    if plugin is not None:
        plugin.data.pop(PROPS_BEFORE, None)  # the update it guarded went through
        values.update(physical_resource_id=plugin.resource_id, rsrc_data=plugin.data)
        if is_update:
            data = _attr_data(plugin, loaded.definition.referenced_attributes(r.name))
            values["attr_data"] = data
    if not state:  # nothing happened to it: its updated_time stays (Heat)
        del values["updated_at"]
    elif events:
        values.update(action=row_action, status="COMPLETE", status_reason=reason)
    elif not is_update:
        values.update(action="DELETE", status="COMPLETE")
    rows = list(extra_events or ())
    if start is not None:  # the action started in this step: its IN_PROGRESS goes in too
        if start[1] is not None:
            values["properties_data"] = start[1]
        rows.append(event_row(r.stack_id, r.name, r.physical_resource_id, r.type, start[0],
                              "IN_PROGRESS", "state changed"))
    if events:
        rows.append(event_row(r.stack_id, r.name, values.get("physical_resource_id",
                                                             r.physical_resource_id),
                              r.type, row_action, "COMPLETE", reason))
    with session() as s:
        if not syncpoints.mark_done(s, traversal_id, is_update, r.id):
            s.execute(update(RT).where(RT.c.id == r.id).values(engine_id=None))
            return
        s.execute(update(RT).where(RT.c.id == r.id).values(**values))
        if rows:
            s.execute(insert(ET), rows)
        key = r.name if is_update else f"R:{r.name}"  # a node may hear from F(x) and R(x)
        for sid, upd in _successors(s, st, r, is_update, loaded):
            if syncpoints.report(s, traversal_id, upd, sid, key,
                                 data if is_update and upd else None):
                after_commit(s, _enqueuer(st.id, traversal_id, sid, upd))
        pending = syncpoints.decrement(s, st.id, traversal_id, 1)
        if pending == 0:
            finalize(s, st.id, traversal_id, loaded)


def fail(st: Any, r: Resource, traversal_id: str, is_update: bool, loaded: Any, reason: str,
         *, started: bool, plugin: Any = None, action: str | None = None,
         start: tuple[str, Any] | None = None, attr_data: Any = None,
         extra_events: list[dict[str, Any]] | None = None, row_action: str | None = None) -> None:
    """Finish a node that failed: FAILED (+ event) if it had started, skip every node that
    depends on it, mark the stack failed with this first reason, count them all.
    ``row_action``: the resource action that failed (default CREATE forward, DELETE reverse);
    ``action``: the word of the stack's reason."""
    row_action = row_action or ("CREATE" if is_update else "DELETE")
    action = action or row_action
    values: dict[str, Any] = {"engine_id": None, "updated_at": utcnow()}
    if started:
        values.update(action=row_action, status="FAILED", status_reason=reason)
        if plugin is not None:
            if PROPS_BEFORE in plugin.data:  # what the failed update did not reach
                values["properties_data"] = plugin.data.pop(PROPS_BEFORE)
            values.update(physical_resource_id=plugin.resource_id, rsrc_data=plugin.data)
    if attr_data is not None:
        values["attr_data"] = attr_data
    with session() as s:
        if not syncpoints.mark_done(s, traversal_id, is_update, r.id):
            s.execute(update(RT).where(RT.c.id == r.id).values(engine_id=None))
            return
        if start is not None:
            write_start(s, r, *start)
        s.execute(update(RT).where(RT.c.id == r.id).values(**values))
        if started:
            add_event(s, r.stack_id, r.name, r.physical_resource_id, r.type, row_action,
                      "FAILED", reason)
        if extra_events:
            s.execute(insert(ET), extra_events)
        if getattr(st, "succ", None) is not None:
            skipped = _skip_stored(s, st.id, traversal_id, (r.id, is_update))
        else:
            if is_update:
                succs = loaded.required_by
            else:
                succs = _reverse_successors(s, r.stack_id)
            blocked = _ids_by_name(s, r.stack_id, graph.descendants(succs, r.name))
            skipped = syncpoints.skip(s, traversal_id, is_update, blocked.values())
        s.execute(update(Stack).where(Stack.id == st.id, Stack.current_traversal == traversal_id,
                                      Stack.failed.is_(False))
                  .values(failed=True, status_reason=f"Resource {action} failed: {reason}"))
        pending = syncpoints.decrement(s, st.id, traversal_id, 1 + skipped)
        if pending == 0:
            finalize(s, st.id, traversal_id, loaded)


def _skip_stored(s: Session, stack_id: str, traversal_id: str, node: tuple[int, bool]) -> int:
    """Skip every node reachable from ``node`` in a traversal whose graph is stored in its sync
    points; returns how many were still waiting."""
    g = {k: [(int(i), bool(u)) for i, u in v]
         for k, v in syncpoints.graph(s, traversal_id, stack_id).items()}
    seen: set[tuple[int, bool]] = set()
    todo = list(g.get(node, ()))
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(g.get(n, ()))
    return sum(syncpoints.skip(s, traversal_id, upd, [i for i, u in seen if u == upd])
               for upd in (True, False))


def _reverse_successors(s: Session, stack_id: str) -> dict[str, set[str]]:
    rows = s.execute(select(Resource.name, Resource.requires).where(Resource.stack_id == stack_id))
    return {r.name: set(r.requires or ()) for r in rows}


def resolve_outputs(s: Session, stack_id: str, loaded: Any) -> list[dict[str, Any]]:
    names = loaded.definition.output_resources()
    rows = s.execute(select(Resource.name, Resource.attr_data).where(
        Resource.stack_id == stack_id, Resource.name.in_(list(names)))) if names else []
    return list(loaded.definition.resolve_outputs(attrdata.DataContext({r.name: r.attr_data
                                                                for r in rows})))


def _refresh_output_attributes(s: Session, st: Stack, loaded: Any) -> None:
    """Read again the attributes the outputs use of the cloud resources they name: a volume's
    status or attachments change when a later resource attaches it, and Heat resolves outputs
    from the live resources. O(output resources) cloud reads, at the end of a traversal only; a
    resource that cannot be read keeps what it stored."""
    from app.resource_types import registry
    from app.services import convergence
    names = loaded.definition.output_resources()
    if not names:
        return
    rows = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                            Resource.name.in_(list(names)),
                                            Resource.physical_resource_id.is_not(None),
                                            Resource.status == "COMPLETE")).scalars()
    for r in rows:
        cls = registry.get(convergence.impl_of(r))
        if cls is None or not getattr(cls, "cloud_validation", False) \
                or (r.rsrc_data or {}).get("nested"):
            continue
        try:
            plugin = convergence.plugin_for(r, st, r.properties_data, loaded)
            if plugin.show_resource() is None:  # gone, or unreadable: keep what is stored
                continue
        except Exception as exc:
            log.info("outputs of %s keep %s's stored attributes: %s", st.id, r.name, exc)
            continue
        r.attr_data = _attr_data(plugin, loaded.definition.referenced_attributes(r.name))


def finalize(s: Session, stack_id: str, traversal_id: str, loaded: Any) -> None:
    """Every node of the traversal has ended: set the stack's final status (and outputs),
    write the stack event, and start a rollback if a failed create asks for one."""
    st = s.get(Stack, stack_id)
    if st is None or st.current_traversal != traversal_id or st.status != "IN_PROGRESS":
        return
    status = "FAILED" if st.failed else "COMPLETE"
    reason = st.status_reason if st.failed else stack_reason(st.action, status)
    mixed = st.action == "UPDATE" or (st.action == "ROLLBACK" and _mixed(s, traversal_id))
    if st.action == "CREATE" or mixed:
        if loaded is None:
            from app.services import definitions
            loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
        _refresh_output_attributes(s, st, loaded)
        st.outputs = resolve_outputs(s, st.id, loaded)
    if mixed and status == "COMPLETE":  # what left the template is gone: drop its rows
        s.execute(delete(Resource).where(Resource.stack_id == st.id, Resource.name.not_in(
            list(loaded.definition.resources))))
    st.status, st.status_reason = status, reason  # updated_time: set when an action starts
    if st.action == "DELETE" and status == "COMPLETE":
        st.deleted_at = utcnow()
    stack_event(s, st, st.action, status, reason)
    from app.services import nested
    nested.notify_parent(s, st)
    if status == "FAILED":
        _rollback_if_asked(s, st)


def _rollback_if_asked(s: Session, st: Stack) -> None:
    """A failed (or timed out) CREATE or UPDATE rolls back unless ``disable_rollback`` (Heat):
    a create by deleting what it made, an update by updating back to the previous template."""
    if st.disable_rollback:
        return
    if st.action == "CREATE":
        from app.services import traversals
        traversals.start_reverse(s, st, "ROLLBACK")
    elif st.action == "UPDATE":
        from app.services import updates
        updates.rollback(s, st)


def _mixed(s: Session, traversal_id: str) -> bool:
    """Whether a traversal is update-shaped (its sync points list their successors)."""
    from app.models import SyncPoint
    return s.execute(select(SyncPoint.entity_id).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.succ.is_not(None)).limit(1)).first() \
        is not None


def reenqueue_successors(st: Any, r: Resource, traversal_id: str, is_update: bool) -> None:
    """After a redelivery of a finished node: enqueue successors that fired but never finished
    (the crash came between commit and enqueue)."""
    loaded = None
    if is_update:
        from app.services import definitions
        loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    with session() as s:
        succ = _successors(s, st, r, is_update, loaded)
        todo = [(i, upd) for upd in (True, False) for i in syncpoints.fired_not_done(
            s, traversal_id, upd, [i for i, u in succ if u == upd])]
    for sid, upd in todo:
        dispatch.get().check_resource(st.id, traversal_id, sid, upd)


def stack_timeout(stack_id: str, traversal_id: str) -> None:
    """The traversal ran out of time: stack and in-progress resources FAILED ("Timed out"), and
    the traversal is superseded so no further step of it runs (Heat's stack timeout); then a
    rollback, if the stack asks for one."""
    with session() as s:
        st = s.get(Stack, stack_id)
        if st is None or st.current_traversal != traversal_id or st.status != "IN_PROGRESS":
            return
        reason = "Timed out"
        st.current_traversal = str(uuid.uuid4())
        st.status, st.status_reason, st.failed, st.updated_at = "FAILED", reason, True, utcnow()
        for r in s.execute(select(Resource).where(Resource.stack_id == stack_id,
                                                  Resource.status == "IN_PROGRESS")).scalars():
            r.status, r.status_reason, r.engine_id = "FAILED", reason, None
            if PROPS_BEFORE in (r.rsrc_data or {}):  # an update cut short: back to its start
                data = dict(r.rsrc_data)
                r.properties_data, r.rsrc_data = data.pop(PROPS_BEFORE), data
            add_event(s, stack_id, r.name, r.physical_resource_id, r.type, r.action, "FAILED",
                      reason)
        stack_event(s, st, st.action, "FAILED", reason)
        _rollback_if_asked(s, st)
