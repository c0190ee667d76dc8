"""allowed_values on a list checks each item, as Heat's AllowedValues does."""
from app.templates.constraints import check_one


def test_list_items_each_allowed():
    assert check_one("allowed_values", ["a", "b"], ["a"], None) is None
    assert check_one("allowed_values", ["a", "b"], ["a", "b", "a"], None) is None
    assert check_one("allowed_values", ["a", "b"], ["a", "c"], None) is not None


def test_scalar_still_checked_whole():
    assert check_one("allowed_values", ["1", "2"], 2, None) is None
    assert 'is not an allowed value' in check_one("allowed_values", ["a"], "z", None)
