"""Core contract: parse, instantiate, get_param/get_resource/get_attr, outputs, dependencies."""
from __future__ import annotations

import pytest

from app import errors
from app.templates import Environment, StackIdentity, parse
from tests.unit.templates.nesting import HEAT_NESTING, bind

from .conftest import DictContext, heat_type_schema

IDENT = StackIdentity("vstack", "sid", "pid")

BASIC = """
heat_template_version: 2018-08-31
description: basic
parameters:
  who: {type: string, default: world}
  secret: {type: string, hidden: true, default: s}
resources:
  a:
    type: OS::Heat::Value
    properties:
      value: {str_replace: {template: "hello W", params: {W: {get_param: who}}}}
  b:
    type: OS::Heat::Value
    depends_on: a
    properties: {value: {get_attr: [a, value]}}
  c:
    type: OS::Heat::Value
    properties: {value: {get_resource: b}}
outputs:
  o: {value: {list_join: [",", [{get_attr: [b, value]}, x]]}, description: out}
"""


def test_parse_version_and_description() -> None:
    t = parse(BASIC)
    assert t.version == ("heat_template_version", "2018-08-31")
    assert t.description == "basic"
    assert t.raw["resources"]["a"]["type"] == "OS::Heat::Value"


def test_alias_normalised() -> None:
    t = parse("heat_template_version: rocky\n")
    assert t.version == ("heat_template_version", "2018-08-31")


def test_instantiate_resources_dependencies() -> None:
    s = bind(parse(BASIC), {"who": "you"}, None, IDENT, heat_type_schema, nesting=HEAT_NESTING)
    assert list(s.resources) == ["a", "b", "c"]
    assert s.dependencies == {"a": frozenset(), "b": frozenset({"a"}), "c": frozenset({"b"})}
    assert s.resources["b"].depends_on == ["a"]
    assert s.order() == ["a", "b", "c"]


def test_parameters_for_show() -> None:
    s = bind(parse(BASIC), {}, None, IDENT, None, nesting=HEAT_NESTING)
    assert s.parameters_for_show() == {"who": "world", "secret": "******",
                                       "OS::stack_name": "vstack", "OS::stack_id": "sid",
                                       "OS::project_id": "pid"}


def test_env_parameters_and_defaults() -> None:
    env = Environment.from_mapping({"parameters": {"who": "env"},
                                    "parameter_defaults": {"secret": "d", "zzz": 1}})
    s = bind(parse(BASIC), {"who": "user"}, env, IDENT, None, nesting=HEAT_NESTING)
    assert s.params.values == {"who": "env", "secret": "d"}


def test_resolve_properties_and_outputs() -> None:
    s = bind(parse(BASIC), {"who": "you"}, None, IDENT, heat_type_schema, nesting=HEAT_NESTING)
    ctx = DictContext(refs={"b": "b-id"}, attrs={"a": {"value": "hello you"},
                                                 "b": {"value": "B"}})
    assert s.resolve_properties("a", ctx) == {"value": "hello you"}
    assert s.resolve_properties("c", ctx) == {"value": "b-id"}
    assert s.resolve_outputs(ctx) == [{"output_key": "o", "description": "out",
                                       "output_value": "B,x"}]


def test_referenced_attributes_and_output_resources() -> None:
    s = bind(parse(BASIC), {}, None, IDENT, None, nesting=HEAT_NESTING)
    assert s.referenced_attributes("a") == {("value",)}
    assert s.referenced_attributes("b") == {("value",)}
    assert s.output_resources() == {"b"}


def test_output_error_is_reported_not_raised() -> None:
    t = parse("heat_template_version: 2018-08-31\noutputs:\n"
              "  o: {value: {list_join: [1, [a]]}}\n")
    out = bind(t, {}, None, IDENT, None, nesting=HEAT_NESTING).resolve_outputs(DictContext())
    assert out[0]["output_value"] is None
    assert out[0]["output_error"] == '"list_join" delimiter must be a string'


def test_unknown_type() -> None:
    t = parse("heat_template_version: 2018-08-31\nresources:\n  a: {type: OS::Nope}\n")
    with pytest.raises(errors.TemplateError, match=r"The Resource Type \(OS::Nope\) could not"):
        bind(t, {}, None, IDENT, heat_type_schema, nesting=HEAT_NESTING)


def test_cycle_names_the_cycle() -> None:
    t = parse("heat_template_version: 2018-08-31\nresources:\n"
              "  a: {type: OS::Heat::None, depends_on: b}\n"
              "  b: {type: OS::Heat::None, depends_on: a}\n")
    with pytest.raises(errors.TemplateError) as exc:
        bind(t, {}, None, IDENT, heat_type_schema, nesting=HEAT_NESTING)
    assert exc.value.heat_type == "CircularDependencyException"
    assert "a -> b -> a" in exc.value.message


def test_unknown_reference_in_property() -> None:
    t = parse("heat_template_version: 2018-08-31\nresources:\n"
              "  v: {type: OS::Heat::Value, properties: {value: {get_resource: ghost}}}\n")
    with pytest.raises(errors.TemplateError) as exc:
        bind(t, {}, None, IDENT, heat_type_schema, nesting=HEAT_NESTING)
    assert exc.value.heat_type == "InvalidTemplateReference"
    assert exc.value.message == 'The specified reference "ghost" (in v.Properties.value) is ' \
                                'incorrect.'


def test_error_carries_line() -> None:
    text = ("heat_template_version: 2018-08-31\nresources:\n  v:\n    type: OS::Heat::Value\n"
            "    properties:\n      value: {Fn::Select: [0, [a]]}\n")
    with pytest.raises(errors.TemplateError) as exc:
        parse(text)
    assert exc.value.path == ("resources", "v", "properties", "value", "Fn::Select")
    assert exc.value.line == 6
