"""app.engine.cadence: the first look when the action should be done, then often, backing off."""
from __future__ import annotations

import pytest

from app.engine import cadence


@pytest.mark.parametrize(("elapsed", "expected", "delay"), [
    (0.0, 1.0, 1.0),      # first look: when it should be done
    (0.4, 1.0, 0.6),      # the time left
    (0.95, 1.0, 0.1),     # left < floor: the floor (the plugin's own interval)
    (1.05, 1.0, 0.1),     # late: a tenth of the expected duration
    (3.0, 1.0, 0.5),      # later: a quarter of the overrun
    (60.0, 1.0, 2.0),     # very late: capped
    (0.0, 30.0, 2.0),     # a long action: never more than the cap
    (0.0, 0.01, 0.1),     # a very short one: never less than the floor
])
def test_next_delay(elapsed: float, expected: float, delay: float) -> None:
    assert cadence.next_delay(elapsed, expected, floor=0.1, cap=2.0) == pytest.approx(delay)


def test_durations_mean_and_unknown() -> None:
    d = cadence.Durations(alpha=0.5)
    assert d.expected("server") is None
    d.observe("server", 2.0)
    assert d.expected("server") == 2.0
    d.observe("server", 1.0)
    assert d.expected("server") == pytest.approx(1.5)
    d.observe("server", -1.0)                      # ignored
    assert d.expected("server") == pytest.approx(1.5)
    assert d.expected("volume") is None
    d.clear()
    assert d.expected("server") is None


def test_next_look_observes_the_ended_phase_then_paces() -> None:
    d = cadence.Durations(alpha=0.5)
    assert d.next_look("server", 0.0, (0.1, 2.0)) is None            # never timed
    assert d.next_look("server", 0.0, (0.1, 2.0), ended=("server", 1.0)) == pytest.approx(1.0)
    assert d.next_look("server", 0.0, None, ended=("server", 2.0)) is None   # paces itself
    assert d.expected("server") == pytest.approx(1.5)            # ... but still observed
