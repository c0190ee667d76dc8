"""Conditions (names, references, cycles, use sites) and template/resource structure."""
from __future__ import annotations

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates import properties as tproperties
from tests.unit.templates.nesting import HEAT_NESTING, bind

from .conftest import DictContext, heat_type_schema, value

IDENT = StackIdentity("vstack", "sid", "pid")


def inst(text: str, params: dict | None = None, schema: bool = True):  # type: ignore[no-untyped-def]
    return bind(parse("heat_template_version: 2021-04-16\n" + text),
        params or {}, None, IDENT, heat_type_schema if schema else None, nesting=HEAT_NESTING)


def test_conditions_reference_each_other() -> None:
    s = inst("parameters:\n  env: {type: string, default: prod}\n"
             "conditions:\n  prod: {equals: [{get_param: env}, prod]}\n"
             "  not_prod: {not: prod}\n  both: {and: [prod, true]}\n"
             "  either: {or: [not_prod, {equals: [1, 2]}]}\n")
    assert s.condition_values == {"prod": True, "not_prod": False, "both": True,
                                  "either": False}


def test_condition_cycle_named() -> None:
    with pytest.raises(errors.ValidationError, match='Circular definition for condition "a"'):
        inst("conditions:\n  a: {not: b}\n  b: {not: a}\n")


def test_condition_invalid_definition_and_context() -> None:
    with pytest.raises(errors.ValidationError, match='definition of condition "c" is invalid'):
        inst("conditions:\n  c: 'yes'\n")
    with pytest.raises(errors.TemplateError, match='"str_split" is invalid in this context'):
        inst("conditions:\n  c: {str_split: [',', 'a']}\n")


def test_condition_errors_reported_at_use_site() -> None:
    with pytest.raises(errors.TemplateError) as exc:
        inst("conditions:\n  c: {not: [true, false]}\noutputs:\n  o: {value: {if: [c, 1, 2]}}\n")
    assert exc.value.message == 'outputs.o.value.if: Invalid condition "[True, False]"'
    with pytest.raises(errors.TemplateError, match=r'resources.r.condition: Invalid condition'):
        inst("resources:\n  r: {type: OS::Heat::None, condition: ghost}\n")


def test_yaml_boolean_condition_name_is_a_clear_400() -> None:
    with pytest.raises(errors.ValidationError) as exc:
        inst("conditions:\n  off: false\n")
    assert exc.value.http_status == 400
    assert "quote it" in exc.value.message


def test_resource_condition_and_if_pruning() -> None:
    s = inst("parameters:\n  make: {type: boolean, default: false}\n"
             "conditions:\n  want: {get_param: make}\n"
             "resources:\n  maybe: {type: OS::Heat::Value, condition: want, "
             "properties: {value: here}}\n"
             "  always: {type: OS::Heat::Value, properties: {value: {if: [want, "
             "{get_attr: [maybe, value]}, absent]}}}\n"
             "outputs:\n  ref: {value: {get_resource: maybe}}\n"
             "  hidden: {value: 1, condition: want}\n")
    assert list(s.resources) == ["always"]
    assert s.dependencies == {"always": frozenset()}
    ctx = DictContext()
    assert s.resolve_properties("always", ctx) == {"value": "absent"}
    outs = {o["output_key"]: o for o in s.resolve_outputs(ctx)}
    assert "maybe" in outs["ref"]["output_error"]
    assert outs["hidden"]["output_value"] is None and "output_error" not in outs["hidden"]


def test_reference_to_removed_resource_outside_if() -> None:
    with pytest.raises(errors.TemplateError) as exc:
        inst("conditions:\n  off_: false\nresources:\n  a: {type: OS::Heat::Value, condition: "
             "off_, properties: {value: 1}}\n  b: {type: OS::Heat::Value, properties: "
             "{value: {get_attr: [a, value]}}}\n")
    assert exc.value.heat_type == "InvalidTemplateReference"
    assert exc.value.message == 'The specified reference "a" (in b.Properties.value) is ' \
                                'incorrect.'


def test_null_property_is_given_and_omitted_if_is_not() -> None:
    """Heat's Properties._resolve_user_value: a function resolving to None counts as given
    (Property.get_value then makes it the default), an omitted ``if`` branch does not."""
    s = inst("conditions:\n  never: false\nresources:\n  r: {type: OS::Heat::RandomString, "
             "properties: {length: {if: [never, 40, null]}, salt: {if: [never, x]}}}\n")
    props = s.resolve_properties("r", DictContext())
    assert props == {"length": None}
    schema = {"length": {"type": "integer", "default": 32}, "salt": {"type": "string"}}
    assert tproperties.validate(schema, props, ("r",)) == {"length": 32}


