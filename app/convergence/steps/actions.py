"""The steps of SUSPEND, RESUME and CHECK traversals (Heat's convergence ``check_resource`` with
``stack.action`` one of them: ``suspend_convergence`` on the reverse nodes, ``resume_convergence``
/ ``check_convergence`` on the forward nodes; ``heat/engine/check_resource.py``,
``heat/engine/resource.py`` ``suspend`` / ``resume`` / ``check``).

More in docs/code/convergence.md (app.convergence.steps.actions).
"""
from __future__ import annotations

from typing import Any

from app.convergence import plugins
from app.convergence.nested import actions as nested_actions
from app.convergence.outcome import Done, Failed, Node, Outcome, Poll, Record, Start
from app.engine.states import Action, Status
from app.resource_types import failures
from app.resource_types._actions import ActionError

#: The stack actions whose traversals these steps run
ACTIONS = frozenset({Action.SUSPEND, Action.RESUME, Action.CHECK, Action.SNAPSHOT})
#: Heat's ``Resource.resume``: the states a resource may be resumed from
RESUMABLE = frozenset({(Action.SUSPEND, Status.COMPLETE), (Action.RESUME, Status.FAILED),
                       (Action.RESUME, Status.COMPLETE)})


def invalid_state(action: str, res_action: str, res_status: str) -> str | None:
    """Heat's refusal of ``action`` on a resource in ``(res_action, res_status)``:
    ``"State ('CREATE', 'FAILED') invalid for suspend"``, or None when it may run. Pure."""
    if action == Action.SUSPEND:
        ok = res_action != Action.DELETE and (res_action == Action.SUSPEND
                                              or res_status == Status.COMPLETE)
    elif action == Action.RESUME:
        ok = (res_action, res_status) in RESUMABLE
    else:
        return None
    return None if ok else f"State ('{res_action}', '{res_status}') invalid for {action.lower()}"


def step(node: Node) -> Outcome:
    """One step of the node's resource in a SUSPEND, RESUME or CHECK traversal: refused (the
    row untouched) from a state Heat refuses, else handed to the child (a nested resource) or
    run by the resource's plugin, built once."""
    action, r = Action(node.stack.action), node.resource
    nested = bool(r.nested_kind)
    polling = r.action == action and r.status == Status.IN_PROGRESS \
        and (nested or r.handle is not None)  # a child is looked at again without a handle
    problem = invalid_state(action, r.action, r.status)  # None for CHECK and SNAPSHOT
    if problem and not polling:  # Heat raises before the action starts
        return Failed(failures.failure_reason(ActionError(problem), r.name), action=action,
                      record=Record.UNTOUCHED)
    if nested:  # the child acts on its own resources
        return nested_actions.step(node, action)
    try:
        plugin: Any = plugins.registry_plugin(r, node.stack, r.properties_data)
    except Exception as exc:
        return Failed(exc, action=action)
    if action == Action.CHECK:
        return _check(node, plugin)
    return _run(node, action, plugin, polling)


def _run(node: Node, action: Action, plugin: Any, polling: bool) -> Outcome:
    r = node.resource
    start: Start | None = None
    try:
        handler = getattr(plugin, f"handle_{action.lower()}", None)
        checker = getattr(plugin, f"check_{action.lower()}_complete", None)
        if polling:
            handle = r.stored_handle()
        else:
            start = Start(action)
            handle = handler() if handler is not None else None
        done = True if checker is None else bool(checker(handle))
    except Exception as exc:
        return Failed(exc, plugin=plugin, action=action, start=start)
    if done:
        return Done(plugin, action=action, start=start)
    return Poll.next(plugin, handle, r, start)


def supports_check(plugin: Any) -> bool:
    """Whether a plugin checks its physical resource (Heat: it has ``handle_check``)."""
    return plugin is not None and callable(getattr(plugin, "handle_check", None))


def _check(node: Node, plugin: Any) -> Outcome:
    r = node.resource
    if not supports_check(plugin):
        if (r.action, r.status) == (Action.INIT, Status.COMPLETE):
            return Done(record=Record.UNTOUCHED)  # not created: better left INIT (Heat)
        return Done(action=Action.CHECK, reason=f"CHECK not supported for {r.type}")
    if (r.action, r.status) == (Action.INIT, Status.COMPLETE):
        return Failed(f"Can not check {r.name}, resource not created yet.", action=Action.CHECK)
    start = Start(Action.CHECK)
    try:
        plugin.handle_check()
    except Exception as exc:
        return Failed(exc, plugin=plugin, action=Action.CHECK,
                      start=start)
    return Done(plugin, action=Action.CHECK, start=start)
