"""The queue of physical resources a row replaced, and draining it.

A replaced resource's row keeps the physical resources it replaced in ``rsrc_data["_replaced"]``
(:data:`REPLACED`, oldest first, each with its type, properties, data, attributes and deletion
policy: the ``update_replace_policy`` of the definition that replaced it, else its
``deletion_policy``). Its reverse node deletes them (:func:`drain`, polled, honouring that policy:
Retain keeps it, Snapshot snapshots it first where the plugin can, RetainExceptOnCreate keeps it
except in a rollback) once nothing points at them: an update's cleanup node, or a stack delete
after a failed update.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import update

from app import auth
from app.convergence import plugins
from app.convergence.nested import stacks as nested
from app.convergence.outcome import Failed, Node, Outcome, Poll, Record
from app.convergence.store import definitions, events, locks
from app.convergence.store.rows import REPLACED, ResourceRow, table
from app.engine.states import Action, Status
from app.models import Resource, session, utcnow
from app.resource_types import base, registry

RT = table(Resource)


def drain(node: Node) -> Outcome | None:
    """Delete what the node's row replaced (oldest first, honouring each one's deletion
    policy). None: nothing is left (the events and the emptied queue are written); else the
    outcome of this step (Poll for a delete in progress, or Failed)."""
    r = node.resource
    queue = list(r.rsrc_data.get(REPLACED) or [])
    if not queue and REPLACED not in r.rsrc_data:
        return None
    rows: list[dict[str, Any]] = []
    while queue:
        old = queue[0]
        plugin = _old_plugin(node, old)
        pid = old.get("physical_resource_id")
        policy = old.get("deletion_policy")
        retain = policy == "Retain" or (policy == "RetainExceptOnCreate"
                                        and node.stack.action != Action.ROLLBACK)
        try:
            if "handle" in old:
                handle = old["handle"]
            else:
                rows.append(events.event_row(r.stack_id, r.name, pid, old["type"], Action.DELETE,
                                             Status.IN_PROGRESS, events.STATE_CHANGED))
                handle = None if retain else (
                    plugin.handle_snapshot_delete() if policy == "Snapshot"
                    and hasattr(plugin, "handle_snapshot_delete") else plugin.handle_delete())
            done = retain or plugin.check_delete_complete(handle)
        except Exception as exc:
            reason = plugins.reason_of(r.name, exc)
            rows.append(events.event_row(r.stack_id, r.name, pid, old["type"], Action.DELETE,
                                         Status.FAILED, reason))
            return Failed(reason, record=Record.UNTOUCHED, stack_action=Action.DELETE,
                          events=rows)
        if not done:
            old["handle"] = handle
            old["attempt"] = int(old.get("attempt", 0)) + 1
            _save_queue(r, queue, rows)
            return Poll(handle, float(plugin.poll_delay(handle, old["attempt"])), _Unchanged(r))
        rows.append(events.event_row(r.stack_id, r.name, pid, old["type"], Action.DELETE,
                                     Status.COMPLETE, events.STATE_CHANGED))
        queue.pop(0)
    rest = {k: v for k, v in r.rsrc_data.items() if k != REPLACED}
    with session() as s:
        locks.hold(s, r.id, r.atomic_key)
        s.execute(update(RT).where(RT.c.id == r.id).values(rsrc_data=rest))
        events.add_events(s, rows)
    r.rsrc_data = rest
    return None


class _Unchanged:
    """What a Poll of the queue records on the row: its own physical id and (saved) data."""

    def __init__(self, r: ResourceRow) -> None:
        self.resource_id = r.physical_resource_id
        self.data = dict(r.rsrc_data)


def _save_queue(r: ResourceRow, queue: list[dict[str, Any]], rows: list[dict[str, Any]]) -> None:
    """Persist the drain's progress (one transaction)."""
    r.rsrc_data = {**r.rsrc_data, REPLACED: queue}
    with session() as s:
        locks.hold(s, r.id, r.atomic_key)
        s.execute(update(RT).where(RT.c.id == r.id).values(rsrc_data=r.rsrc_data,
                                                           updated_at=utcnow()))
        events.add_events(s, rows)


def _old_plugin(node: Node, old: dict[str, Any]) -> Any:
    """A plugin instance for a replaced physical resource (or the old nested stack)."""
    r, st = node.resource, node.stack
    row = ResourceRow.of(r)
    row.physical_resource_id = old.get("physical_resource_id")
    row.rsrc_data = dict(old.get("rsrc_data") or {})
    if row.nested_kind():
        return nested.NestedResource(st, row, old.get("properties_data"))
    cls = registry.get(old.get("impl") or old["type"])
    if cls is None:
        return base.Resource(r.name, {})
    ident = definitions.identity(st.name, st.id, st.tenant)
    return cls(r.name, dict(old.get("properties_data") or {}),
               resource_id=old.get("physical_resource_id"), data=dict(old.get("rsrc_data") or {}),
               stack=ident, clients=auth.clients_for(ident), uuid=r.uuid)
