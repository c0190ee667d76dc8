"""Typed rows the runtime passes around (read with Core statements, not ORM objects).

:class:`ResourceRow` mirrors the ``resource`` table column for column (``ResourceRow.of(row)``
takes a Core row); :class:`StepStack` is what one step reads in its first statement: the stack's
columns a step needs and its node's sync-point columns (``state``, ``expected``, ``succ``).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from typing import Any, cast

from sqlalchemy import CursorResult, Result, Table

#: ``rsrc_data`` key of the physical resources a row replaced, queued for its cleanup node
#: (:mod:`app.convergence.steps.delete`)
REPLACED = "_replaced"
#: ``rsrc_data`` key of the ``external_id`` a resource was adopted with (the update rule)
EXTERNAL_ID = "_external_id"


@dataclass
class ResourceRow:
    """One ``resource`` row (see :class:`app.models.Resource` for the meaning of each column)."""
    id: int
    uuid: str
    stack_id: str
    name: str
    type: str
    action: str
    status: str
    status_reason: str
    physical_resource_id: str | None
    requires: list[Any]
    deletion_policy: str
    properties_data: dict[str, Any] | None
    rsrc_data: dict[str, Any]
    handle: Any
    attr_data: dict[str, Any] | None
    poll_attempt: int
    engine_id: str | None
    atomic_key: int
    created_at: dt.datetime
    updated_at: dt.datetime | None
    #: ``"template"`` / ``"group"`` ... for a nested-stack resource, else None: what
    #: ``rsrc_data["nested"]`` recorded when the row was written (no column of its own)
    nested_kind: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.rsrc_data = dict(self.rsrc_data or {})
        kind = self.rsrc_data.get("nested")
        self.nested_kind = str(kind) if kind else None

    @classmethod
    def of(cls, row: Any) -> ResourceRow:
        """From a Core row (or any object with the columns as attributes/mapping)."""
        if hasattr(row, "_mapping"):
            m = row._mapping
            return cls(**{n: m[n] for n in _RESOURCE_COLUMNS})
        return cls(**{n: getattr(row, n) for n in _RESOURCE_COLUMNS})

    def impl(self) -> str:
        """The built-in type behind the row (a registry alias is resolved at stack create)."""
        return str(self.rsrc_data.get("_impl") or self.type)

    def next_attempt(self, start: object | None) -> int:
        """The number of the coming look at the action in progress: 1 when this step started
        it (``start`` is not None: an earlier action's count does not carry over into the
        plugin's backoff), else one more than the stored ``poll_attempt``."""
        return 1 if start is not None else (self.poll_attempt or 0) + 1

    def stored_handle(self) -> Any:
        """The plugin's handle of the action in progress (stored as ``{"h": handle, ...}``)."""
        return self.handle.get("h") if isinstance(self.handle, dict) else self.handle


@dataclass(frozen=True)
class StepStack:
    """The stack as one step reads it, with its node's sync point (None outside a step)."""
    id: str
    name: str
    tenant: str
    raw_template_id: int
    current_traversal: str | None
    action: str
    nested_depth: int
    failed: bool
    disable_rollback: bool
    timeout_mins: int | None = None
    traversal_started_at: dt.datetime | None = None
    state: str | None = None            # the node's NodeState
    expected: int | None = None         # the node's predecessor count
    succ: list[list[Any]] | None = None  # the node's successors, ``[[entity_id, is_update]]``

    @classmethod
    def of(cls, row: Any) -> StepStack:
        """From a Core row with (at least) the stack columns, or an ORM ``Stack``."""
        m = getattr(row, "_mapping", None)
        if m is None:
            return cls(**{n: getattr(row, n) for n in _STEP_STACK_COLUMNS if hasattr(row, n)})
        try:  # a step's own statements read every column
            values = {n: m[n] for n in _STEP_STACK_COLUMNS}
        except KeyError:
            return cls(**{n: m[n] for n in _STEP_STACK_COLUMNS if n in m})
        # every step builds one: without the frozen __init__'s object.__setattr__ a field (5x
        # the CPU), as it is built from a row that has them all
        st = object.__new__(cls)
        st.__dict__.update(values)
        return st


_RESOURCE_COLUMNS = tuple(f.name for f in fields(ResourceRow) if f.init)
_STEP_STACK_COLUMNS = tuple(f.name for f in fields(StepStack))


def table(model: type[Any]) -> Table:
    """A model's Core table (the hot path runs Core statements, not ORM units of work)."""
    return cast(Table, model.__table__)


def changed(result: Result[Any]) -> int:
    """How many rows an ``UPDATE`` / ``INSERT`` changed (its cursor's ``rowcount``)."""
    return int(cast("CursorResult[Any]", result).rowcount)
