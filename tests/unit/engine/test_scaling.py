"""Scaling arithmetic and cooldown rules: Heat's heat/scaling/scalingutil.py
calculate_new_capacity and heat/scaling/cooldown.py (expected values from those rules)."""
import datetime as dt

import pytest

from app import errors
from app.engine import scaling

NOW = dt.datetime(2026, 1, 1, 12, 0, 0)


@pytest.mark.parametrize("current,adj,kind,step,lo,hi,want", [
    (1, 1, "change_in_capacity", None, 1, 3, 2),
    (3, 1, "change_in_capacity", None, 1, 3, 3),          # max bound
    (1, -1, "change_in_capacity", None, 1, 3, 1),         # min bound
    (2, 5, "exact_capacity", None, 0, 10, 5),
    (2, 50, "ExactCapacity", None, 0, 10, 10),
    (2, 1, "ChangeInCapacity", None, 0, 10, 3),
    (10, 15, "percent_change_in_capacity", None, 0, 20, 11),  # 1.5 rounds toward zero
    (10, 15, "percent_change_in_capacity", 3, 0, 20, 13),     # raised to the step
    (4, 10, "percent_change_in_capacity", None, 0, 20, 5),    # 0.4 rounds away from zero
    (4, -10, "percent_change_in_capacity", None, 0, 20, 3),   # -0.4 -> -1
    (10, -25, "PercentChangeInCapacity", None, 0, 20, 8),     # -2.5 -> -2
    (10, -25, "percent_change_in_capacity", 5, 0, 20, 5),     # -2 raised to -5
    (10, 50, "percent_change_in_capacity", 2, 0, 20, 15),     # the step only raises
])
def test_new_capacity(current, adj, kind, step, lo, hi, want):
    assert scaling.new_capacity(current, adj, kind, step, lo, hi) == want


def test_scaling_in_progress_refuses():
    with pytest.raises(errors.NoActionRequired, match="due to scaling activity"):
        scaling.check_allowed("g", {"scaling_in_progress": True}, 0, NOW)


def test_cooldown_end_in_the_future_refuses_and_past_allows():
    later = (NOW + dt.timedelta(seconds=5)).isoformat()
    with pytest.raises(errors.NoActionRequired,
                       match="could not perform scaling action: due to cooldown, cooldown 60"):
        scaling.check_allowed("g", {"cooldown_end": {later: "x"}}, 60, NOW)
    earlier = (NOW - dt.timedelta(seconds=5)).isoformat()
    meta = scaling.check_allowed("g", {"cooldown_end": {earlier: "x"}}, 60, NOW)
    assert meta["scaling_in_progress"] is True


def test_cooldown_end_is_honoured_even_with_a_cooldown_of_zero():
    later = (NOW + dt.timedelta(seconds=5)).isoformat()
    with pytest.raises(errors.NoActionRequired):
        scaling.check_allowed("g", {"cooldown_end": {later: "x"}}, 0, NOW)


def test_old_cooldown_shape_is_ignored_when_cooldown_is_zero():
    recent = (NOW - dt.timedelta(seconds=1)).isoformat()
    assert scaling.check_allowed("g", {"cooldown": {recent: "x"}}, 0, NOW)["scaling_in_progress"]
    with pytest.raises(errors.NoActionRequired):
        scaling.check_allowed("g", {"cooldown": {recent: "x"}}, 10, NOW)
    with pytest.raises(errors.NoActionRequired):
        scaling.check_allowed("g", {recent: "x"}, 10, NOW)


def test_finished_sets_the_cooldown_end_and_keeps_a_later_one():
    meta = scaling.finished({"scaling_in_progress": True}, 30, "ChangeInCapacity : 1", NOW)
    end = (NOW + dt.timedelta(seconds=30)).isoformat()
    assert meta == {"cooldown_end": {end: "ChangeInCapacity : 1"}, "scaling_in_progress": False}
    again = scaling.finished(meta, 0, "y", NOW)
    assert again["cooldown_end"] == {end: "y"}
    unchanged = scaling.finished({"scaling_in_progress": True}, 30, "z", NOW, size_changed=False)
    assert unchanged == {"scaling_in_progress": False}
