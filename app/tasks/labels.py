"""Readable task arguments for Flower and ``celery events``: ``argsrepr`` of an engine step.

``check_resource('5f0c…', '9a1e…', 17, True)`` shows as
``(stack=web, resource=server, CREATE)``: the stack's and the resource's names and the action
the node performs (the stack's action on a forward node, ``DELETE`` on a reverse one). Names
never change for a (stack id, resource id), so they are cached per process (:data:`CACHE_SIZE` entries); the stack's
action is cached per traversal. A lookup that fails gives the ids instead: a label never stops
a task from being sent.
"""
from __future__ import annotations

import functools
import logging

from sqlalchemy import select

from app.models import Resource, Stack, read_session

log = logging.getLogger(__name__)
CACHE_SIZE = 4096


@functools.lru_cache(maxsize=CACHE_SIZE)
def _resource_name(stack_id: str, resource_id: int) -> str:
    with read_session() as s:
        return str(s.execute(select(Resource.name).where(
            Resource.id == resource_id, Resource.stack_id == stack_id)).scalar_one())


@functools.lru_cache(maxsize=CACHE_SIZE)
def _stack(stack_id: str, traversal_id: str) -> tuple[str, str]:
    with read_session() as s:
        row = s.execute(select(Stack.name, Stack.action).where(Stack.id == stack_id)).one()
        return str(row.name), str(row.action)


def step(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> str:
    """``(stack=<name>, resource=<name>, <ACTION>)`` for one node; with the ids when the rows
    cannot be read."""
    try:
        stack_name, action = _stack(stack_id, traversal_id)
        name = _resource_name(stack_id, resource_id)
    except Exception as exc:
        log.debug("no label for %s/%s: %s", stack_id, resource_id, exc)
        return f"(stack={stack_id}, resource={resource_id}, {'forward' if is_update else 'DELETE'})"
    return f"(stack={stack_name}, resource={name}, {action if is_update else 'DELETE'})"
