"""A property given an explicit null, as Heat's heat/engine/properties.py treats it.

``Properties._resolve_user_value``: a key in the data counts as given whatever it resolves to
(None included), unless it resolves to Ellipsis (an omitted ``if``: Stoker's ABSENT).
``Property.get_value(None)``: ``_get_string`` -> default or '', ``_get_integer`` /
``_get_number`` -> default or 0, ``_get_list`` -> default or [], ``_get_map`` -> default if
any else {}, ``_get_bool`` -> default or False, ``any`` -> None; then
``Schema.validate_constraints`` checks that value. ``TemplateResource.child_params`` passes a
given null's value to the child (the property has no default: ``Schema.from_parameter``).
"""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates import properties as tproperties
from app.templates.functions.base import ABSENT

PATH = ("resources", "r", "properties")


@pytest.mark.parametrize("schema,expected", [
    ({"type": "string"}, ""),
    ({"type": "string", "default": "d"}, "d"),
    ({"type": "integer"}, 0),
    ({"type": "integer", "default": 32}, 32),
    ({"type": "number"}, 0),
    ({"type": "number", "default": 2.5}, 2.5),
    ({"type": "list"}, []),
    ({"type": "list", "default": ["a"]}, ["a"]),
    ({"type": "map"}, {}),
    ({"type": "map", "default": {"k": 1}}, {"k": 1}),
    ({"type": "boolean"}, False),
    ({"type": "boolean", "default": True}, True),
    ({"type": "any"}, None),
    ({"type": "any", "default": "x"}, None),  # _get_* exist per type; any keeps None
])
def test_null_value_per_type(schema: dict[str, Any], expected: Any) -> None:
    got = tproperties.null_value(schema)
    assert got == expected and type(got) is type(expected)


def test_a_false_default_gives_the_zero_value() -> None:
    """``has_default() and default() or 0``: a false default is not kept (but a map's is)."""
    assert tproperties.null_value({"type": "number", "default": 0.0}) == 0
    assert type(tproperties.null_value({"type": "number", "default": 0.0})) is int
    assert tproperties.null_value({"type": "map", "default": {}}) == {}


def test_null_value_is_a_fresh_copy() -> None:
    schema = {"type": "list", "default": ["a"]}
    tproperties.null_value(schema).append("b")
    assert schema["default"] == ["a"]


def test_required_given_null_is_assigned() -> None:
    schema = {"s": {"type": "string", "required": True},
              "n": {"type": "integer", "required": True},
              "b": {"type": "boolean", "required": True},
              "a": {"type": "any", "required": True}}
    got = tproperties.validate(schema, {"s": None, "n": None, "b": None, "a": None}, PATH)
    assert got == {"s": "", "n": 0, "b": False, "a": None}


def test_required_not_given_is_not_assigned_without_its_name_in_the_path() -> None:
    with pytest.raises(errors.ValidationError) as exc:
        tproperties.validate({"s": {"type": "string", "required": True}}, {}, PATH)
    assert exc.value.message == "Property error: resources.r.properties: Property s not assigned"


def test_required_omitted_by_if_is_not_assigned_at_its_path() -> None:
    """The key is in Heat's data (an If returning Ellipsis): validate's path has the key."""
    with pytest.raises(errors.ValidationError) as exc:
        tproperties.validate({"s": {"type": "string", "required": True}}, {"s": ABSENT}, PATH)
    assert exc.value.message == ("Property error: resources.r.properties.s: "
                                 "Property s not assigned")


def test_optional_omitted_by_if_takes_its_default_and_is_not_returned_as_absent() -> None:
    schema = {"n": {"type": "integer", "default": 3}, "s": {"type": "string"}}
    assert tproperties.validate(schema, {"n": ABSENT, "s": ABSENT}, PATH) == {"n": 3}
    assert tproperties.validate(None, {"n": ABSENT, "m": None}, PATH) == {"m": None}


def test_optional_without_default_given_null_is_the_zero_value_not_unset() -> None:
    schema = {"s": {"type": "string"}, "l": {"type": "list"}, "m": {"type": "map"}}
    assert tproperties.validate(schema, {"s": None, "l": None, "m": None}, PATH) == \
        {"s": "", "l": [], "m": {}}
    assert tproperties.validate(schema, {}, PATH) == {}


@pytest.mark.parametrize("schema,message", [
    ({"type": "string", "constraints": [{"length": {"min": 1}}]},
     "length (0) is out of range (min: 1, max: None)"),
    ({"type": "integer", "constraints": [{"range": {"min": 1}}]},
     "0 is out of range (min: 1, max: None)"),
    ({"type": "string", "constraints": [{"allowed_values": ["a", "b"]}]},
     '"" is not an allowed value ["a", "b"]'),
])
def test_the_zero_value_is_checked_against_the_constraints(schema: dict[str, Any],
                                                           message: str) -> None:
    with pytest.raises(errors.ValidationError) as exc:
        tproperties.validate({"p": schema}, {"p": None}, PATH)
    assert exc.value.message == f"Property error: resources.r.properties.p: {message}"


def test_unknown_property_given_null_is_unknown() -> None:
    with pytest.raises(errors.ValidationError, match="Unknown Property zz"):
        tproperties.validate({"s": {"type": "string"}}, {"zz": None}, PATH)
    with pytest.raises(errors.ValidationError, match="Unknown Property zz"):
        tproperties.validate({"s": {"type": "string"}}, {"zz": None}, PATH, names_only=True)


def test_nulls_inside_a_map_schema_and_a_list_schema() -> None:
    """_get_map / _get_list build child Properties: a member null is given as well."""
    schema = {"m": {"type": "map", "schema": {"x": {"type": "integer", "default": 4},
                                              "y": {"type": "string", "required": True}}},
              "l": {"type": "list", "schema": {"*": {"type": "string"}}}}
    got = tproperties.validate(schema, {"m": {"x": None, "y": None}, "l": ["a", None]}, PATH)
    assert got == {"m": {"x": 4, "y": ""}, "l": ["a", ""]}


def test_child_parameters_pass_a_given_null_as_the_zero_value() -> None:
    schema = {"s": {"type": "string"}, "n": {"type": "number"}, "l": {"type": "list"},
              "m": {"type": "map"}, "b": {"type": "boolean"}, "kept": {"type": "string"},
              "absent": {"type": "string"}}
    values = {"s": None, "n": None, "l": None, "m": None, "b": None, "kept": "k",
              "absent": ABSENT}
    assert tproperties.child_parameters(schema, values) == \
        {"s": "", "n": 0, "l": [], "m": {}, "b": False, "kept": "k"}
    assert tproperties.child_parameters(None, {"s": None, "t": 1}) == {"t": 1}
