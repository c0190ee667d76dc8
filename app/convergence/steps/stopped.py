"""Stopping a traversal without a rollback (Heat's worker ``stop_traversal``, the engine side of
``cancel_without_rollback``), and letting what it left in progress finish.

:func:`stop` gives the stack (and its child stacks in progress) a new traversal id that has no
node, so no task of the old traversal propagates further, and sets it ``<ACTION>_FAILED``
"Stack <ACTION> cancelled". As in Heat, a resource action already running is not cut short:
its next poll (:func:`settle`, called by a superseded step while the stack has no traversal in
progress) keeps polling it until it ends, then has the applier write its COMPLETE or FAILED
state and event, and tells no successor. A later update takes over from there.
"""
from __future__ import annotations

import logging
import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.convergence import plugins
from app.convergence.outcome import ResourceEvent, Settled
from app.convergence.store import events, nodes
from app.convergence.store.events import STATE_CHANGED
from app.convergence.store.rows import ResourceRow, table
from app.convergence.traversal import PROPS_BEFORE
from app.engine.states import Action, Status
from app.models import Resource, Stack, session, utcnow
from app.resource_types import failures

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


def settle(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> Settled | None:
    """A step of a superseded traversal: when the stack has no traversal in progress (it was
    stopped) and the resource's action was started by ``traversal_id``, take the row's lock
    and poll that action once more. :returns: what the applier writes
    (:func:`app.convergence.outcome.settled`: the final state and event once it ended, else
    the plugin's progress and the next look); None: nothing to do (a newer traversal in
    progress settles what it finds itself), or another worker is at it."""
    with session() as s:
        st = s.get(Stack, stack_id)
        if st is None or st.status == Status.IN_PROGRESS:
            return None
        found = s.execute(select(RT).where(RT.c.id == resource_id)).first()
    if found is None:
        return None
    r = ResourceRow.of(found)
    handle = r.handle
    if r.status != Status.IN_PROGRESS or not isinstance(handle, dict) \
            or handle.get("t") != traversal_id or "prep" in handle or handle.get("wait") \
            or r.nested_kind or r.action not in _CHECKS:
        return None
    if nodes.current().acquire(resource_id) is False:
        return None  # another worker is at it: its own poll comes back here
    plugin: Any = None
    status, reason = Status.COMPLETE, STATE_CHANGED
    try:
        plugin = plugins.registry_plugin(r, st, r.properties_data)
        done = bool(getattr(plugin, _CHECKS[Action(r.action)])(r.stored_handle()))
    except Exception as exc:
        status, reason, done = Status.FAILED, failures.reason_of(r.name, exc), True
    if not done:
        attempt = (r.poll_attempt or 0) + 1
        return Settled(r, traversal_id, is_update, {
            "rsrc_data": plugin.data, "physical_resource_id": plugin.resource_id,
            "poll_attempt": attempt}, delay=float(plugin.poll_delay(r.stored_handle(), attempt)))
    log.info("%s of %s finished after its traversal was stopped: %s", r.action, r.name, status)
    return Settled(r, traversal_id, is_update, _ended(r, plugin, status, reason),
                   [ResourceEvent(plugin.resource_id if plugin is not None
                                  else r.physical_resource_id, r.type, r.action, status, reason)])


def _ended(r: ResourceRow, plugin: Any, status: Status, reason: str) -> dict[str, Any]:
    """The row's columns once its action ended with ``status``: no handle, no poll, the
    plugin's data (a failed update keeps the properties it had)."""
    data = dict(plugin.data if plugin is not None else r.rsrc_data)
    values: dict[str, Any] = {"status": status, "status_reason": reason, "handle": None,
                              "poll_attempt": 0, "updated_at": utcnow()}
    before = data.pop(PROPS_BEFORE, None)
    if status == Status.FAILED and before is not None:  # the update did not get there
        values["properties_data"] = before
    values["rsrc_data"] = data
    if plugin is not None:
        values["physical_resource_id"] = plugin.resource_id
    return values
