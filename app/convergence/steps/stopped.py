"""Stopping a traversal without a rollback (Heat's worker ``stop_traversal``, the engine side of
``cancel_without_rollback``), and letting what it left in progress finish.

:func:`stop` gives the stack (and its child stacks in progress) a new traversal id that has no
node, so no task of the old traversal propagates further, and sets it ``<ACTION>_FAILED``
"Stack <ACTION> cancelled". As in Heat, a resource action already running is not cut short:
its next poll (:func:`settle`, called by a superseded step while the stack has no traversal in
progress) keeps polling it until it ends, then writes its COMPLETE or FAILED state and event,
and tells no successor. A later update takes over from there.
"""
from __future__ import annotations

import logging
import uuid
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.convergence import plugins, runtime
from app.convergence.store import events, locks, nodes
from app.convergence.store.rows import ResourceRow, table
from app.convergence.traversal import PROPS_BEFORE
from app.engine.states import Action, Status
from app.models import Resource, Stack, session, utcnow

log = logging.getLogger(__name__)
RT = table(Resource)
_CHECKS = {Action.CREATE: "check_create_complete", Action.UPDATE: "check_update_complete",
           Action.DELETE: "check_delete_complete", Action.SUSPEND: "check_suspend_complete",
           Action.RESUME: "check_resume_complete"}


def cancelled_reason(action: str) -> str:
    """Heat's ``"Stack UPDATE cancelled"``."""
    return f"Stack {action} cancelled"


def stop(s: Session, st: Stack) -> None:
    """Stop ``st``'s traversal in the caller's transaction: a new (empty) traversal id, the stack
    ``<ACTION>_FAILED`` with Heat's reason and event; the same for its descendants in progress.
    No rollback follows (Heat's ``stop_traversal``)."""
    reason = cancelled_reason(st.action)
    st.current_traversal = str(uuid.uuid4())
    st.status, st.status_reason, st.failed, st.updated_at = (Status.FAILED, reason, True,
                                                             utcnow())
    events.stack_event(s, st, st.action, Status.FAILED, reason)
    for child in s.execute(select(Stack).where(Stack.parent_id == st.id,
                                               Stack.deleted_at.is_(None),
                                               Stack.status == Status.IN_PROGRESS)).scalars():
        stop(s, child)


def settle(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """A step of a superseded traversal: when the stack has no traversal in progress (it was
    stopped) and the resource's action was started by ``traversal_id``, poll that action once
    more; finished, record its final state and event, else look again later. Anything else:
    nothing (a newer traversal in progress settles what it finds itself)."""
    with session() as s:
        st = s.get(Stack, stack_id)
        if st is None or st.status == Status.IN_PROGRESS:
            return
        found = s.execute(select(RT).where(RT.c.id == resource_id)).first()
    if found is None:
        return
    r = ResourceRow.of(found)
    handle = r.handle
    if r.status != Status.IN_PROGRESS or not isinstance(handle, dict) \
            or handle.get("t") != traversal_id or "prep" in handle or handle.get("wait") \
            or r.nested_kind() or r.action not in _CHECKS:
        return
    if nodes.current().acquire(resource_id) is False:
        return  # another worker is at it: its own poll comes back here
    try:
        _poll(st, r, traversal_id, is_update)
    finally:
        locks.release(resource_id)


def _poll(st: Stack, r: ResourceRow, traversal_id: str, is_update: bool) -> None:
    plugin: Any = None
    status, reason = Status.COMPLETE, events.STATE_CHANGED
    try:
        plugin = plugins.registry_plugin(r, st, r.properties_data)
        done = bool(getattr(plugin, _CHECKS[Action(r.action)])(r.stored_handle()))
    except Exception as exc:
        status, reason, done = Status.FAILED, plugins.reason_of(r.name, exc), True
    if not done:
        attempt = (r.poll_attempt or 0) + 1
        with session() as s:
            s.execute(update(RT).where(RT.c.id == r.id).values(
                rsrc_data=plugin.data, physical_resource_id=plugin.resource_id,
                poll_attempt=attempt))
        runtime.dispatcher().check_resource(st.id, traversal_id, r.id, is_update,
                                      countdown=float(plugin.poll_delay(r.stored_handle(), attempt)))
        return
    data = dict(plugin.data if plugin is not None else r.rsrc_data)
    values: dict[str, Any] = {"status": status, "status_reason": reason, "handle": None,
                              "poll_attempt": 0, "updated_at": utcnow()}
    before = data.pop(PROPS_BEFORE, None)
    if status == Status.FAILED and before is not None:  # the update did not get there
        values["properties_data"] = before
    values["rsrc_data"] = data
    if plugin is not None:
        values["physical_resource_id"] = plugin.resource_id
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(**values))
        events.add_event(s, r.stack_id, r.name, values.get("physical_resource_id",
                                                           r.physical_resource_id),
                         r.type, r.action, status, reason)
    log.info("%s of %s finished after its traversal was stopped: %s", r.action, r.name, status)
