"""Readable task arguments for Flower and ``celery events``: ``argsrepr`` of an engine step.

``check_resource('5f0c…', '9a1e…', 17, True)`` shows as
``(project=demo, stack=web, resource=server, CREATE)``: the stack's project (its ``tenant``:
the project id, two projects' stacks may share a name), the stack's and the resource's names
and the action the node performs (the stack's action on a forward node, ``DELETE`` on a reverse one). Names
never change for a (stack id, resource id), so they are cached per process (:data:`CACHE_SIZE` entries); the stack's
action is cached per traversal. A lookup that fails gives the ids instead: a label never stops
a task from being sent. Labels are written only while task events are on (:func:`wanted`):
without them nobody sees them, and they cost reads.
"""
from __future__ import annotations

import functools
import logging
from typing import Any

from celery import signals

from app import config
from app.services import step_labels

log = logging.getLogger(__name__)
CACHE_SIZE = 4096


#: this worker's consumer (its event dispatcher says whether task events are on now)
_consumer: Any = None


@signals.worker_ready.connect
def _remember_consumer(sender: Any = None, **_: object) -> None:
    global _consumer
    _consumer = sender


def wanted() -> bool:
    """Whether messages sent now should carry labels: task events are on in this process's
    settings (``STOKER_TASK_EVENTS``, ``stoker up --flower``), or in this worker since a
    Flower (or ``celery control enable_events``) turned them on, as Celery's
    ``enable_events`` does: the event dispatcher's groups include ``task``."""
    if config.get().task_events:
        return True
    events = getattr(_consumer, "event_dispatcher", None)
    return bool(events is not None and events.enabled
                and (not events.groups or "task" in events.groups))


#: (stack id, resource id) -> name, read in bulk for a batch of steps (:func:`prefetch`)
_prefetched: dict[tuple[str, int], str] = {}


@functools.lru_cache(maxsize=CACHE_SIZE)
def _resource_name(stack_id: str, resource_id: int) -> str:
    found = _prefetched.get((stack_id, resource_id))
    if found is not None:
        return found
    return step_labels.resource_names(stack_id, [resource_id])[resource_id]


def prefetch(stack_id: str, resource_ids: list[int]) -> None:
    """Read the names of a batch of a stack's resources at once (a wide fan-out's leaves):
    one query per :data:`app.services.step_labels.CHUNK` ids, not one per message. Never
    raises (a label never stops a task from being sent); keeps at most :data:`CACHE_SIZE`
    names."""
    if len(resource_ids) < 2:
        return
    try:
        if len(_prefetched) + len(resource_ids) > CACHE_SIZE:
            _prefetched.clear()
        for rid, name in step_labels.resource_names(stack_id, resource_ids).items():
            _prefetched[(stack_id, rid)] = name
    except Exception as exc:
        log.debug("no bulk labels for stack %s: %s", stack_id, exc)


@functools.lru_cache(maxsize=CACHE_SIZE)
def _stack(stack_id: str, traversal_id: str) -> tuple[str, str]:
    """``("project=<tenant>, stack=<name>", action)`` of the stack, in one read."""
    tenant, name, action = step_labels.stack_names(stack_id)
    return f"project={tenant}, stack={name}", action


def steps(stack_id: str, traversal_id: str, nodes: list[tuple[int, bool]]) -> str:
    """``(project=<p>, stack=<name>, 50 resources: a, b, c, ..., <ACTION>)`` for a message of several steps
    (the first three names; the ids when the rows cannot be read)."""
    upd = any(u for _, u in nodes)
    try:
        stack_name, action = _stack(stack_id, traversal_id)
        names = [_resource_name(stack_id, rid) for rid, _ in nodes[:3]]
    except Exception as exc:
        log.debug("no label for %s: %s", stack_id, exc)
        return steps_ids(stack_id, traversal_id, nodes)
    more = ", ..." if len(nodes) > 3 else ""
    return (f"({stack_name}, {len(nodes)} resources: {', '.join(names)}{more}, "
            f"{action if upd else 'DELETE'})")


def steps_ids(stack_id: str, traversal_id: str, nodes: list[tuple[int, bool]]) -> str:
    """:func:`steps`' label from the ids alone (no read): ``(stack=<id>, 50 resources: 7, 8,
    9, ..., forward)``."""
    more = ", ..." if len(nodes) > 3 else ""
    upd = any(u for _, u in nodes)
    return (f"(stack={stack_id}, {len(nodes)} resources: "
            f"{', '.join(str(rid) for rid, _ in nodes[:3])}{more}, "
            f"{'forward' if upd else 'DELETE'})")


def step(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> str:
    """``(project=<p>, stack=<name>, resource=<name>, <ACTION>)`` for one node; with the ids when the rows
    cannot be read."""
    try:
        stack_name, action = _stack(stack_id, traversal_id)
        name = _resource_name(stack_id, resource_id)
    except Exception as exc:
        log.debug("no label for %s/%s: %s", stack_id, resource_id, exc)
        return step_ids(stack_id, traversal_id, resource_id, is_update)
    return f"({stack_name}, resource={name}, {action if is_update else 'DELETE'})"


def step_ids(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> str:
    """:func:`step`'s label from the ids alone (no read): ``(stack=<id>, resource=<id>,
    forward|DELETE)``."""
    return f"(stack={stack_id}, resource={resource_id}, {'forward' if is_update else 'DELETE'})"
