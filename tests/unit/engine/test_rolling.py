"""Batched group changes: the arithmetic of Heat's heat/scaling/rolling_update.py and
ResourceGroup._get_batches, and heat/scaling/template.py member_definitions (expected values
worked by hand from those formulas)."""
import pytest

from app.engine import rolling


def test_rolling_update_of_four_in_batches_of_two():
    assert rolling.batches(4, 4, 2, 0) == [(4, 2), (4, 2)]


def test_batch_create_grows_one_batch_at_a_time():
    assert rolling.batches(3, 0, 1, 0) == [(1, 1), (2, 1), (3, 1)]
    assert rolling.batches(5, 0, 2, 0) == [(2, 2), (4, 2), (5, 1)]


def test_min_in_service_adds_a_member_before_replacing_then_shrinks_back():
    # next_batch(2, 2, 0, 1, 2) = (1 + max(min(2, 1), 2), 1) = (3, 1) ... and a last (2, 0)
    assert rolling.batches(2, 2, 1, 2) == [(3, 1), (3, 1), (3, 1), (2, 0)]


def test_nothing_to_do_when_up_to_date_and_sized():
    assert rolling.batches(0, 0, 1, 0) == []
    assert not rolling.needs_update(3, 3, 3)


def test_next_batch_refuses_more_up_to_date_than_exist():
    with pytest.raises(ValueError):
        rolling.next_batch(3, 1, 2, 1, 0)


def test_pauses_must_fit_in_the_timeout():
    rolling.check_pauses(3, 10, 21)
    with pytest.raises(ValueError, match="will result in stack update timeout"):
        rolling.check_pauses(3, 10, 20)


def test_member_definitions_replace_in_order_and_create_new_names():
    old = [("a", {"v": 1}), ("b", {"v": 1}), ("c", {"v": 2})]
    names = iter(["x", "y"])
    got = list(rolling.member_definitions(old, lambda n: {"v": 2}, 4, 2, lambda: next(names)))
    # one new member takes one of num_new; then the first differing old one, "a"
    assert got == [("a", {"v": 2}), ("b", {"v": 1}), ("c", {"v": 2}), ("x", {"v": 2})]


def test_member_definitions_drop_the_first_members_when_shrinking():
    old = [("a", {"v": 1}), ("b", {"v": 1}), ("c", {"v": 1})]
    got = list(rolling.member_definitions(old, lambda n: {"v": 1}, 2, 0, lambda: "z"))
    assert got == [("b", {"v": 1}), ("c", {"v": 1})]


def test_instance_group_batches_count_every_new_member_as_updated():
    assert rolling.instance_batches(3, 3, 2, 0) == [(3, 2), (3, 1)]
    # min_in_service 3 of 3: one extra member per batch, the group back to 3 at the end
    assert rolling.instance_batches(3, 3, 1, 3) == [(4, 1), (4, 1), (4, 1), (3, 0)]
