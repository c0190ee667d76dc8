"""Parameters: types and coercions, constraints, errors, hidden, pseudo-parameters, groups."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates.constraints import register
from tests.unit.templates.nesting import HEAT_NESTING, bind

IDENT = StackIdentity("vstack", "sid", "pid")


def stack(params_yaml: str, values: dict[str, Any] | None = None, version: str = "2021-04-16",
          extra: str = "") -> Any:
    tmpl = parse(f"heat_template_version: {version}\nparameters:\n{params_yaml}{extra}")
    return bind(tmpl, values or {}, None, IDENT, None, nesting=HEAT_NESTING)


@pytest.mark.parametrize("ptype,given,want,shown", [
    ("number", "42", 42, "42"), ("number", "2.5", 2.5, "2.5"), ("number", 5, 5, "5"),
    ("string", 6, "6", "6"), ("boolean", "yes", True, "True"), ("boolean", "0", False, "False"),
    ("boolean", False, False, "False"), ("comma_delimited_list", " a , b", [" a ", " b"],
                                         " a , b"),
    ("comma_delimited_list", "", [], ""), ("json", '{"a": [1]}', {"a": [1]}, '{"a": [1]}'),
    ("json", {"k": 1}, {"k": 1}, '{"k": 1}'),
])
def test_coercion_and_show(ptype: str, given: Any, want: Any, shown: str) -> None:
    s = stack(f"  p: {{type: {ptype}}}\n", {"p": given})
    assert s.params.values["p"] == want
    assert s.parameters_for_show()["p"] == shown


def test_pseudo_parameters_and_hidden() -> None:
    s = stack("  pw: {type: string, hidden: true, default: x}\n",
              extra="outputs:\n  o: {value: {get_param: OS::stack_id}}\n")
    shown = s.parameters_for_show()
    assert shown == {"pw": "******", "OS::stack_name": "vstack", "OS::stack_id": "sid",
                     "OS::project_id": "pid"}


@pytest.mark.parametrize("schema,given,message", [
    ("{type: number}", "four", "could not convert string to float: 'four'"),
    ("{type: boolean}", "maybe", ("Unrecognized value 'maybe', acceptable values are: '0', "
                                  "'1', 'f', 'false', 'n', 'no', 'off', 'on', 't', 'true', "
                                  "'y', 'yes'")),
    ("{type: json}", "{x", ("Value must be valid JSON: Expecting property name enclosed in "
                            "double quotes: line 1 column 2 (char 1)")),
    ("{type: string, constraints: [{length: {min: 4}}]}", "ab",
     "length (2) is out of range (min: 4, max: None)"),
    ("{type: number, constraints: [{range: {min: 1, max: 10}}]}", "11",
     "11 is out of range (min: 1, max: 10)"),
    ("{type: number, constraints: [{modulo: {step: 2, offset: 1}}]}", "4",
     "4 is not a multiple of 2 with an offset of 1"),
    ("{type: string, constraints: [{allowed_values: [small, large]}]}", "medium",
     '"medium" is not an allowed value ["small", "large"]'),
    ("{type: string, constraints: [{allowed_pattern: '[a-z]+'}]}", "abc1",
     '"abc1" does not match pattern "[a-z]+"'),
    ("{type: string, constraints: [{allowed_pattern: '[a-z]+', description: lower}]}", "A1",
     "lower"),
    ("{type: string, constraints: [{custom_constraint: no.such}]}", "x",
     '"x" does not validate no.such (constraint not found)'),
    ("{type: comma_delimited_list, constraints: [{length: {max: 2}}]}", "a,b,c",
     "length (3) is out of range (min: None, max: 2)"),
    ("{type: comma_delimited_list, constraints: [{allowed_values: [a, b]}]}", "a,c",
     '["a", "c"] is not an allowed value ["a", "b"]'),
])
def test_invalid_values(schema: str, given: Any, message: str) -> None:
    with pytest.raises(errors.ParameterError) as exc:
        stack(f"  p: {schema}\n", {"p": given})
    assert exc.value.message == f"Parameter 'p' is invalid: {message}"
    assert exc.value.heat_type == "StackValidationFailed"


def test_custom_constraint_registry() -> None:
    register("test.even", lambda v: int(v) % 2 == 0)
    stack("  p: {type: number, constraints: [{custom_constraint: test.even}]}\n", {"p": 4})
    with pytest.raises(errors.ParameterError, match="does not validate test.even"):
        stack("  p: {type: number, constraints: [{custom_constraint: test.even}]}\n", {"p": 3})
    stack("  p: {type: string, constraints: [{custom_constraint: nova.flavor}]}\n", {"p": "m1"})


@pytest.mark.parametrize("schema,message,heat_type", [
    ("{type: integer}", "Invalid type (integer)", "InvalidSchemaError"),
    ("{default: 1}", "Missing parameter type for parameter: p", "InvalidSchemaError"),
    ("{type: string, colour: red}", "Invalid key 'colour' for parameter (p)",
     "InvalidSchemaError"),
    ("{type: string, constraints: [{matches: x}]}",
     "Invalid key 'matches' for parameter constraints", "InvalidSchemaError"),
    ("{type: string, constraints: [{range: {min: 1}}]}",
     "Parameter 'p' is invalid: Range constraint invalid for string", "InvalidSchemaError"),
    ("{type: string, default: toolong, constraints: [{length: {max: 3}}]}",
     ("Parameter 'p' is invalid: Invalid default toolong (length (7) is out of range "
      "(min: None, max: 3))"), "InvalidSchemaError"),
])
def test_schema_errors(schema: str, message: str, heat_type: str) -> None:
    with pytest.raises(errors.TemplateError) as exc:
        stack(f"  p: {schema}\n")
    assert (exc.value.message, exc.value.heat_type) == (message, heat_type)


def test_missing_and_unknown() -> None:
    with pytest.raises(errors.ParameterError) as exc:
        stack("  need: {type: string}\n")
    assert exc.value.heat_type == "UserParameterMissing"
    assert exc.value.message == "The Parameter (need) was not provided."
    with pytest.raises(errors.ParameterError) as exc:
        stack("  a: {type: string, default: x}\n", {"b": 1})
    assert exc.value.heat_type == "UnknownUserParameter"


def test_immutable_non_boolean_is_a_warning() -> None:
    t = parse("heat_template_version: 2018-08-31\nparameters:\n"
              "  a: {type: string, default: x, immutable: sometimes}\n")
    assert any("immutable" in w for w in t.warnings)


@pytest.mark.parametrize("groups,message", [
    ("- {label: g1}", "parameter_groups.g1: The parameters must be provided"),
    ("- {label: g, parameters: [ghost]}", "The grouped parameter ghost does not reference"),
    ("- {label: g1, parameters: [a]}\n- {label: g2, parameters: [a]}",
     "parameter_groups.g2: The a parameter must be assigned to one parameter group only."),
])
def test_parameter_groups(groups: str, message: str) -> None:
    with pytest.raises(errors.ValidationError) as exc:
        bind(parse(f"heat_template_version: 2018-08-31\nparameter_groups:\n{groups}\n"
                   f"parameters:\n  a: {{type: string, default: x}}\n"), {}, None, IDENT, None,
             nesting=HEAT_NESTING)
    assert message in exc.value.message
    assert exc.value.message.startswith("Parameter Groups error: ")


def test_a_null_user_value_is_no_value() -> None:
    """Heat's ``Parameter.value``: a user value of null falls back to the default, and with no
    default the parameter is missing."""
    assert stack("  p: {type: string, default: d}\n", {"p": None}).params.values["p"] == "d"
    with pytest.raises(errors.ParameterError) as err:
        stack("  p: {type: string}\n", {"p": None})
    assert err.value.heat_type == "UserParameterMissing"
    assert err.value.message == "The Parameter (p) was not provided."
