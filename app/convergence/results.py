"""What a step returns (its outcome) and the node it ran for: the vocabulary of
:mod:`app.convergence.outcome`, the one applier. Every step module imports these through
:mod:`app.convergence.outcome`.
"""
from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm import Session

from app import errors
from app.convergence import timeouts
from app.convergence.store import pacing
from app.convergence.store.definitions import Loaded
from app.convergence.store.events import STATE_CHANGED, ResourceEvent
from app.convergence.store.rows import ResourceRow, StepStack, changed, table
from app.engine.states import Action, Status
from app.models import Resource, utcnow

RT = table(Resource)
#: One prebuilt statement writes a node's resource row: the columns set are the keys given
#: besides ``row_id`` (SQLAlchemy derives the SET clause from the parameters)
SET_ROW = update(RT).where(RT.c.id == bindparam("row_id"))
#: :data:`SET_ROW` fenced: only while the row's lock is still ``held_by`` at key ``held_at``
#: (the step's fencing token, :mod:`app.convergence.store.locks`)
SET_HELD_ROW = update(RT).where(RT.c.id == bindparam("row_id"),
                                RT.c.engine_id == bindparam("held_by"),
                                RT.c.atomic_key == bindparam("held_at"))
NodeKey = tuple[int, bool]


def write_held(s: Session, rows: list[dict[str, Any]]) -> None:
    """Write resource rows (:data:`SET_HELD_ROW`'s parameters, all of one shape) in ``s``, each
    only while its lock is still the one its step took: the compare-and-swap that fences a
    step's transaction, in the statement it makes anyway.

    :raises LeaseLost: a row's lock moved on (its step's lease ran out); the caller's
        transaction must roll back, so that nothing of it is written."""
    if len(rows) != changed(s.connection().execute(SET_HELD_ROW, rows)):
        raise errors.LeaseLost(f"a lock of resources {sorted(r['row_id'] for r in rows)} "
                               "was taken over")


class Record(enum.Enum):
    """What an outcome writes on the resource row."""
    EVENT = "event"          # its action and status change, with an event (the usual)
    SILENT = "silent"        # Done only: no event (a reverse node marks it DELETE_COMPLETE)
    UNTOUCHED = "untouched"  # its action and status stay (nothing happened to it)


@dataclass(frozen=True)
class Start:
    """The action this step started: its IN_PROGRESS (and the properties it started from) is
    written with the outcome, in the same transaction."""
    action: Action
    properties: dict[str, Any] | None = None

    def columns(self) -> dict[str, Any]:
        """The row's columns when the action starts: IN_PROGRESS, "state changed", no handle,
        no poll yet, and the resolved properties it started from (if given)."""
        values: dict[str, Any] = {"action": str(self.action),
                                  "status": Status.IN_PROGRESS.value,
                                  "status_reason": STATE_CHANGED, "updated_at": utcnow(),
                                  "handle": None, "poll_attempt": 0}
        if self.properties is not None:
            values["properties_data"] = self.properties
        return values


@dataclass(frozen=True)
class Done:
    """The node finished. ``plugin``: the driver whose physical id, data and attributes are
    recorded (None: the row's are kept); ``action``: the resource action that completed
    (default CREATE forward, DELETE reverse)."""
    plugin: Any = None
    action: Action | None = None
    start: Start | None = None
    record: Record = Record.EVENT
    reason: str = STATE_CHANGED
    events: Sequence[ResourceEvent] = ()


@dataclass(frozen=True)
class Failed:
    """The node failed with ``reason``: Heat's wording, or the error the applier words as
    Heat does (``"<ExcType>: resources.<name>: <message>"``). ``record=UNTOUCHED``: the action never
    started (its resolution failed), so the row keeps its state; ``action``: the resource
    action that failed (default CREATE forward, DELETE reverse); ``stack_action``: the word
    of the stack's reason (default ``action``); ``stack_reason``: what follows ``"Resource
    <ACTION> failed: "`` in the stack's reason (default ``reason``)."""
    reason: str | Exception
    plugin: Any = None
    action: Action | None = None
    stack_action: Action | None = None
    start: Start | None = None
    record: Record = Record.EVENT
    attr_data: dict[str, Any] | None = None
    events: Sequence[ResourceEvent] = ()
    stack_reason: str | None = None


