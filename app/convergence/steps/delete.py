"""The delete step of a reverse node, and draining the physical resources a row replaced.

A reverse node of a DELETE or create-ROLLBACK traversal, or of a resource that left the
template in an UPDATE, deletes its resource under its ``deletion_policy`` (Heat's
``Resource.delete``): Retain keeps it; Snapshot snapshots it first where the plugin can;
RetainExceptOnCreate keeps it too, except in a ROLLBACK traversal. First, the physical
resources the row replaced (``rsrc_data["_replaced"]``, :data:`REPLACED`, oldest first) are
deleted (:func:`drain`), each under the ``update_replace_policy`` of the definition that
replaced it (else its ``deletion_policy``); a stack delete applies the row's
``deletion_policy`` to them instead, as AWS's UpdateReplacePolicy and DeletionPolicy do.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from app import auth
from app.convergence.nested import stacks as nested
from app.convergence.outcome import (
    Done,
    Failed,
    Node,
    Outcome,
    Poll,
    Record,
    ResourceEvent,
    Start,
)
from app.convergence.steps import unfinished
from app.convergence.store import definitions
from app.convergence.store.rows import REPLACED, ResourceRow
from app.engine.states import Action, Status
from app.resource_types import base, registry


def retained(policy: str | None, stack_action: str) -> bool:
    """Whether a delete under ``policy`` keeps the physical resource: Retain always,
    RetainExceptOnCreate unless the traversal rolls back the operation that made it."""
    return policy == "Retain" or (policy == "RetainExceptOnCreate"
                                  and stack_action != Action.ROLLBACK)


def step(node: Node) -> Outcome:
    """One step of deleting the node's resource: drain what it replaced (what a failed update
    left is deleted first), then start its own delete, or poll it."""
    drained = drain(node) if node.resource.rsrc_data.get(REPLACED) else None
    if drained is None or isinstance(drained, Drained):
        return carried(drained, _delete(node))
    return drained


def _delete(node: Node) -> Outcome:
    r, st = node.resource, node.stack
    stack_action = Action.ROLLBACK if st.action == Action.ROLLBACK else Action.DELETE
    keep = retained(r.deletion_policy, st.action)
    if (r.action == Action.DELETE and r.status == Status.COMPLETE) or r.action == Action.INIT \
            or r.properties_data is None:
        return Done(record=Record.SILENT)
    polling = r.action == Action.DELETE and r.status == Status.IN_PROGRESS \
        and r.handle is not None
    plugin: Any = None
    start: Start | None = None
    try:
        plugin = nested.driver_for(r, st, r.properties_data, None)
        if polling:
            handle = r.stored_handle()
        else:
            start = Start(Action.DELETE)
            if keep:
                return Done(plugin, start=start)
            handle = (plugin.handle_snapshot_delete() if r.deletion_policy == "Snapshot"
                      and hasattr(plugin, "handle_snapshot_delete") else plugin.handle_delete())
        done = plugin.check_delete_complete(handle)
    except Exception as exc:
        return Failed(exc, plugin=plugin, stack_action=stack_action, start=start)
    if done:
        return Done(plugin, start=start)
    return unfinished.outcome(node, plugin, handle, start)  # a child stack, OS::Heat::Delay


def drain(node: Node) -> Outcome | Drained | None:
    """Delete what the node's row replaced (oldest first, honouring each one's deletion
    policy). None: there was no queue; :class:`Drained`: nothing is left (the emptied queue
    is on ``node.resource``, its events in the result, both for the step's outcome to carry,
    :func:`carried`); else the outcome of this step (Poll for a delete in progress,
    or Failed), carrying the events."""
    r = node.resource
    queue = list(r.rsrc_data.get(REPLACED) or [])
    if not queue and REPLACED not in r.rsrc_data:
        return None
    rows: list[ResourceEvent] = []
    while queue:
        old = queue[0]
        plugin = _old_plugin(node, old)
        pid = old.get("physical_resource_id")
        policy = r.deletion_policy if node.stack.action == Action.DELETE \
            else old.get("deletion_policy")
        retain = retained(policy, node.stack.action)
        try:
            if "handle" in old:
                handle = old["handle"]
            else:
                rows.append(ResourceEvent(pid, old["type"], Action.DELETE, Status.IN_PROGRESS))
                handle = None if retain else (
                    plugin.handle_snapshot_delete() if policy == "Snapshot"
                    and hasattr(plugin, "handle_snapshot_delete") else plugin.handle_delete())
            done = retain or plugin.check_delete_complete(handle)
        except Exception as exc:
            rows.append(ResourceEvent(pid, old["type"], Action.DELETE, Status.FAILED, exc))
            return Failed(exc, record=Record.UNTOUCHED, stack_action=Action.DELETE, events=rows)
        if not done:  # the queue's progress is parked with the row (the Poll's plugin data)
            old["handle"] = handle
            old["attempt"] = int(old.get("attempt", 0)) + 1
            r.rsrc_data = {**r.rsrc_data, REPLACED: queue}
            return Poll(handle, float(plugin.poll_delay(handle, old["attempt"])), _Unchanged(r),
                        events=rows)
        rows.append(ResourceEvent(pid, old["type"], Action.DELETE, Status.COMPLETE))
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

    def __init__(self, r: ResourceRow, rows: list[ResourceEvent]) -> None:
        self.resource, self.events = r, rows


def carried(drained: Drained | None, outcome: Outcome) -> Outcome:
    """``outcome`` writing the drain too (if any): its events first, and the emptied queue (the
    row's own data, where the outcome names no plugin of its own)."""
    if drained is None:
        return outcome
    return replace(outcome, events=[*drained.events, *outcome.events],
                   plugin=outcome.plugin or _Unchanged(drained.resource))


def _old_plugin(node: Node, old: dict[str, Any]) -> Any:
    """A plugin instance for a replaced physical resource (or the old nested stack)."""
    r, st = node.resource, node.stack
    row = replace(r, physical_resource_id=old.get("physical_resource_id"),
                  rsrc_data=dict(old.get("rsrc_data") or {}))
    if row.nested_kind:
        return nested.NestedResource(st, row, old.get("properties_data"))
    cls = registry.get(old.get("impl") or old["type"])
    if cls is None:
        return base.Resource(r.name, {})
    ident = definitions.identity(st.name, st.id, st.tenant)
    return cls(r.name, dict(old.get("properties_data") or {}),
               resource_id=old.get("physical_resource_id"), data=dict(old.get("rsrc_data") or {}),
               stack=ident, clients=auth.clients_for(ident), uuid=r.uuid)
