"""Event retention, as Heat's ``event_create`` / ``_delete_event_rows`` (``heat/db/api.py``): a
stack keeps roughly its newest ``max_events_per_stack`` events (0: all of them).

On a write, with a chance of ``2 / event_purge_batch_size`` an event written (Heat's "200 /
event_purge_batch_size percent of the time"), the stack's events are counted, and if there are
``max_events_per_stack`` or more, the oldest ``event_purge_batch_size`` go. Unlike Heat, the
events of the operation in progress never go: nothing from the stack's own IN_PROGRESS event of
that operation on is removed, so an operation's story stays whole until it ends. The purge runs
after the writing transaction commits, in a short transaction of its own, so a step never
waits on it or fails by it (a failed purge is logged, as Heat logs it).
"""
from __future__ import annotations

import contextlib
import logging
import random
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session

from app import config
from app.engine.states import Status
from app.models import Event, Stack, after_commit, get_engine, read_session, session

log = logging.getLogger(__name__)
STACK_TYPE = "OS::Heat::Stack"


def written(s: Session, rows: Iterable[dict[str, Any]]) -> None:
    """Event ``rows`` were written in ``s``: perhaps purge their stacks' oldest events once
    ``s`` commits (each row a draw of Heat's chance)."""
    settings = config.get()
    if settings.max_events_per_stack <= 0:
        return
    chance = 2.0 / max(1, settings.event_purge_batch_size)
    per_stack = Counter(row["stack_id"] for row in rows)
    due = [sid for sid, n in per_stack.items()
           if any(random.random() < chance for _ in range(n))]
    if due:
        after_commit(s, lambda: _purge_logged(due))


def _purge_logged(stack_ids: list[str]) -> None:
    for stack_id in stack_ids:
        try:
            purge_oldest(stack_id)
        except Exception as exc:  # Heat: "Failed to purge events", and the write stands
            log.error("Failed to purge events of stack %s: %s", stack_id, exc)


def purge_oldest(stack_id: str, keep: int | None = None, batch: int | None = None) -> int:
    """If stack ``stack_id`` has ``keep`` (``max_events_per_stack``) events or more, delete its
    oldest ``batch`` (``event_purge_batch_size``), none of the operation in progress.

    :returns: the number of events deleted. Cost: O(batch + keep) reads on index
    ``ix_event_stack`` above the last id this process purged (the oldest deletable ids first,
    then a count that stops at ``keep``;
    a stack whose events all belong to the operation in progress costs one short read), and
    the write lock only for the delete; finding the operation's first event costs O(events of
    the operation) once per operation and process (:func:`_operation_start`)."""
    settings = config.get()
    keep = settings.max_events_per_stack if keep is None else keep
    batch = settings.event_purge_batch_size if batch is None else batch
    if keep <= 0 or batch <= 0:
        return 0
    floor = _purged.get(stack_id, 0)   # what lies below was purged: not scanned again
    with _ordered_reads() as s:
        q = select(Event.id).where(Event.stack_id == stack_id, Event.id > floor)
        running = _operation_start(s, stack_id)
        if running is not None:
            q = q.where(Event.id < running)
        ids = list(s.execute(q.order_by(Event.id).limit(batch)).scalars())
        if not ids:
            return 0
        count = s.execute(select(func.count()).select_from(  # ordered: an index scan that
            select(Event.id).where(Event.stack_id == stack_id, Event.id > floor)  # stops at
            .order_by(Event.id).limit(keep).subquery())).scalar() or 0            # ``keep``
        if count < keep:
            return 0
    with session() as s:
        result = s.execute(delete(Event).where(Event.stack_id == stack_id,
                                               Event.id.in_(ids)))
        deleted = int(getattr(result, "rowcount", 0) or 0)
    if len(_purged) >= _MAX_STARTS:
        _purged.clear()
    _purged[stack_id] = max(ids)
    return deleted


@contextlib.contextmanager
def _ordered_reads() -> Iterator[Session]:
    """A session for the purge's reads. On PostgreSQL a transaction that scans indexes in
    order only: with statistics older than a stack's many events the planner picks a bitmap
    scan, which reads every event of the stack where ``ORDER BY id LIMIT n`` needs n (one
    purge O(events), a stack's purges quadratic)."""
    if get_engine().dialect.name != "postgresql":
        with read_session() as s:
            yield s
        return
    with session() as s:
        s.execute(text("SET LOCAL enable_bitmapscan = off"))
        yield s


#: stack id -> the highest event id this process purged: the index entries of the events
#: below it are dead until a vacuum, and scanning them again at every purge made a stack's
#: purges quadratic (a group's child of 100,000 members deletes 200,000 CREATE events)
_purged: dict[str, int] = {}


#: stack id -> (its traversal in progress, the id of that operation's first event)
_starts: dict[str, tuple[str, int]] = {}
_MAX_STARTS = 4096


def _operation_start(s: Session, stack_id: str) -> int | None:
    """The id of the stack's own IN_PROGRESS event of the operation in progress (None: no
    operation is in progress). The event is written as the traversal begins, before any event
    of its steps; found once per traversal and process (a scan of the operation's events)."""
    st = s.execute(select(Stack.action, Stack.status, Stack.current_traversal)
                   .where(Stack.id == stack_id)).first()
    if st is None or st.status != Status.IN_PROGRESS:
        _starts.pop(stack_id, None)
        return None
    known = _starts.get(stack_id)
    if known is not None and known[0] == st.current_traversal:
        return known[1]
    first = s.execute(select(func.max(Event.id)).where(
        Event.stack_id == stack_id, Event.physical_resource_id == stack_id,
        Event.resource_type == STACK_TYPE, Event.action == st.action,
        Event.status == Status.IN_PROGRESS.value)).scalar()
    if first is None:
        return 0
    if len(_starts) >= _MAX_STARTS:
        _starts.clear()
    _starts[stack_id] = (str(st.current_traversal), int(first))
    return int(first)
