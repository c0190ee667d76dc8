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

import logging
import random
from collections import Counter
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, select
from sqlalchemy.orm import Session

from app import config
from app.convergence.store.rows import changed, table
from app.engine.states import Status
from app.models import Event, Stack, after_commit, read_session, session

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

    :returns: the number of events deleted. Cost: O(keep) reads on index ``ix_event_stack``
    (a count that stops at ``keep``: a stack with fewer events costs that one read), then
    O(batch) for the oldest deletable ids, and the write lock only for the delete; both reads
    start above the newest event this process purged (:data:`_floors`), not at the dead index
    entries of earlier purges, so a purge costs the same however many came before; finding
    the operation's first event costs O(events of the operation) once per operation and
    process (:func:`_operation_start`). Once only the operation's own events are left, the
    rest of it costs one read of the stack row a purge (:data:`_drained`: no older event
    can appear). Statements built once."""
    settings = config.get()
    keep = settings.max_events_per_stack if keep is None else keep
    batch = settings.event_purge_batch_size if batch is None else batch
    if keep <= 0 or batch <= 0:
        return 0
    floor = _floors.get(stack_id, 0)
    with read_session() as s:
        c = s.connection()
        if stack_id in _drained and _drained[stack_id] == _running_traversal(c, stack_id):
            return 0
        if (c.execute(_COUNT_UPTO, {"sid": stack_id, "keep": keep, "floor": floor})
                .scalar() or 0) < keep:
            return 0
        running = _operation_start(c, stack_id)
        params = {"sid": stack_id, "batch": batch, "floor": floor}
        ids = list((c.execute(_OLDEST_ANY, params) if running is None else
                    c.execute(_OLDEST, {**params, "before": running})).scalars())
    if not ids:
        if running and stack_id in _starts:
            _remember(_drained, stack_id, _starts[stack_id][0])
        return 0
    with session() as s:
        deleted = changed(s.connection().execute(
            _DELETE, {"sid": stack_id, "floor": floor, "last": max(ids)}))
    _remember(_floors, stack_id, max(ids))
    return deleted


ET, ST = table(Event), table(Stack)
#: the stack's events above ``floor`` counted up to ``keep`` (the count stops there)
_COUNT_UPTO = select(func.count()).select_from(
    select(ET.c.id).where(ET.c.stack_id == bindparam("sid"), ET.c.id > bindparam("floor"))
    .limit(bindparam("keep")).subquery())
#: the stack's oldest ``batch`` events above ``floor``
_OLDEST_ANY = (select(ET.c.id).where(ET.c.stack_id == bindparam("sid"),
                                     ET.c.id > bindparam("floor"))
               .order_by(ET.c.id).limit(bindparam("batch")))
#: ... and before ``before``
_OLDEST = _OLDEST_ANY.where(ET.c.id < bindparam("before"))
#: the stack's events above ``floor`` up to ``last`` (the oldest ids read: a range of its index,
#: which no plan reads more of, where an IN list of ids could be read as all the stack's events)
_DELETE = delete(ET).where(ET.c.stack_id == bindparam("sid"), ET.c.id > bindparam("floor"),
                           ET.c.id <= bindparam("last"))
_STACK = select(ST.c.action, ST.c.status, ST.c.current_traversal).where(
    ST.c.id == bindparam("sid"))
#: the id of the stack's own IN_PROGRESS event of ``action`` (its newest)
_FIRST = select(func.max(ET.c.id)).where(
    ET.c.stack_id == bindparam("sid"), ET.c.physical_resource_id == bindparam("sid"),
    ET.c.resource_type == STACK_TYPE, ET.c.action == bindparam("action"),
    ET.c.status == Status.IN_PROGRESS.value)

#: stack id -> (its traversal in progress, the id of that operation's first event)
_starts: dict[str, tuple[str, int]] = {}
_MAX_STARTS = 4096
#: stack id -> its traversal in progress, which a purge found nothing older than: the events
#: written while it runs are its own (ids only grow), so no purge can take one until it ends
_drained: dict[str, str] = {}
#: stack id -> the newest of its events this process purged: the purged ones stay in the index
#: until a vacuum, and a scan from the stack's oldest would step over all of them each purge
_floors: dict[str, int] = {}


def _remember(cache: dict[str, Any], stack_id: str, value: Any) -> None:
    if len(cache) >= _MAX_STARTS:
        cache.clear()
    cache[stack_id] = value


def _running_traversal(c: Connection, stack_id: str) -> str | None:
    """The stack's traversal in progress (None: none is)."""
    st = c.execute(_STACK, {"sid": stack_id}).first()
    return None if st is None or st.status != Status.IN_PROGRESS else str(st.current_traversal)


def _operation_start(c: Connection, stack_id: str) -> int | None:
    """The id of the stack's own IN_PROGRESS event of the operation in progress (None: no
    operation is in progress). The event is written as the traversal begins, before any event
    of its steps; found once per traversal and process (a scan of the operation's events)."""
    st = c.execute(_STACK, {"sid": stack_id}).first()
    if st is None or st.status != Status.IN_PROGRESS:
        _starts.pop(stack_id, None)
        return None
    known = _starts.get(stack_id)
    if known is not None and known[0] == st.current_traversal:
        return known[1]
    first = c.execute(_FIRST, {"sid": stack_id, "action": st.action}).scalar()
    if first is None:
        return 0
    _remember(_starts, stack_id, (str(st.current_traversal), int(first)))
    return int(first)
