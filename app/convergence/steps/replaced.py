"""The queue of physical resources a row replaced, and draining it.

A replaced resource's row keeps the physical resources it replaced in ``rsrc_data["_replaced"]``
(:data:`REPLACED`, oldest first, each with its type, properties, data, attributes and deletion
policy: the ``update_replace_policy`` of the definition that replaced it, else its
``deletion_policy``). Its reverse node deletes them (:func:`drain`, polled, honouring that policy:
Retain keeps it, Snapshot snapshots it first where the plugin can, RetainExceptOnCreate keeps it
except in a rollback) once nothing points at them: an update's cleanup node, or a stack delete
after a failed update. A stack delete applies the row's ``deletion_policy`` instead: as AWS's
UpdateReplacePolicy, the replace policy only applies to the cleanup of a replacement, and a
resource deleted with its stack follows its DeletionPolicy (an abandon's Retain included).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from app import auth
from app.convergence import plugins
from app.convergence.nested import stacks as nested
from app.convergence.outcome import Failed, Node, Outcome, Poll, Record
from app.convergence.store import definitions, events
from app.convergence.store.rows import REPLACED, ResourceRow
from app.engine.states import Action, Status
from app.resource_types import base, registry


def drain(node: Node) -> Outcome | Drained | None:
    """Delete what the node's row replaced (oldest first, honouring each one's deletion
    policy). None: there was no queue; :class:`Drained`: nothing is left (the emptied queue
    is on ``node.resource``, its events in the result, both for the step's outcome to carry,
    :meth:`Drained.carried`); else the outcome of this step (Poll for a delete in progress,
    or Failed), carrying the events."""
    r = node.resource
    queue = list(r.rsrc_data.get(REPLACED) or [])
    if not queue and REPLACED not in r.rsrc_data:
        return None
    rows: list[dict[str, Any]] = []
    while queue:
        old = queue[0]
        plugin = _old_plugin(node, old)
        pid = old.get("physical_resource_id")
        policy = r.deletion_policy if node.stack.action == Action.DELETE \
            else old.get("deletion_policy")
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
        if not done:  # the queue's progress is parked with the row (the Poll's plugin data)
            old["handle"] = handle
            old["attempt"] = int(old.get("attempt", 0)) + 1
            r.rsrc_data = {**r.rsrc_data, REPLACED: queue}
            return Poll(handle, float(plugin.poll_delay(handle, old["attempt"])), _Unchanged(r),
                        events=rows)
        rows.append(events.event_row(r.stack_id, r.name, pid, old["type"], Action.DELETE,
                                     Status.COMPLETE, events.STATE_CHANGED))
        queue.pop(0)
    r.rsrc_data = {k: v for k, v in r.rsrc_data.items() if k != REPLACED}
    return Drained(r, rows)


class _Unchanged:
    """What an outcome of the queue records on the row: its own physical id and data."""

    def __init__(self, r: ResourceRow) -> None:
        self.resource_id = r.physical_resource_id
        self.data = dict(r.rsrc_data)


class Drained:
    """A queue drained in this step: its events, and the row whose data no longer holds it."""

    def __init__(self, r: ResourceRow, rows: list[dict[str, Any]]) -> None:
        self.resource, self.events = r, rows

    def carried(self, outcome: Outcome) -> Outcome:
        """``outcome`` writing the drain too: its events first, and the emptied queue (the
        row's own data, where the outcome names no plugin of its own)."""
        return replace(outcome, events=[*self.events, *outcome.events],
                       plugin=outcome.plugin or _Unchanged(self.resource))


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
