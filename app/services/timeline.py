"""A stack operation's timeline and root cause, read from the event table.

Reads the stack's nested stacks (one query per level, deleted ones too: a replaced nested
stack's events still tell its story), the root's operation starts, the chosen operation's
events only (by ``Event.id`` range) and the resources' requirements: a fixed number of
statements, whatever the number of events, then :func:`app.engine.timeline.build`.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.engine import timeline
from app.models import Event, Resource, Stack, read_session

ACTIONS = ("CREATE", "UPDATE", "DELETE", "ROLLBACK", "SUSPEND", "RESUME", "CHECK", "ADOPT",
           "SNAPSHOT", "RESTORE")
#: levels of nested stacks read (Heat's max_nested_stack_depth is 5)
MAX_LEVELS = 10


def _tree(stack: Stack) -> dict[str, timeline.StackInfo]:
    tree = {stack.id: timeline.StackInfo(stack.name)}
    frontier = [stack.id]
    with read_session() as s:
        for _ in range(MAX_LEVELS):
            if not frontier:
                break
            kids = s.execute(select(Stack.id, Stack.name, Stack.parent_id, Stack.nested_info)
                             .where(Stack.parent_id.in_(frontier))).all()
            frontier = [k.id for k in kids if k.id not in tree]
            for k in kids:
                info = k.nested_info or {}
                tree.setdefault(k.id, timeline.StackInfo(k.name, k.parent_id,
                                                         info.get("resource_name")))
    return tree


def _rows(events: Any) -> list[timeline.Row]:
    return [timeline.Row(e.id, e.stack_id, e.resource_name, e.resource_type or "", e.action,
                         e.status, e.status_reason or "", e.created_at, e.physical_resource_id)
            for e in events]


def get(ctx: RequestContext, stack: Stack, operation: str | None = None) -> dict[str, Any]:
    """The timeline of the stack's latest operation (or latest ``operation``: CREATE, UPDATE,
    ROLLBACK, DELETE, ...), its nested stacks' resources included with their ``path``: see
    :func:`app.engine.timeline.build` for the body, plus ``stack_name`` and ``stack_id``.

    :raises BadRequest: ``operation`` is not one of Heat's actions.
    :raises NotFound: the stack never ran ``operation`` (404 ``EntityNotFound``)."""
    if operation and operation.upper() not in ACTIONS:
        raise errors.BadRequest(f"Invalid operation {operation!r}: one of {', '.join(ACTIONS)}")
    tree = _tree(stack)
    ids = list(tree)
    columns = (Event.id, Event.stack_id, Event.resource_name, Event.resource_type, Event.action,
               Event.status, Event.status_reason, Event.created_at, Event.physical_resource_id)
    with read_session() as s:
        starts = _rows(s.execute(select(*columns).where(
            Event.stack_id == stack.id, Event.resource_name == stack.name,
            Event.resource_type == timeline.STACK_TYPE, Event.status == "IN_PROGRESS")
            .order_by(Event.id)).all())
        starts = [r for r in starts if r.physical_resource_id in (None, stack.id)]
        span = timeline.window(starts, operation)
        if operation and span is None:
            raise errors.NotFound("Operation", operation.upper(),
                                  f"Stack {stack.name} has no {operation.upper()} operation.")
        rows: list[timeline.Row] = []
        if span is not None:  # only the operation's events: a long history is not read
            q = select(*columns).where(Event.stack_id.in_(ids), Event.id >= span[0])
            if span[1] is not None:
                q = q.where(Event.id < span[1])
            rows = _rows(s.execute(q.order_by(Event.id)).all())
        needs = s.execute(select(Resource.stack_id, Resource.name, Resource.requires)
                          .where(Resource.stack_id.in_(ids))).all()
    requires: dict[str, dict[str, list[str]]] = {}
    for r in needs:
        requires.setdefault(r.stack_id, {})[r.name] = list(r.requires or ())
    body = timeline.build(stack.id, rows, tree, requires, operation, starts)
    return {"stack_name": stack.name, "stack_id": stack.id, **body}
