"""Purging soft-deleted stacks for good, as Heat's ``heat-manage purge_deleted``
(``heat/db/api.py`` ``purge_deleted`` / ``_purge_stacks``).

A deleted stack keeps its row (``deleted_at`` set, listed with ``show_deleted``) and its events;
this removes the stacks deleted more than an age ago, with their resources, events, sync points
and sync inputs, snapshot records and stored credentials, and the raw templates (current and
previous) that no stack left refers to (a template is shared by every stack with the same
content: :mod:`app.models.raw_templates`). Stacks go in batches (Heat's ``batch_size``, 20), each
batch one transaction. A deleted stack is never touched by the engine again (every action on it
is refused), so purging is safe while the API and workers run; on PostgreSQL the batch's stack
rows are locked with ``SKIP LOCKED``, so two purges running at once share the work.
"""
from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from sqlalchemy import delete, or_, select

from app import errors
from app.models import (
    Event,
    Resource,
    Snapshot,
    Stack,
    SyncInput,
    SyncPoint,
    UserCreds,
    for_update,
    raw_templates,
    session,
    utcnow,
)

log = logging.getLogger(__name__)

#: Heat's granularities (``heat-manage purge_deleted -g``) in seconds
GRANULARITY = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1}
#: Heat's defaults: age 90 (days), 20 stacks a transaction
DEFAULT_AGE, DEFAULT_BATCH_SIZE = 90, 20
#: the counters a purge reports, in this order
COUNTED = ("stacks", "resources", "events", "sync_points", "sync_inputs", "snapshots",
           "user_creds", "raw_templates")


def _positive(value: Any, name: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise errors.BadRequest(f"{name} should be an integer") from None
    if number < 0:
        raise errors.BadRequest(f"{name} should be a positive integer")
    return number


def cutoff(age: Any, granularity: str = "days", now: dt.datetime | None = None) -> dt.datetime:
    """The moment before which a stack must have been deleted to be purged (naive UTC).

    :raises errors.BadRequest: ``age`` not a non-negative integer, or an unknown granularity
        (Heat's messages)."""
    seconds = _positive(age, "age")
    if granularity not in GRANULARITY:
        raise errors.BadRequest("granularity should be days, hours, minutes, or seconds")
    return (now or utcnow()) - dt.timedelta(seconds=seconds * GRANULARITY[granularity])


def purge_deleted(age: Any = DEFAULT_AGE, granularity: str = "days", project_id: str | None = None,
                  batch_size: Any = DEFAULT_BATCH_SIZE) -> dict[str, int]:
    """Remove the stacks deleted before ``age`` ``granularity`` ago (of project ``project_id``
    only, if given), ``batch_size`` stacks a transaction, with everything that belongs to them.

    :returns: rows removed by kind (:data:`COUNTED`).
    :raises errors.BadRequest: a bad age, granularity or batch size (nothing is removed).
    Cost: O(rows removed), batch by batch; live stacks are never read."""
    before = cutoff(age, granularity)
    size = _positive(batch_size, "batch_size") or DEFAULT_BATCH_SIZE
    totals = dict.fromkeys(COUNTED, 0)
    while True:
        removed = _purge_batch(before, project_id, size)
        if not removed["stacks"]:
            break
        for key, n in removed.items():
            totals[key] += n
    if totals["stacks"]:
        log.info("purged %s deleted stacks: %s", totals["stacks"], totals)
    return totals


def _purge_batch(before: dt.datetime, project_id: str | None, size: int) -> dict[str, int]:
    """One transaction: up to ``size`` expired stacks and what belongs to them."""
    q = select(Stack.id, Stack.raw_template_id, Stack.prev_raw_template_id).where(
        Stack.deleted_at.is_not(None), Stack.deleted_at < before)
    if project_id:
        q = q.where(Stack.tenant == project_id)
    q = for_update(q.order_by(Stack.deleted_at, Stack.id).limit(size), skip_locked=True)
    with session() as s:
        picked = s.execute(q).all()
        if not picked:
            return dict.fromkeys(COUNTED, 0)
        ids = [row.id for row in picked]
        templates = {t for row in picked for t in (row.raw_template_id, row.prev_raw_template_id)
                     if t is not None}
        resource_ids = select(Resource.id).where(Resource.stack_id.in_(ids))
        traversals = select(SyncPoint.traversal_id).where(SyncPoint.stack_id.in_(ids))
        removed = {
            "sync_inputs": _count(s.execute(delete(SyncInput).where(or_(
                SyncInput.traversal_id.in_(traversals), SyncInput.entity_id.in_(resource_ids))))),
            "sync_points": _count(s.execute(delete(SyncPoint).where(SyncPoint.stack_id.in_(ids)))),
            "events": _count(s.execute(delete(Event).where(Event.stack_id.in_(ids)))),
            "resources": _count(s.execute(delete(Resource).where(Resource.stack_id.in_(ids)))),
            "snapshots": _count(s.execute(delete(Snapshot).where(Snapshot.stack_id.in_(ids)))),
            "user_creds": _count(s.execute(delete(UserCreds).where(UserCreds.stack_id.in_(ids)))),
            "stacks": _count(s.execute(delete(Stack).where(Stack.id.in_(ids)))),
        }
        removed["raw_templates"] = raw_templates.drop_unreferenced(s, templates)
        return removed


def _count(result: Any) -> int:
    return max(0, int(getattr(result, "rowcount", 0) or 0))
