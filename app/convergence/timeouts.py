"""Timeouts: one deadline per traversal, computed here and nowhere else.

A traversal started at ``traversal_started_at`` must end by ``deadline_at``: the stack's
``timeout_mins`` (Heat's ``timeout_mins``, minutes) or, when the stack has none, the
``stack_action_timeout`` setting (seconds; Heat's default 3600). Waiting nodes (:class:`Wait`)
use the same deadline. Pure but for reading the settings.
"""
from __future__ import annotations

import datetime as dt

from app import config

#: How long a waiting node sleeps before its safety poll looks again (seconds); its event
#: normally wakes it long before.
SAFETY_POLL_SECONDS = 300.0


def limit_seconds(timeout_mins: int | None) -> float:
    """A traversal's time limit in seconds: ``timeout_mins * 60`` or the default."""
    return float(timeout_mins * 60) if timeout_mins else float(config.get().stack_action_timeout)


def deadline_at(started_at: dt.datetime, timeout_mins: int | None) -> dt.datetime:
    """When a traversal started at ``started_at`` (naive UTC) times out (naive UTC)."""
    return started_at + dt.timedelta(seconds=limit_seconds(timeout_mins))


def seconds_left(deadline: dt.datetime, now: dt.datetime) -> float:
    """Seconds from ``now`` to ``deadline`` (negative once past)."""
    return (deadline - now).total_seconds()
