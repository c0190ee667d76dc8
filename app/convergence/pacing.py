"""When to look again at a cloud action in progress: :mod:`app.engine.cadence`, fed by what
this worker saw finish.

A polled action's stored handle carries ``since`` (epoch seconds when its first poll was parked,
just after the plugin's ``handle_*`` returned) and ``last`` (the latest look). When the action
finishes, the time it took is observed per ``(resource type, stack action, is_update)``; the next
action of that kind is first looked at when it should be done (:func:`app.engine.cadence.next_delay`)
instead of on the plugin's fixed backoff. Plugins with a ``poll_delay`` of their own (a wait
with a deadline, a nested stack) keep it; so does every plugin until its kind was seen once.
Estimates are per worker process and cost O(kinds) memory.
"""
from __future__ import annotations

import time
from typing import Any

from app.convergence.rows import ResourceRow
from app.engine import cadence
from app.resource_types import base

durations = cadence.Durations()


def kind(resource: ResourceRow, action: str, is_update: bool) -> tuple[str, str, bool]:
    """The key actions are timed by."""
    return (str(resource.type), str(action), bool(is_update))


def since(resource: ResourceRow, started_now: bool, now: float) -> float:
    """When the action being polled started to be polled: ``now`` for one started by this step,
    else what its stored handle says (``now`` when it says nothing)."""
    stored = resource.handle
    if not started_now and isinstance(stored, dict):
        value = stored.get("since")
        if isinstance(value, (int, float)):
            return float(value)
    return now


def delay(key: tuple[str, str, bool], plugin: Any, fallback: float, started: float,
          now: float) -> float:
    """Seconds until the next look: from the kind's expected duration, or ``fallback`` (the
    plugin's own ``poll_delay``) when the plugin paces itself or the kind was never timed."""
    if plugin is None or getattr(type(plugin), "poll_delay", None) is not base.Resource.poll_delay:
        return fallback
    expected = durations.expected(key)
    if expected is None:
        return fallback
    floor = float(plugin.poll_initial)
    return cadence.next_delay(now - started, expected, floor, max(floor, float(plugin.poll_max)))


def finished(key: tuple[str, str, bool], resource: ResourceRow, now: float) -> None:
    """Observe how long the polled action of ``resource`` took (nothing if it was not polled):
    up to ``now`` if the first look found it done, else the middle of the last two looks."""
    stored = resource.handle
    if not isinstance(stored, dict) or not isinstance(stored.get("since"), (int, float)):
        return
    started = float(stored["since"])
    last = float(stored.get("last") or started)
    durations.observe(key, (now if last <= started else (last + now) / 2) - started)


def clock() -> float:
    """Epoch seconds (stored in handles, so comparable across workers)."""
    return time.time()