@pytest.mark.parametrize("text,message", [
    ("resources:\n  a: {properties: {}}\n", "Each resource must contain a type key."),
    ("resources:\n  a: {type: [x]}\n", "Resource a type type must be string"),
    ("resources:\n  a: {type: OS::Heat::None, propertys: {}}\n",
     '"propertys" is not a valid keyword inside a resource definition'),
    ("resources:\n  a: {type: OS::Heat::None, properties: [1]}\n",
     "Resource a properties type must be object"),
    ("resources:\n  a: {type: OS::Heat::None, deletion_policy: Keep}\n",
     'Invalid deletion policy "Keep"'),
    ("resources:\n  a: x\n", '"resources" must contain a map of resource maps'),
    ("resourcez: {}\n", "The template section is invalid: resourcez"),
    ("outputs:\n  o: {description: x}\n",
     "Output validation error: outputs.o: Each output definition must contain a value key."),
])
def test_structure_errors(text: str, message: str) -> None:
    with pytest.raises(errors.TemplateError) as exc:
        inst(text)
    assert message in exc.value.message


def test_depends_on_errors_and_cycles() -> None:
    with pytest.raises(errors.TemplateError) as exc:
        inst("resources:\n  a: {type: OS::Heat::None, depends_on: [b]}\n")
    assert exc.value.message == 'The specified reference "b" (in a) is incorrect.'
    with pytest.raises(errors.TemplateError) as exc:
        inst("resources:\n  a: {type: OS::Heat::None, depends_on: a}\n")
    assert exc.value.heat_type == "CircularDependencyException"
    with pytest.raises(errors.TemplateError, match="a -> b -> a|b -> a -> b"):
        inst("resources:\n  a: {type: OS::Heat::Value, properties: {value: {get_attr: [b, "
             "value]}}}\n  b: {type: OS::Heat::Value, properties: {value: {get_resource: a}}}\n")


def test_deletion_policy_from_param_and_alias() -> None:
    s = inst("parameters:\n  dp: {type: string, default: retain}\nresources:\n"
             "  a: {type: OS::Heat::None, deletion_policy: {get_param: dp}, external_id: x1}\n")
    assert s.resources["a"].deletion_policy == "Retain"
    assert s.resources["a"].external_id == "x1"


def test_lax_spots_are_warnings() -> None:
    t = parse("heat_template_version: 2018-08-31\ndescription:\n  resources:\n"
              "    a: {type: OS::Heat::None}\noutputs:\n  o: {value: 1, valu: 2}\n")
    assert t.resources == {}
    assert any("resources" in w and "description" in w for w in t.warnings)
    assert any("valu" in w for w in t.warnings)


def test_property_static_validation() -> None:
    with pytest.raises(errors.ValidationError) as exc:
        inst("resources:\n  a: {type: OS::Heat::RandomString, properties: {length: long}}\n")
    assert exc.value.message == "Property error: resources.a.properties.length: Value 'long' " \
                                "is not an integer"
    with pytest.raises(errors.ValidationError, match="resources.v.properties.value: The "
                       "following params"):
        inst("resources:\n  v: {type: OS::Heat::Value, properties: {value: "
             "{str_replace_strict: {template: a, params: {q: x}}}}}\n")
    inst("resources:\n  a: {type: OS::Heat::RandomString, properties: {length: "
         "{get_attr: [b, value]}}}\n  b: {type: OS::Heat::Value, properties: {value: 3}}\n")


def test_get_attr_validation_in_outputs() -> None:
    with pytest.raises(errors.TemplateError, match=r"The Referenced Attribute \(v nosuch\)"):
        inst("resources:\n  v: {type: OS::Heat::Value, properties: {value: 1}}\n"
             "outputs:\n  o: {value: {get_attr: [v, nosuch]}}\n")
    with pytest.raises(errors.TemplateError, match=r'reference "w" \(in unknown\)'):
        inst("outputs:\n  o: {value: {get_attr: [w, x]}}\n")


def test_get_param_path_and_pseudo() -> None:
    defs = "parameters:\n  l: {type: comma_delimited_list, default: 'a,b'}\n" \
           "  j: {type: json, default: {a: [1, {c: d}]}}\n"
    assert value({"get_param": ["l", "1"]}, param_defs=defs) == "b"
    assert value({"get_param": ["l", 5]}, param_defs=defs) == ""
    assert value({"get_param": ["j", "a", 1, "c"]}, param_defs=defs) == "d"
    assert value({"get_param": "OS::stack_name"}) == "vstack"


def test_long_reverse_chain_has_no_recursion_limit() -> None:
    n = 3000
    lines = ["resources:"]
    for i in range(n - 1):
        lines.append(f"  r{i}: {{type: OS::Heat::None, depends_on: r{i + 1}}}")
    lines.append(f"  r{n - 1}: {{type: OS::Heat::None}}")
    s = inst("\n".join(lines) + "\n", schema=False)
    order = s.order()
    assert order[0] == f"r{n - 1}" and order[-1] == "r0"
    assert s.referenced_attributes("r0") == set()


def test_order_keeps_template_order_among_ready() -> None:
    s = inst("resources:\n  b: {type: OS::Heat::None}\n  a: {type: OS::Heat::None, "
             "depends_on: c}\n  c: {type: OS::Heat::None}\n", schema=False)
    assert s.order() == ["b", "c", "a"]
