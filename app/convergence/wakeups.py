"""Waking a node that waits for an outside event (the ``Wait`` outcome).

A waiting node holds no task: its resource row keeps the handle and the event it waits for
(``handle = {"h": ..., "t": traversal, "wait": event}``), and :func:`wake` enqueues its step at
once when the event happens. Events are strings named by their source:
:func:`child_stack_event` for a nested stack finishing; a signal to a wait condition handle
wakes the conditions that name it (:func:`wake_signal_waiters`). Cost: one query and one enqueue per wake.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.convergence import runtime
from app.convergence.store.rows import table
from app.engine.states import NodeState
from app.models import Resource, Stack, SyncPoint, after_commit, read_session
from app.resource_types import registry

SP = table(SyncPoint)
RT = table(Resource)
ST = table(Stack)


def child_stack_event(child_stack_id: str) -> str:
    """The event a nested stack's parent node waits for: the child's traversal ended."""
    return f"stack-finished:{child_stack_id}"


def _waiting_nodes(s: Session, stack_id: str, resource_id: int) -> tuple[str | None, list[bool]]:
    rows = s.execute(select(ST.c.current_traversal, SP.c.is_update)
                     .select_from(ST.join(SP, (SP.c.stack_id == ST.c.id)
                                          & (SP.c.traversal_id == ST.c.current_traversal)))
                     .where(ST.c.id == stack_id, SP.c.entity_id == resource_id,
                            SP.c.state == NodeState.FIRED)).all()
    tid = rows[0].current_traversal if rows else None
    return tid, [bool(r.is_update) for r in rows]


def wake(stack_id: str, resource_id: int, event: str) -> int:
    """``event`` happened for resource ``resource_id`` of stack ``stack_id``: enqueue the
    step of its node(s) in the stack's current traversal that are running or waiting (FIRED)
    now. The step itself decides whether the event ends its wait (it re-reads what it waits
    for), so a wake that comes early, twice, or for a node busy in its step is harmless.
    :returns: how many nodes were enqueued (0: nothing of the current traversal waits)."""
    with read_session() as s:
        tid, nodes = _waiting_nodes(s, stack_id, resource_id)
    if tid is None:
        return 0
    d = runtime.dispatcher()
    for is_update in nodes:
        d.check_resource(stack_id, tid, resource_id, is_update)
    return len(nodes)


def wake_after_commit(s: Session, stack_id: str, resource_id: int, event: str) -> None:
    """:func:`wake`, once the caller's transaction has committed (what it wakes must see it)."""
    after_commit(s, lambda: _ignore(wake(stack_id, resource_id, event)))


def child_finished(s: Session, child: Any) -> None:
    """A child stack's traversal ended (inside that transaction): wake its parent's node (or,
    when none waits, tell the runtime's ``child_unclaimed`` hook: a scaling group's resize),
    once the transaction committed."""
    info = child.nested_info or {}
    if child.parent_id and "resource_id" in info:
        parent_id, rid, event = child.parent_id, int(info["resource_id"]), \
            child_stack_event(child.id)
        after_commit(s, lambda: _after_child(parent_id, rid, event))


def _after_child(parent_id: str, resource_id: int, event: str) -> None:
    if wake(parent_id, resource_id, event) == 0:
        runtime.current().child_unclaimed(parent_id, resource_id)


def _waiter_types() -> dict[str, str]:
    """``{type name: property naming its handle}`` of the types that wait for a handle."""
    out: dict[str, str] = {}
    for name in registry.types():
        prop = getattr(registry.get(name), "handle_property", None)
        if prop:
            out[name] = str(prop)
    return out


def wake_signal_waiters(stack_id: str, handle_ref: str, event: str) -> int:
    """A handle whose reference is ``handle_ref`` was signalled: wake the wait conditions of
    the stack that name it, or that have not started yet (their step may be running now and
    must look again: a wake of a node in its step is harmless). O(wait conditions of the
    stack) rows read. :returns: how many nodes were enqueued."""
    waiters = _waiter_types()
    with read_session() as s:
        rows = s.execute(select(RT.c.id, RT.c.type, RT.c.properties_data)
                         .where(RT.c.stack_id == stack_id,
                                RT.c.type.in_(sorted(waiters)))).all()
    woken = 0
    for row in rows:
        props = row.properties_data
        if props is None or str(props.get(waiters[row.type])) == handle_ref:
            woken += wake(stack_id, int(row.id), event)
    return woken


def _ignore(_: int) -> None:
    return None
