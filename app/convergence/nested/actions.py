"""SUSPEND, RESUME and CHECK of a nested-stack resource (Heat's ``StackResource.handle_suspend``
/ ``handle_resume`` / ``handle_check``): the same action on the child stack.

The step starts the child's traversal of that action (its end wakes this node, as a child's
create or delete does: :mod:`app.convergence.wakeups`) and waits holding no task; when the child
ends, the resource is ``<ACTION>_COMPLETE``, or ``<ACTION>_FAILED`` with the child's reason under
the resource's path (Heat's nested failure wording). A resource whose child stack does not exist
fails: ``Error: resources.<name>: Cannot suspend <name>, stack not created``.
"""
from __future__ import annotations

from typing import Any

from app.convergence import traversal
from app.convergence.nested import stacks as nested
from app.convergence.outcome import Done, Failed, Node, Outcome, Start, Wait
from app.engine.states import Action, Status
from app.models import Stack, read_session, session
from app.resource_types import failures
from app.resource_types._actions import ActionError


def _child(child_id: str | None) -> Any:
    if not child_id:
        return None
    with read_session() as s:
        child = s.get(Stack, child_id)
    return None if child is None or child.deleted_at is not None else child


def step(node: Node, action: Action) -> Outcome:
    """One step of the node's nested resource in a SUSPEND, RESUME or CHECK traversal."""
    r = node.resource
    plugin = nested.NestedResource(node.stack, r, r.properties_data)
    polling = r.action == action and r.status == Status.IN_PROGRESS and r.handle is not None
    start: Start | None = None
    if _child(r.physical_resource_id) is None:
        problem = ActionError(f"Cannot {action.lower()} {r.name}, stack not created")
        return Failed(problem, action=action)
    if not polling:
        start = Start(action)
        with session() as s:
            child = s.get(Stack, r.physical_resource_id, with_for_update=True)
            assert child is not None
            if child.status == Status.IN_PROGRESS:
                return Failed(ActionError(f"Stack {child.name} already has an action "
                                          f"({child.action}) in progress."), action=action)
            info = dict(child.nested_info or {})
            info.update(traversal=node.traversal_id, is_update=node.is_update)
            child.nested_info = info
            traversal.start_action(s, child, action)
    child = _child(r.physical_resource_id)
    if child is None or child.status == Status.IN_PROGRESS or child.action != action:
        return Wait(plugin.wait_event(), node.deadline(), r.physical_resource_id, plugin, start)
    if child.status == Status.FAILED:
        return Failed(failures.nested_failure_reason(child.status_reason, action,
                                                 ("resources", r.name)),
                      plugin=plugin, action=action, start=start)
    return Done(plugin, action=action, start=start)
