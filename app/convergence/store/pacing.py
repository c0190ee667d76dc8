"""When to look again at a cloud action in progress: :mod:`app.engine.cadence`, fed by what
this worker saw finish.

More in docs/code/convergence.md (app.convergence.store.pacing).
"""
from __future__ import annotations

import json
import time
import zlib
from typing import Any

from app.convergence.store.rows import ResourceRow
from app.engine import cadence
from app.resource_types import base

durations = cadence.Durations()
#: A look that finds a phase over at its first look only says it took at most that long: it is
#: observed as this fraction of the time, so that an estimate learnt too long shrinks back
#: (by ``ALPHA * (1 - FIRST_LOOK_FRACTION)``, 15 %, a look: 2 s to 0.6 s in eight looks), at the
#: price of an early look now and then once it is right
FIRST_LOOK_FRACTION = 0.5
#: Phases past this one share its estimate (a plugin that changes its handle at every look)
LAST_PHASE = 4

Key = tuple[str, str, bool, int]


def kind(resource: ResourceRow, action: str, is_update: bool, phase: int = 0) -> Key:
    """The key a phase of an action is timed by."""
    return (str(resource.type), str(action), bool(is_update), min(int(phase), LAST_PHASE))


def fingerprint(handle: Any) -> int:
    """A cheap digest of a plugin's handle (JSON, keys sorted): equal handles, equal digests."""
    return zlib.crc32(json.dumps(handle, sort_keys=True, default=str).encode())


def _timing(resource: ResourceRow) -> dict[str, Any]:
    stored = resource.handle
    if isinstance(stored, dict) and isinstance(stored.get("since"), (int, float)):
        return stored
    return {}


def poll(resource: ResourceRow, action: str, is_update: bool, plugin: Any, handle: Any,
         fallback: float, started_now: bool, looked: float, now: float
         ) -> tuple[float, dict[str, Any]]:
    """The next look at ``resource``'s unfinished action after a look that began at ``looked``
    and ended ``now`` (epoch seconds): ``(delay in seconds, timing to store beside the
    handle)``. ``started_now``: this look started the action (its ``handle_*`` ran), so its
    first phase begins now. A look that changed the plugin's handle ends the phase it was in
    (its duration is observed) and begins the next one."""
    fp = fingerprint(handle)
    stored = {} if started_now else _timing(resource)
    ended = None
    if not stored:
        phase, since = 0, now
    else:
        phase, since = int(stored.get("phase") or 0), float(stored["since"])
        if stored.get("fp") is not None and stored["fp"] != fp:
            ended = _ended(kind(resource, action, is_update, phase), since, stored.get("last"),
                           looked)
            phase, since = phase + 1, now
    key = kind(resource, action, is_update, phase)
    timing = {"since": since, "last": looked, "phase": phase, "fp": fp}
    return delay(key, plugin, fallback, since, now, ended), timing


def delay(key: Key, plugin: Any, fallback: float, started: float, now: float,
          ended: tuple[Key, float] | None = None) -> float:
    """Seconds until the next look: from the kind's expected duration, or ``fallback`` (the
    plugin's own ``poll_delay``) when the plugin paces itself or the kind was never timed.
    ``ended``: a phase this look found over, observed first."""
    bounds = None
    if plugin is not None and getattr(type(plugin), "poll_delay", None) is base.Resource.poll_delay:
        floor = float(plugin.poll_initial)
        bounds = (floor, max(floor, float(plugin.poll_max)))
    wait = durations.next_look(key, now - started, bounds, ended)
    return fallback if wait is None else wait


def finished(resource: ResourceRow, action: str, is_update: bool, looked: float) -> None:
    """Observe how long the last phase of ``resource``'s polled action took (nothing if it was
    not polled), found over by the look that began at ``looked``."""
    stored = _timing(resource)
    if stored:
        durations.observe(*_ended(kind(resource, action, is_update, int(stored.get("phase") or 0)),
                                  float(stored["since"]), stored.get("last"), looked))


def _ended(key: Key, since: float, last: Any, looked: float) -> tuple[Key, float]:
    """How long a phase that began at ``since`` took, found over by the look at ``looked``:
    ``(key, seconds)``; ``last``: the look before it (if it came after ``since``, the phase
    ended between the two)."""
    if isinstance(last, (int, float)) and last > since:
        return key, (float(last) + looked) / 2 - since
    return key, FIRST_LOOK_FRACTION * (looked - since)


def clock() -> float:
    """Epoch seconds (stored in handles, so comparable across workers)."""
    return time.time()
