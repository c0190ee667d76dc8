"""The delete step of a reverse node: a DELETE or create-ROLLBACK traversal, or a resource that
left the template in an UPDATE. Honours ``deletion_policy`` (Retain keeps the physical
resource; Snapshot snapshots it first where the plugin can) as Heat's ``Resource.delete``;
RetainExceptOnCreate (CloudFormation's) keeps it too, except in a ROLLBACK traversal: the
operation that created it is being rolled back.
"""
from __future__ import annotations

from typing import Any

from app.convergence import plugins
from app.convergence.nested import stacks as nested
from app.convergence.outcome import Done, Failed, Node, Outcome, Poll, Record, Start, Wait
from app.convergence.steps import create, replaced
from app.convergence.store.rows import REPLACED
from app.engine.states import Action, Status


def retained(policy: str | None, stack_action: str) -> bool:
    """Whether a delete under ``policy`` keeps the physical resource: Retain always,
    RetainExceptOnCreate unless the traversal rolls back the operation that made it."""
    return policy == "Retain" or (policy == "RetainExceptOnCreate"
                                  and stack_action != Action.ROLLBACK)


def step(node: Node) -> Outcome:
    """One step of deleting the node's resource: drain what it replaced, start the delete, or
    poll it."""
    if node.resource.rsrc_data.get(REPLACED):  # what a failed update left: deleted first
        pending = replaced.drain(node)
        if isinstance(pending, replaced.Drained):
            return pending.carried(_delete(node))
        if pending is not None:
            return pending
    return _delete(node)


def _delete(node: Node) -> Outcome:
    r, st = node.resource, node.stack
    stack_action = Action.ROLLBACK if st.action == Action.ROLLBACK else Action.DELETE
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
            if retained(r.deletion_policy, st.action):
                return Done(plugin, start=start)
            handle = (plugin.handle_snapshot_delete() if r.deletion_policy == "Snapshot"
                      and hasattr(plugin, "handle_snapshot_delete") else plugin.handle_delete())
        done = plugin.check_delete_complete(handle)
    except Exception as exc:
        return Failed(plugins.reason_of(r.name, exc), plugin=plugin, stack_action=stack_action,
                      start=start)
    if done:
        return Done(plugin, start=start)
    if isinstance(plugin, nested.NestedResource):
        return Wait(plugin.wait_event(), node.deadline(), handle, plugin, start)
    waiting = create.wait_outcome(node, plugin, handle, start)  # OS::Heat::Delay
    if waiting is not None:
        return waiting
    return Poll.next(plugin, handle, r, start)
