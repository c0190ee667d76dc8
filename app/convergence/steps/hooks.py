"""Breakpoints (Heat's hooks): a resource whose environment sets ``hooks: pre-create`` (or
``pre-update``) in ``resource_registry: {resources: {<name or pattern>: ...}}`` pauses before
that action, as Heat's ``Resource._break_if_required``:

- the event "<ACTION> paused until Hook <hook> is cleared" is written with the parked row, with
  the resource's current state (``INIT_COMPLETE`` before a create); the node waits
  (:class:`Wait`, no task held) for :func:`hook_event`;
- a signal ``{"unset_hook": "<hook>"}`` (:mod:`app.services.signals`) writes "Hook <hook> is
  cleared" and wakes the node, which goes on with its action.

Whether the pause is over is read from the events (a cleared event after those the node
read when it paused), so a signal that arrives before the paused row is written is not lost.
A nested stack's resources see the hooks its registry hands down (``child_mapping``).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.convergence.outcome import Node, Outcome, ResourceEvent, Wait
from app.models import Event, read_session

#: ``rsrc_data`` key: ``{"key": "<traversal>:<hook>", "event": <pause event id>}``
PAUSED = "_hook_paused"


def hook_event(resource_id: int) -> str:
    """The event a paused node waits for (a signal clearing one of its hooks)."""
    return f"hook:{resource_id}"


def hooks_of(node: Node) -> set[str]:
    """The hook types the stack's environment sets on the node's resource."""
    loaded = node.loaded
    env = getattr(loaded.definition, "environment", None) if loaded is not None else None
    if env is None:
        return set()
    try:
        return set(env.registry().hooks_for(node.resource.name))
    except Exception:
        return set()


def pause(node: Node, hook: str, action: str, plugin: Any) -> Outcome | None:
    """The :class:`Wait` of a node paused at ``hook`` before ``action`` (carrying the paused
    event the first time, written with the parked row), or None when the hook is not set or
    was cleared in this traversal (the caller goes on)."""
    if hook not in hooks_of(node):
        return None
    r = node.resource
    key = f"{node.traversal_id}:{hook}"
    paused = dict((r.rsrc_data or {}).get(PAUSED) or {})
    rows: list[ResourceEvent] = []
    if paused.get("key") == key:
        if _cleared(node, hook, int(paused.get("event") or 0)):
            plugin.data.pop(PAUSED, None)
            return None
    else:  # a clear after the events read so far counts (the paused event is written later)
        paused = {"key": key, "event": _last_event_id(node)}
        rows.append(ResourceEvent(r.physical_resource_id, r.type, str(r.action), str(r.status),
                                  f"{action} paused until Hook {hook} is cleared"))
    plugin.data[PAUSED] = paused
    return Wait(hook_event(r.id), node.deadline(), None, plugin, None, events=rows)


def _last_event_id(node: Node) -> int:
    with read_session() as s:
        found = s.execute(select(Event.id).where(
            Event.stack_id == node.stack.id, Event.resource_name == node.resource.name)
            .order_by(Event.id.desc()).limit(1)).scalar()
    return int(found or 0)


def _cleared(node: Node, hook: str, after: int) -> bool:
    with read_session() as s:
        found = s.execute(select(Event.id).where(
            Event.stack_id == node.stack.id, Event.resource_name == node.resource.name,
            Event.id > after, Event.status_reason == f"Hook {hook} is cleared").limit(1)).scalar()
    return found is not None
