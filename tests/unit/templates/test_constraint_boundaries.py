"""Constraint boundaries as Heat's ``heat/engine/constraints.py``: ``Range`` and ``Length``
are inclusive at both ends (``value < min`` or ``value > max`` fails), ``Modulo`` compares
``value % step`` with ``offset``; messages print the value as Heat's ``_err_msg`` does."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates.constraints import check_one

from . import oracle_product


@pytest.mark.parametrize("value,ok", [(0.999, False), (1, True), (2, True), (3, True),
                                      (3.001, False), (4, False)])
def test_range_is_inclusive_at_both_ends(value: float, ok: bool) -> None:
    msg = check_one("range", {"min": 1, "max": 3}, value, None)
    assert (msg is None) == ok
    if not ok:
        assert msg == f"{value} is out of range (min: 1, max: 3)"


@pytest.mark.parametrize("spec,value,ok", [({"max": 3}, 3, True), ({"max": 3}, 4, False),
                                           ({"min": 3}, 3, True), ({"min": 3}, 2, False)])
def test_open_ranges(spec: dict[str, int], value: int, ok: bool) -> None:
    assert (check_one("range", spec, value, None) is None) == ok


@pytest.mark.parametrize("text,ok", [("ab", False), ("abc", True), ("abcde", True),
                                     ("abcdef", False)])
def test_length_is_inclusive_at_both_ends(text: str, ok: bool) -> None:
    msg = check_one("length", {"min": 3, "max": 5}, text, None)
    assert (msg is None) == ok
    if not ok:
        assert msg == f"length ({len(text)}) is out of range (min: 3, max: 5)"


def test_modulo_and_the_raw_value_in_messages() -> None:
    assert check_one("modulo", {"step": 2, "offset": 1}, 5, None) is None
    assert check_one("modulo", {"step": 2, "offset": 1}, 4, None) == \
        "4 is not a multiple of 2 with an offset of 1"
    # a parameter given as "1e3": the constraint compares the number, prints the text
    assert check_one("range", {"max": 2}, 1000.0, None, "1e3") == \
        "1e3 is out of range (min: None, max: 2)"


def test_allowed_values_print_json() -> None:
    assert check_one("allowed_values", [1, "x"], 2, None) == \
        '2 is not an allowed value [1, "x"]'
    assert check_one("allowed_values", ["a", "b"], ["a", "z"], None) == \
        '["a", "z"] is not an allowed value ["a", "b"]'


@pytest.mark.parametrize("value,ok", [(0.4999, False), (0.5, True), (1.5, True),
                                      (1.5001, False)])
def test_float_range_bounds_are_inclusive(value: float, ok: bool) -> None:
    assert (check_one("range", {"min": 0.5, "max": 1.5}, value, None) is None) == ok


@pytest.mark.parametrize("value,ok", [([1], False), ([1, 2], True), ([1, 2, 3], True),
                                      ([1, 2, 3, 4], False), ({"a": 1, "b": 2}, True),
                                      ({"a": 1}, False)])
def test_length_of_lists_and_maps_is_inclusive(value: Any, ok: bool) -> None:
    assert (check_one("length", {"min": 2, "max": 3}, value, None) is None) == ok


@pytest.mark.parametrize("value,ok", [(-3, True), (-2, False), (1, True), (0, False)])
def test_modulo_uses_pythons_remainder(value: int, ok: bool) -> None:
    """Heat's ``Modulo._is_valid``: ``value % step != offset`` fails (Python's ``%``, so
    ``-3 % 2 == 1``)."""
    assert (check_one("modulo", {"step": 2, "offset": 1}, value, None) is None) == ok


PARAM = """heat_template_version: 2021-04-16
parameters:
  n: {type: number, constraints: [{range: {min: 1, max: 10}}]}
  s: {type: string, constraints: [{length: {min: 2, max: 4}}]}
  l: {type: comma_delimited_list, constraints: [{length: {max: 2}}]}
"""


@pytest.mark.parametrize("params,bad", [
    ({"n": "10", "s": "abcd", "l": "a,b"}, None), ({"n": "1", "s": "ab", "l": "a"}, None),
    ({"n": "11", "s": "ab", "l": "a"}, "n"), ({"n": "0", "s": "ab", "l": "a"}, "n"),
    ({"n": "10.5", "s": "ab", "l": "a"}, "n"), ({"n": 5, "s": "abcde", "l": "a"}, "s"),
    ({"n": 5, "s": "a", "l": "a"}, "s"), ({"n": 5, "s": "ab", "l": "a,b,c"}, "l"),
])
def test_parameter_constraints_at_their_bounds(params: dict[str, Any], bad: str | None) -> None:
    """Through the create request's checks (``heat.engine.parameters`` on the coerced value):
    each bound is allowed, one past it refused naming the parameter."""
    v = {"template": PARAM, "parameters": params}
    if bad is None:
        oracle_product.instantiate(v)
        return
    with pytest.raises(errors.StokerError) as info:
        oracle_product.instantiate(v)
    assert info.value.message.startswith(f"Parameter '{bad}' is invalid: ")


@pytest.mark.parametrize("length,ok", [(0, False), (1, True), (512, True), (513, False)])
def test_property_range_at_its_bounds(length: int, ok: bool) -> None:
    """A resource property's range (OS::Heat::RandomString ``length``: 1..512, Heat's schema):
    inclusive, refused as Heat's property error beyond."""
    v = {"template": "heat_template_version: 2021-04-16\nresources:\n  r:\n"
                     "    type: OS::Heat::RandomString\n"
                     f"    properties: {{length: {length}, character_classes: "
                     "[{class: digits, min: 1}]}\n"}
    if ok:
        created = oracle_product.run(oracle_product.instantiate(v))
        assert created.status == "CREATE_COMPLETE", created.reasons
        return
    with pytest.raises(errors.StokerError) as info:
        oracle_product.instantiate(v)
    assert info.value.message == ("Property error: resources.r.properties.length: "
                                  f"{length} is out of range (min: 1, max: 512)")
