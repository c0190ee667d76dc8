"""Writing what steps leave behind: finished nodes (their row, events, successors' sync points
and the stack-level count, :func:`done`) and parked ones (an action in progress, its handle
and poll timing, :func:`park`), through the process's node store
(:func:`app.convergence.store.nodes.current`: one by one on SQLite, group commit on PostgreSQL).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from app.convergence import plugins, traversal
from app.convergence.results import Done, Failed, Node, Record, Start, default_action
from app.convergence.store import events, nodes, pacing
from app.convergence.store.node_writes import Failing, Finished
from app.convergence.traversal import PROPS_BEFORE
from app.engine.states import Action, Status
from app.models import utcnow

__all__ = ["Failing", "Finished", "done", "end", "ended_again", "failed", "park", "prepare"]


def end(s: Session, node: Node) -> None:
    """Finish ``node``'s traversal in ``s``: its count reached zero."""
    traversal.finish(s, node.stack.id, node.traversal_id, node.loaded)


def park(node: Node, plugin: Any, handle: Any, start: Start | None, owner: str | None,
         event: str | None, timing: dict[str, float] | None = None,
         rows: Sequence[dict[str, Any]] = ()) -> bool:
    """Persist progress (the step's events ``rows``, and the IN_PROGRESS state if this step
    started the action) and release the lock, in one transaction (the node store's).
    ``timing``: the poll's ``since`` and ``last`` (:mod:`app.convergence.store.pacing`),
    stored beside the handle.

    :returns: False if nothing was written: the lock was no longer this step's (fencing)."""
    r = node.resource
    stored: dict[str, Any] = {"h": handle, "t": owner or node.traversal_id, **(timing or {})}
    if event is not None:
        stored["wait"] = event
    values = {"row_id": r.id, "handle": stored, "physical_resource_id": plugin.resource_id,
              "rsrc_data": plugin.data, "poll_attempt": r.next_attempt(start),
              "engine_id": None, "updated_at": utcnow()}
    return nodes.current().park(node, start, values, list(rows))


def done(node: Node, d: Done) -> None:
    """Write finished ``node`` (:func:`prepare`), count it, enqueue its ready successors."""
    nodes.current().finish(node, prepare(node, d), end)


def failed(node: Node, f: Failed) -> None:
    """Write failed ``node``: its row and events, its descendants skipped, the stack marked
    failed, all counted (in one transaction, the node store's)."""
    nodes.current().fail(node, prepare_failed(node, f), end)


def prepare_failed(node: Node, f: Failed) -> Failing:
    """What failed ``node`` writes: its row's values (the started action's columns under
    them), its events (the step's own, the started IN_PROGRESS, the FAILED), the stack's
    reason (Heat's "Resource <ACTION> failed: <reason>")."""
    r = node.resource
    row_action = f.action or default_action(node)
    values: dict[str, Any] = {"engine_id": None, "updated_at": utcnow()}
    if f.record is not Record.UNTOUCHED:
        values.update(action=row_action, status=Status.FAILED, status_reason=f.reason)
        if f.plugin is not None:
            if PROPS_BEFORE in f.plugin.data:  # what the failed update did not reach
                values["properties_data"] = f.plugin.data.pop(PROPS_BEFORE)
            values.update(physical_resource_id=f.plugin.resource_id, rsrc_data=f.plugin.data)
    if f.attr_data is not None:
        values["attr_data"] = f.attr_data
    rows = list(f.events)
    if f.start is not None:
        values = {**events.start_values(f.start.action, f.start.properties), **values}
        rows.append(events.start_event(r, f.start.action))
    if f.record is not Record.UNTOUCHED:
        rows.append(events.event_row(r.stack_id, r.name, r.physical_resource_id, r.type,
                                     row_action, Status.FAILED, f.reason))
    stack_action = f.stack_action or row_action
    return Failing(values, rows, f"Resource {stack_action} failed: {f.stack_reason or f.reason}")


def ended_again(node: Node) -> None:
    """A step of a node that had ended already (a redelivery, a retry): make sure it was
    counted and that its successors went out."""
    nodes.current().ended_again(node, end)


def prepare(node: Node, d: Done) -> Finished:
    """What finished ``node`` writes: its row's values, its events, the data it passes on."""
    r, is_update = node.resource, node.is_update
    pacing.finished(r, node.stack.action, node.is_update, node.looked)
    row_action = d.action or default_action(node)
    values: dict[str, Any] = {"engine_id": None, "handle": None, "updated_at": utcnow()}
    data = r.attr_data
    if d.plugin is not None:
        d.plugin.data.pop(PROPS_BEFORE, None)  # the update it guarded went through
        values.update(physical_resource_id=d.plugin.resource_id, rsrc_data=d.plugin.data)
        if is_update and node.loaded is not None:
            data = plugins.attr_data(d.plugin,
                                     node.loaded.definition.referenced_attributes(r.name))
            values["attr_data"] = data
    if d.record is Record.UNTOUCHED:  # nothing happened to it: its updated_time stays (Heat)
        del values["updated_at"]
    elif d.record is Record.EVENT:
        values.update(action=row_action, status=Status.COMPLETE, status_reason=d.reason)
    elif not is_update:
        values.update(action=Action.DELETE, status=Status.COMPLETE)
    rows = list(d.events)
    if d.start is not None:  # the action started in this step: its IN_PROGRESS goes in too
        if d.start.properties is not None:
            values["properties_data"] = d.start.properties
        rows.append(events.start_event(r, d.start.action))
    if d.record is Record.EVENT:
        rows.append(events.event_row(r.stack_id, r.name, values.get("physical_resource_id",
                                                                    r.physical_resource_id),
                                     r.type, row_action, Status.COMPLETE, d.reason))
    return Finished(values, rows, data)
