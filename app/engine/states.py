"""Actions and statuses of stacks and resources, as Heat names them (``ACTION_STATUS``), and the
node state machine of a traversal (pure).

All are ``StrEnum``: a member is its value wherever a string is expected (SQL, JSON, f-strings).
"""
from __future__ import annotations

import enum


class Action(enum.StrEnum):
    INIT = "INIT"
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    ROLLBACK = "ROLLBACK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    CHECK = "CHECK"
    ADOPT = "ADOPT"
    SNAPSHOT = "SNAPSHOT"
    RESTORE = "RESTORE"


class Status(enum.StrEnum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


def stack_reason(action: str, status: str) -> str:
    """Heat's stack status reason on completion, e.g. ``Stack CREATE completed successfully``."""
    if status == Status.COMPLETE:
        return f"Stack {action} completed successfully"
    if status == Status.IN_PROGRESS:
        return f"Stack {action} started"
    return f"Stack {action} failed"


class NodeState(enum.StrEnum):
    """The state of one traversal node (its sync point), as stored."""
    WAITING = "WAITING"   # some predecessors have not reported
    FIRED = "FIRED"       # ready: its step is enqueued or running (or waiting for an event)
    DONE = "DONE"         # finished successfully: its successors were told
    FAILED = "FAILED"     # finished with a failure: its descendants are skipped
    SKIPPED = "SKIPPED"   # a node it depends on failed: it never runs


class NodeEvent(enum.StrEnum):
    """What happens to a node."""
    READY = "ready"       # its last predecessor reported (or it has none)
    FINISH = "finish"     # its step ended with Done
    FAIL = "fail"         # its step ended with Failed
    SKIP = "skip"         # something it depends on failed


#: The node state machine: ``(state, event) -> new state``; a pair not listed is refused (the
#: runtime's compare-and-swap on the stored state then changes nothing, which is how a
#: redelivered task is told apart).
TRANSITIONS: dict[tuple[NodeState, NodeEvent], NodeState] = {
    (NodeState.WAITING, NodeEvent.READY): NodeState.FIRED,
    (NodeState.WAITING, NodeEvent.SKIP): NodeState.SKIPPED,
    (NodeState.FIRED, NodeEvent.FINISH): NodeState.DONE,
    (NodeState.FIRED, NodeEvent.FAIL): NodeState.FAILED,
}


def transition(state: NodeState, event: NodeEvent) -> NodeState | None:
    """The state after ``event``, or None if the machine refuses it. O(1)."""
    return TRANSITIONS.get((state, event))


def sources(event: NodeEvent) -> tuple[NodeState, NodeState]:
    """``(from, to)`` of ``event``: every event has exactly one source state.

    :raises KeyError: never for a :class:`NodeEvent` (the table covers each once)."""
    for (state, ev), target in TRANSITIONS.items():
        if ev == event:
            return state, target
    raise KeyError(event)
