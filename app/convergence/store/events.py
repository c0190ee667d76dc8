"""Events: every state change of a resource or stack writes one (DESIGN.md, invariant 7).

This is the single place event rows are built and written (``add_event`` moved here from
``app.services.completion``). Rows follow Heat's event shape: resource name, physical id, type,
action, status, reason, ``created_at``.
"""
from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from app.convergence import runtime
from app.convergence.store import event_retention
from app.convergence.store.rows import table
from app.models import Event, after_commit, utcnow

ET = table(Event)
STATE_CHANGED = "state changed"
_INSERT = insert(ET)


@dataclass(frozen=True)
class ResourceEvent:
    """An event of a node's resource, as a step or the applier reports it: Heat's event row
    less the resource's name and stack, which are the node's (:func:`rows_of`). ``reason``:
    Heat's wording, or the error a failure's reason is worded from (by the applier, before it
    is written); ``at``: when it happened (naive UTC)."""
    physical_id: str | None
    type: str
    action: str
    status: str
    reason: str | Exception = STATE_CHANGED
    at: dt.datetime = field(default_factory=utcnow)


def rows_of(r: Any, found: Iterable[ResourceEvent]) -> list[dict[str, Any]]:
    """Event rows (:func:`event_row`'s shape) of row ``r``'s events ``found``, in their order."""
    return [event_row(r.stack_id, r.name, e.physical_id, e.type, e.action, e.status,
                      str(e.reason), e.at) for e in found]


def _written(s: Session, rows: list[dict[str, Any]]) -> None:
    """Hand ``rows`` to the runtime's event observers (the event sinks) once ``s`` commits,
    never when it rolls back."""
    event_retention.written(s, rows)
    observers = runtime.current().event_observers
    if observers:
        after_commit(s, lambda: [cb(r) for cb in observers for r in rows])


#: a random hex digit's value as the first digit of an RFC 4122 variant's group ("8" to "b")
_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def new_uuid() -> str:
    """A time-ordered (version 7, RFC 9562) UUID: the milliseconds since the epoch, then 74
    random bits. Every event has one, indexed unique: ids that grow with time land at the end
    of the index, where random (version 4) ones each dirtied a page of their own (a group's
    100,000 members write 400,000 events). Half the CPU of ``str(uuid.uuid4())``."""
    h = f"{time.time_ns() // 1_000_000:012x}{os.urandom(10).hex()}"
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


def event_row(stack_id: str, name: str, physical_id: str | None, rtype: str, action: str,
              status: str, reason: str, at: dt.datetime | None = None) -> dict[str, Any]:
    """One event row as a dict for a bulk insert, made ``at`` (default: now, naive UTC)."""
    return {"uuid": new_uuid(), "stack_id": stack_id, "resource_name": name,
            "physical_resource_id": physical_id, "resource_type": rtype, "action": str(action),
            "status": str(status), "status_reason": reason,
            "created_at": utcnow() if at is None else at}


def add_event(s: Session, stack_id: str, name: str, physical_id: str | None, rtype: str,
              action: str, status: str, reason: str) -> None:
    """Write one event in the caller's transaction."""
    row = event_row(stack_id, name, physical_id, rtype, action, status, reason)
    s.connection().execute(_INSERT, row)
    _written(s, [row])


def add_events(s: Session, rows: list[dict[str, Any]]) -> None:
    """Write event rows (from :func:`event_row`) in one statement; none: nothing."""
    if rows:
        s.connection().execute(_INSERT, rows)
        _written(s, rows)


def stack_event(s: Session, stack: Any, action: str, status: str, reason: str) -> None:
    """The stack's own event (Heat: resource name = stack name, type ``OS::Heat::Stack``)."""
    add_event(s, stack.id, stack.name, stack.id, "OS::Heat::Stack", action, status, reason)