@dataclass(frozen=True)
class Poll:
    """Look again in ``delay`` seconds. ``owner``: the traversal that started the action
    (default: this one), stored with the handle."""
    handle: Any
    delay: float
    plugin: Any
    start: Start | None = None
    owner: str | None = None
    events: Sequence[ResourceEvent] = ()  # written with the parked row

    @classmethod
    def next(cls, plugin: Any, handle: Any, resource: ResourceRow,
             start: Start | None) -> Poll:
        """The next look at ``resource``'s action, after the plugin's own ``poll_delay`` for
        its coming look (:meth:`ResourceRow.next_attempt`)."""
        return cls(handle, float(plugin.poll_delay(handle, resource.next_attempt(start))),
                   plugin, start)


@dataclass(frozen=True)
class Wait:
    """Sleep without a task until ``event`` (see :mod:`app.convergence.wakeups`); ``deadline``
    (naive UTC): past it, the node fails with ``"<name>: timed out waiting for <event>"``, or,
    when it is the traversal's own deadline, the stack times out (Heat's "Timed out")."""
    event: str
    deadline: dt.datetime
    handle: Any
    plugin: Any
    start: Start | None = None
    owner: str | None = None  # as Poll's: the traversal that started the action
    events: Sequence[ResourceEvent] = ()  # written with the parked row


Outcome = Done | Failed | Poll | Wait


@dataclass(frozen=True)
class Ended:
    """The node had ended already (a redelivery, a retry): nothing is written; the applier
    makes sure it was counted and that its successors went out. Its lock was not taken."""


@dataclass(frozen=True)
class Raised:
    """The step raised ``error`` (a lost lease: :class:`errors.LeaseLost`, the database, a
    bug): the applier lets go of the node's lock and raises it again (a lost lease: neither,
    the engine that took the node over carries on)."""
    error: Exception


#: What the applier is handed for a node: a step's outcome, or why no step ran or ended
Result = Outcome | Ended | Raised


@dataclass(frozen=True)
class Signalled:
    """A signal delivered to row ``resource`` under the lock its delivery took at ``token``
    (:func:`app.convergence.steps.signals.deliver`): the applier writes the plugin's ``data``
    (None: the row's stays) and ``events`` and lets go of the lock, then wakes what waits for
    the signal to handle ``ref`` (None: nothing to wake; the signal was refused, or changed
    nothing and writes nothing)."""
    resource: ResourceRow
    token: int
    events: Sequence[ResourceEvent]
    data: dict[str, Any] | None = None
    ref: str | None = None


@dataclass(frozen=True)
class Settled:
    """A look at the action a stopped traversal ``traversal_id`` left running on row
    ``resource``, taken by a superseded step (:func:`app.convergence.steps.stopped.settle`)
    under the row's lock: the applier writes the row's ``values`` and ``events`` and lets go
    of the lock; ``delay`` (seconds): the action goes on, look again then (None: it ended).
    No successor is told and nothing is counted (Heat's ``stop_traversal``)."""
    resource: ResourceRow
    traversal_id: str
    is_update: bool
    values: dict[str, Any]
    events: Sequence[ResourceEvent] = ()
    delay: float | None = None


def with_events(outcome: Outcome, rows: Sequence[ResourceEvent]) -> Outcome:
    """``outcome`` writing ``rows`` (events of its step, written before its own) too."""
    return replace(outcome, events=[*rows, *outcome.events]) if rows else outcome


@dataclass
class Node:
    """One step's node: ``(resource, is_update)`` of ``traversal_id``, with what the step
    read (the stack and its sync point, the resource row, the stack's definition)."""
    stack: StepStack
    resource: ResourceRow
    traversal_id: str
    is_update: bool
    loaded: Loaded | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    #: when this look at the node began (epoch seconds, :func:`pacing.clock`)
    looked: float = field(default_factory=pacing.clock)

    @property
    def key(self) -> NodeKey:
        return (self.resource.id, self.is_update)

    @property
    def default_action(self) -> Action:
        """The resource action this node's outcome records unless it names one: CREATE
        forward, DELETE reverse."""
        return Action.CREATE if self.is_update else Action.DELETE

    def deadline(self) -> dt.datetime:
        """This traversal's deadline (:mod:`app.convergence.timeouts`)."""
        started = self.stack.traversal_started_at or utcnow()
        return timeouts.deadline_at(started, self.stack.timeout_mins)
