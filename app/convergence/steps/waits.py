"""Plugins that wait for a signal or a time (wait conditions, OS::Heat::Delay), without a task.

A plugin that waits declares ``waits_for(handle) -> (event, deadline)`` (event: a string such
as ``"signal:<handle ref>"``; deadline: epoch seconds); its unfinished step becomes the
:class:`~app.convergence.results.Wait` outcome (:func:`wait_outcome`), so no task runs until the event wakes it
(:func:`app.convergence.wakeups.wake_signal_waiters`) or its deadline's safety poll comes.
A wait condition reads its handle's signals through :func:`attach` (Heat's
``stack.resource_by_refid``), one query per step.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select

from app.convergence.results import Node, Outcome, Start, Wait
from app.convergence.store.rows import table
from app.models import Resource, read_session
from app.resource_types import _ec2sign, _wait, registry

RT = table(Resource)


def _impl(rtype: str, data: dict[str, Any] | None) -> str:
    return str((data or {}).get("_impl") or rtype)


def handle_signals(stack_id: str, ref: str) -> dict[str, Any] | None:
    """The signals stored by the wait condition handle of stack ``stack_id`` whose reference
    id is ``ref`` (its physical id, or an AWS handle's signed URL naming it), as
    ``{id: {"status", "reason", "data"}}``; None if no such handle. O(1) queries."""
    arn = _ec2sign.arn_of_url(ref) if "://" in ref else None  # an AWS handle's signed URL
    where = (RT.c.name == arn.resource_name) if arn is not None \
        else (RT.c.physical_resource_id == ref)
    with read_session() as s:
        rows = s.execute(select(RT.c.type, RT.c.rsrc_data).where(
            RT.c.stack_id == stack_id, where)).all()
    for row in rows:
        cls = registry.get(_impl(row.type, row.rsrc_data))
        if cls is not None and getattr(cls, "is_wait_condition_handle", False):
            return _wait.as_native(_wait.metadata_of(row.rsrc_data or {}),
                                   getattr(cls, "signal_keys", _wait.NATIVE))
    return None


def attach(plugin: Any, stack_id: str) -> Any:
    """Give a plugin that reads a handle's signals (``signals_of``) its stack's lookup."""
    if hasattr(type(plugin), "signals_of"):
        plugin.signals_of = lambda ref: handle_signals(stack_id, ref)
    return plugin


def epoch_to_utc(seconds: float) -> dt.datetime:
    """Epoch seconds as a naive UTC datetime (the database's clock form)."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC).replace(tzinfo=None)


def wait_outcome(node: Node, plugin: Any, handle: Any, start: Start | None) -> Outcome | None:
    """The :class:`Wait` of an unfinished plugin that waits (``waits_for(handle) -> (event,
    deadline in epoch seconds)``: a wait condition, a delay), its deadline capped by the
    traversal's; None when the plugin does not wait, or answers None (the caller polls)."""
    waits_for = getattr(plugin, "waits_for", None)
    if waits_for is None:
        return None
    found = waits_for(handle)
    if found is None:   # a plugin that polls this time (a queue to read at each look)
        return None
    event, deadline = found
    return Wait(event, min(node.deadline(), epoch_to_utc(float(deadline))), handle,
                plugin, start)
