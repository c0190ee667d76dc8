"""Many resources with one plain snippet (a group's child template) are parsed and instantiated
once and share it: each still has its own name, definition, properties map and dependencies,
and resources whose snippet holds a function or a ``depends_on`` keep their own."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates.resources import SHARE_FROM
from tests.unit.templates.nesting import HEAT_NESTING, bind

from .conftest import DictContext, heat_type_schema

IDENT = StackIdentity("child", "cid", "pid")
MANY = SHARE_FROM + 6


def template(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": "2021-04-16", "resources": resources, **extra}


def test_members_with_one_plain_snippet_each_have_their_own_definition() -> None:
    snippet = {"type": "OS::Heat::Value", "properties": {"value": "v"}}
    names = [str(i) for i in range(MANY)]
    s = bind(parse(template({n: dict(snippet) for n in names})), {}, None, IDENT,
             heat_type_schema, nesting=HEAT_NESTING)
    assert list(s.resources) == names
    assert [s.resources[n].name for n in names] == names
    assert all(s.resources[n].properties == {"value": "v"} for n in names)
    assert s.dependencies == {n: frozenset() for n in names}
    s.resources["1"].properties["value"] = "changed"   # one member's map is its own
    assert s.resources["2"].properties == {"value": "v"}
    assert s.resolve_properties("5", DictContext()) == {"value": "v"}
    assert s.static_properties("7") == {"value": "v"}


def test_a_function_or_depends_on_keeps_a_member_its_own() -> None:
    resources: dict[str, Any] = {str(i): {"type": "OS::Heat::None"} for i in range(MANY)}
    resources["who"] = {"type": "OS::Heat::Value",
                        "properties": {"value": {"get_param": "p"}}}
    resources["ref"] = {"type": "OS::Heat::Value",
                        "properties": {"value": {"get_resource": "3"}}}
    resources["after"] = {"type": "OS::Heat::None", "depends_on": ["4"]}
    s = bind(parse(template(resources, parameters={"p": {"type": "string"}})), {"p": "x"},
             None, IDENT, heat_type_schema, nesting=HEAT_NESTING)
    assert s.dependencies["ref"] == frozenset({"3"})
    assert s.dependencies["after"] == frozenset({"4"})
    assert s.resources["after"].depends_on == ["4"]
    assert s.dependencies["0"] == frozenset()
    assert s.resolve_properties("who", DictContext()) == {"value": "x"}
    assert s.resolve_properties("ref", DictContext(refs={"3": "id-3"})) == {"value": "id-3"}


def test_a_value_of_another_type_is_not_the_same_snippet() -> None:
    resources: dict[str, Any] = {str(i): {"type": "OS::Heat::Value",
                                         "properties": {"value": "1"}} for i in range(MANY)}
    resources["int"] = {"type": "OS::Heat::Value", "properties": {"value": 1}}
    s = bind(parse(template(resources)), {}, None, IDENT, heat_type_schema,
             nesting=HEAT_NESTING)
    assert s.resources["int"].properties == {"value": 1}
    assert s.resources["0"].properties == {"value": "1"}


def test_a_bad_shared_snippet_fails_at_its_first_member() -> None:
    resources = {str(i): {"type": "OS::Heat::RandomString", "properties": {"length": "x"}}
                 for i in range(MANY)}
    with pytest.raises(errors.ValidationError) as exc:
        bind(parse(template(resources)), {}, None, IDENT, heat_type_schema,
             nesting=HEAT_NESTING)
    assert "resources[0].properties.length" in str(exc.value)   # Heat's path of "0"
