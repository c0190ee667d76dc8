"""allowed_values on a list checks each item, as Heat's AllowedValues does."""
from app.templates.constraints import check_one
from tests.unit.templates.nesting import HEAT_NESTING, bind


def test_list_items_each_allowed():
    assert check_one("allowed_values", ["a", "b"], ["a"], None) is None
    assert check_one("allowed_values", ["a", "b"], ["a", "b", "a"], None) is None
    assert check_one("allowed_values", ["a", "b"], ["a", "c"], None) is not None


def test_scalar_still_checked_whole():
    assert check_one("allowed_values", ["1", "2"], 2, None) is None
    assert 'is not an allowed value' in check_one("allowed_values", ["a"], "z", None)


def test_null_default_is_no_default():
    """Heat's Parameter.has_default is ``default is not None``: an empty ``default:`` means the
    value must be given."""
    import pytest

    from app import errors
    from app.templates import parse
    t = parse("heat_template_version: 2018-08-31\nparameters:\n  n:\n    type: number\n"
              "    default:\n")
    with pytest.raises(errors.ParameterError) as info:
        bind(t, {}, None, None, None, nesting=HEAT_NESTING)
    assert info.value.heat_type == "UserParameterMissing"
    shown = bind(t, {"n": 3}, None, None, None, nesting=HEAT_NESTING).parameters_for_show()
    assert shown["n"] == "3"
