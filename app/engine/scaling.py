"""Scaling arithmetic and cooldown rules (pure), as Heat's ``heat/scaling/scalingutil.py``
(``calculate_new_capacity``) and ``heat/scaling/cooldown.py`` (``CooldownMixin``).

The group's scaling state is Heat's resource metadata shape: ``{"cooldown_end": {iso: reason},
"scaling_in_progress": bool}`` (older ``{"cooldown": {iso: reason}}`` and ``{iso: reason}``
shapes are honoured as Heat does). Times are naive UTC ISO 8601 strings.
"""
from __future__ import annotations

import datetime as dt
import math
from typing import Any

from app import errors

ADJUSTMENT_TYPES = (EXACT_CAPACITY, CHANGE_IN_CAPACITY, PERCENT_CHANGE_IN_CAPACITY) = (
    "exact_capacity", "change_in_capacity", "percent_change_in_capacity")
CFN_ADJUSTMENT_TYPES = (CFN_EXACT_CAPACITY, CFN_CHANGE_IN_CAPACITY,
                        CFN_PERCENT_CHANGE_IN_CAPACITY) = (
    "ExactCapacity", "ChangeInCapacity", "PercentChangeInCapacity")


def _min_step(adjustment: int, min_adjustment_step: int | None) -> int:
    if min_adjustment_step and min_adjustment_step > abs(adjustment):
        return min_adjustment_step if adjustment > 0 else -min_adjustment_step
    return adjustment


def new_capacity(current: int, adjustment: float, adjustment_type: str,
                 min_adjustment_step: int | None, minimum: int, maximum: int) -> int:
    """The capacity after ``adjustment`` of ``adjustment_type`` (HOT or CFN names), kept
    within ``[minimum, maximum]``. A percent change under one member rounds away from zero,
    above one toward zero, then is raised to ``min_adjustment_step``.

    ``new_capacity(10, 15, "percent_change_in_capacity", 3, 0, 20) == 13``."""
    if adjustment_type in (CHANGE_IN_CAPACITY, CFN_CHANGE_IN_CAPACITY):
        result = int(current + adjustment)
    elif adjustment_type in (EXACT_CAPACITY, CFN_EXACT_CAPACITY):
        result = int(adjustment)
    else:
        delta = current * adjustment / 100.0
        if math.fabs(delta) < 1.0:
            rounded = int(math.ceil(delta) if delta > 0.0 else math.floor(delta))
        else:
            rounded = int(math.floor(delta) if delta > 0.0 else math.ceil(delta))
        result = current + _min_step(rounded, min_adjustment_step)
    return max(minimum, min(maximum, result))


def sanitize_cooldown(cooldown: float | None) -> float:
    """Heat's ``_sanitize_cooldown``: None -> 0, negative -> 0."""
    return 0.0 if cooldown is None else max(0.0, float(cooldown))


def _older_than(stamp: str, seconds: float, now: dt.datetime) -> bool:
    return dt.datetime.fromisoformat(stamp) + dt.timedelta(seconds=seconds) < now


def check_allowed(name: str, metadata: dict[str, Any], cooldown: float | None,
                  now: dt.datetime) -> dict[str, Any]:
    """Heat's ``_check_scaling_allowed``: :returns: the metadata marked scaling in progress.

    :raises errors.NoActionRequired: "due to scaling activity" (one is in progress) or "due to
        cooldown, cooldown <n>" (the cooldown has not ended)."""
    meta = dict(metadata)
    if meta.get("scaling_in_progress"):
        raise errors.NoActionRequired(name, "due to scaling activity")
    seconds = sanitize_cooldown(cooldown)
    shown = cooldown if cooldown is not None else 0
    if "cooldown" not in meta and "cooldown_end" not in meta:
        meta.pop("scaling_in_progress", None)
        if meta and seconds != 0 and not _older_than(next(iter(meta)), seconds, now):
            raise errors.NoActionRequired(name, f"due to cooldown, cooldown {shown}")
    elif "cooldown_end" in meta:
        if now.isoformat() < next(iter(meta["cooldown_end"])):
            raise errors.NoActionRequired(name, f"due to cooldown, cooldown {shown}")
    elif seconds != 0 and not _older_than(next(iter(meta["cooldown"])), seconds, now):
        raise errors.NoActionRequired(name, f"due to cooldown, cooldown {shown}")
    meta["scaling_in_progress"] = True
    return meta


def finished(metadata: dict[str, Any], cooldown: float | None, reason: str, now: dt.datetime,
             size_changed: bool = True) -> dict[str, Any]:
    """Heat's ``_finished_scaling``: :returns: the metadata with the cooldown end set to
    ``now + cooldown`` (never earlier than one stored) when the size changed, and no scaling
    in progress."""
    meta = dict(metadata)
    if size_changed:
        end = (now + dt.timedelta(seconds=sanitize_cooldown(cooldown))).isoformat()
        if "cooldown_end" in meta:
            end = max(next(iter(meta["cooldown_end"])), end)
        meta["cooldown_end"] = {end: reason}
    meta["scaling_in_progress"] = False
    return meta
