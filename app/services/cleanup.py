"""The cleanup nodes of an UPDATE traversal, and the queue of replaced physical resources.

A replaced resource's row keeps the physical resources it replaced in ``rsrc_data["_replaced"]``
(:data:`app.services.updating.REPLACED`, oldest first, each with its type, properties, data,
attributes and deletion policy). The row's cleanup node deletes them (:func:`drain`, polled,
honouring each one's deletion policy) once nothing points at them; it deletes the row's
resource itself if it left the template; a stack delete drains the queue too (what a failed
update left). Once an update has failed and a rollback will follow, cleanup nodes delete
nothing: the rollback may restore what they would have deleted.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import insert, update

from app import clients
from app.models import Resource, session, utcnow
from app.resource_types import base, registry
from app.services import completion, convergence, definitions, dispatch, nested
from app.services.updating import REPLACED

RT = Resource.__table__


def cleanup(st: Any, r: Any, traversal_id: str) -> None:
    """One step of the cleanup node of ``r``: delete it if it left the template, else delete
    the physical resources it replaced (oldest first), else nothing."""
    loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    if _rollback_coming(st):  # keep everything: the rollback may restore or keep it
        completion.succeed(st, r, traversal_id, False, None, None, events=False, state=False)
        return
    if r.name not in loaded.definition.resources:
        convergence.reverse_step(st, r, traversal_id)
        return
    if drain(st, r, traversal_id):
        completion.succeed(st, r, traversal_id, False, None, None, events=False, state=False)


def _rollback_coming(st: Any) -> bool:
    """The UPDATE has failed already and the stack will roll back (Heat's rollback restores
    the previous resources, so nothing is deleted in the meantime). ``st``: the stack as the
    step read it."""
    return bool(st.failed and not st.disable_rollback and st.action == "UPDATE")


def drain(st: Any, r: Any, traversal_id: str) -> bool:
    """Delete what ``r`` replaced (``rsrc_data["_replaced"]``, oldest first, honouring each
    one's deletion policy), as a step of ``r``'s reverse node (an update's cleanup, or a stack
    delete after a failed update). ``True``: nothing is left (the events and the emptied queue
    are written); ``False``: the node re-enqueued itself to poll, or failed."""
    queue = list((r.rsrc_data or {}).get(REPLACED) or [])
    if not queue and REPLACED not in (r.rsrc_data or {}):
        return True
    events: list[dict[str, Any]] = []
    while queue:
        old = queue[0]
        plugin = _old_plugin(st, r, old)
        pid = old.get("physical_resource_id")
        retain = old.get("deletion_policy") == "Retain"
        try:
            if "handle" in old:
                handle = old["handle"]
            else:
                events.append(completion.event_row(r.stack_id, r.name, pid, old["type"],
                                                   "DELETE", "IN_PROGRESS", "state changed"))
                handle = None if retain else plugin.handle_delete()
            done = retain or plugin.check_delete_complete(handle)
        except Exception as exc:
            reason = convergence.reason_of(r.name, exc)
            events.append(completion.event_row(r.stack_id, r.name, pid, old["type"], "DELETE",
                                               "FAILED", reason))
            completion.fail(st, r, traversal_id, False, None, reason, started=False,
                            action="DELETE", extra_events=events)
            return False
        if not done:
            old["handle"] = handle
            old["attempt"] = int(old.get("attempt", 0)) + 1
            _save_queue(r, queue, events)
            dispatch.get().check_resource(st.id, traversal_id, r.id, False,
                                          countdown=float(plugin.poll_delay(handle,
                                                                            old["attempt"])))
            return False
        events.append(completion.event_row(r.stack_id, r.name, pid, old["type"], "DELETE",
                                           "COMPLETE", "state changed"))
        queue.pop(0)
    rest = {k: v for k, v in (r.rsrc_data or {}).items() if k != REPLACED}
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(rsrc_data=rest))
        if events:
            s.execute(insert(completion.ET), events)
    r.rsrc_data = rest
    return True


def _save_queue(r: Any, queue: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
    """Persist the cleanup's progress and release the lock (one transaction)."""
    data = {**(r.rsrc_data or {}), REPLACED: queue}
    with session() as s:
        s.execute(update(RT).where(RT.c.id == r.id).values(rsrc_data=data, engine_id=None,
                                                           updated_at=utcnow()))
        if events:
            s.execute(insert(completion.ET), events)


def _old_plugin(st: Any, r: Any, old: dict[str, Any]) -> Any:
    """A plugin instance for a replaced physical resource (or the old nested stack)."""
    row = SimpleNamespace(id=r.id, name=r.name, uuid=r.uuid, stack_id=r.stack_id,
                          physical_resource_id=old.get("physical_resource_id"),
                          rsrc_data=old.get("rsrc_data") or {})
    if (old.get("rsrc_data") or {}).get("nested"):
        return nested.NestedResource(st, row, old.get("properties_data"))
    cls = registry.get(old.get("impl") or old["type"])
    if cls is None:
        return base.Resource(r.name, {})
    ident = definitions.identity(st.name, st.id, st.tenant)
    return cls(r.name, dict(old.get("properties_data") or {}),
               resource_id=old.get("physical_resource_id"), data=dict(old.get("rsrc_data") or {}),
               stack=ident, clients=clients.for_stack(ident), uuid=r.uuid)
