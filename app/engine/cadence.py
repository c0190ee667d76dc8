"""Poll cadence from a resource's own expected duration (pure: no I/O, no clock).

More in docs/code/engine.md (app.engine.cadence).
"""
from __future__ import annotations

from collections.abc import Hashable

#: weight of the newest observation in the running estimate
ALPHA = 0.3
#: a late action is looked at every OVERRUN_FRACTION of its overrun (at least the floor)
OVERRUN_FRACTION = 0.25
#: ... and at least every EXPECTED_FRACTION of its expected duration
EXPECTED_FRACTION = 0.1


def next_delay(elapsed: float, expected: float, floor: float, cap: float) -> float:
    """Seconds until the next look at an action running for ``elapsed`` seconds whose kind
    takes ``expected`` seconds: the time left until ``expected``, or, once past it, the larger
    of ``EXPECTED_FRACTION * expected`` and ``OVERRUN_FRACTION * (elapsed - expected)``;
    always within ``[floor, cap]`` (``floor <= cap``, seconds). O(1)."""
    if elapsed < expected:
        wait = expected - elapsed
    else:
        wait = max(EXPECTED_FRACTION * expected, OVERRUN_FRACTION * (elapsed - expected))
    return min(cap, max(floor, wait))


class Durations:
    """Running estimates of how long each kind of action takes (seconds), e.g. keyed by
    ``(resource type, action, phase)``: an exponentially weighted mean (:data:`ALPHA`) of the
    observations. Bounded by the number of distinct keys. Not thread-safe by itself: a lost
    update between two threads only drops one observation."""

    def __init__(self, alpha: float = ALPHA) -> None:
        self.alpha = alpha
        self._mean: dict[Hashable, float] = {}

    def observe(self, key: Hashable, seconds: float) -> None:
        """Record that an action of kind ``key`` took ``seconds`` (negative ones are ignored)."""
        if seconds < 0:
            return
        old = self._mean.get(key)
        self._mean[key] = seconds if old is None else old + self.alpha * (seconds - old)

    def next_look(self, key: Hashable, elapsed: float, bounds: tuple[float, float] | None,
                  ended: tuple[Hashable, float] | None = None) -> float | None:
        """One look at an action of kind ``key`` running for ``elapsed`` seconds: ``ended``
        (``(kind, seconds)`` of a phase this look found over) is observed first; then the
        seconds until the next look (:func:`next_delay` within ``bounds``, ``(floor, cap)``),
        or None when ``bounds`` is None or ``key`` was never timed. O(1)."""
        if ended is not None:
            self.observe(*ended)
        expected = self._mean.get(key)
        if bounds is None or expected is None:
            return None
        return next_delay(elapsed, expected, *bounds)

    def expected(self, key: Hashable) -> float | None:
        """The estimate for ``key``, or None before the first observation."""
        return self._mean.get(key)

    def clear(self) -> None:
        """Forget every estimate (tests)."""
        self._mean.clear()
