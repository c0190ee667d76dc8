"""CFN format: function tables, each function, Mappings, Conditions, parameters, pseudo
parameters, sections and resource keys, duplicate YAML keys (Heat's cfn/template.py)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates.cfn.duplicates import duplicate_keys
from app.templates.cfn.template import CfnTemplate
from tests.unit.templates.conftest import SHARED, DictContext
from tests.unit.templates.nesting import HEAT_NESTING, bind

AWS = "AWSTemplateFormatVersion: '2010-09-09'\n"
HEAT = "HeatTemplateFormatVersion: '2012-12-12'\n"
IDENT = StackIdentity("vstack", "sid-1", "proj-1")


def outputs(text: str, params: dict[str, Any] | None = None,
            ctx: DictContext | None = None) -> dict[str, Any]:
    stack = bind(parse(text), params or {}, None, IDENT, nesting=HEAT_NESTING)
    out = {}
    for o in stack.resolve_outputs(ctx or DictContext()):
        out[o["output_key"]] = o.get("output_error", o["output_value"]) \
            if "output_error" in o else o["output_value"]
    return out


def value(snippet: Any, head: str = AWS, **kw: Any) -> Any:
    text = head + "Resources: {}\nOutputs:\n  O: {Value: " + json.dumps(snippet) + "}\n"
    return outputs(text, **kw)["O"]


def fails(text: str, params: dict[str, Any] | None = None) -> errors.StokerError:
    with pytest.raises(errors.StokerError) as info:
        bind(parse(text), params or {}, None, IDENT, nesting=HEAT_NESTING)
    return info.value


def test_function_tables_are_heats() -> None:
    ref = json.loads((SHARED / "heat-reference" / "template_functions.json").read_text())
    for key, head in (("AWSTemplateFormatVersion.2010-09-09", AWS),
                      ("HeatTemplateFormatVersion.2012-12-12", HEAT)):
        tmpl = parse(head + "Resources: {}\n")
        plain = [f["functions"] for f in ref[key]["functions"]["template_functions"]]
        with_cond = [f["functions"] for f in
                     ref[key]["with_condition_func"]["template_functions"]]
        # Stoker's one addition, beyond Heat: CloudFormation's cross-stack import
        assert ("Fn::ImportValue" in tmpl.hot.functions) == key.startswith("AWS")
        assert [n for n in tmpl.hot.functions if n != "Fn::ImportValue"] == plain
        extra = [n for n in tmpl.hot.condition_functions if n not in tmpl.hot.functions]
        assert plain + extra == with_cond


@pytest.mark.parametrize("snippet,expected", [
    ({"Fn::Join": ["-", ["a", "b", "c"]]}, "a-b-c"),
    ({"Fn::Select": ["1", ["x", "y"]]}, "y"),
    ({"Fn::Select": [5, ["x", "y"]]}, ""),
    ({"Fn::Select": ["k", {"k": "v"}]}, "v"),
    ({"Fn::Split": [",", "a,b"]}, ["a", "b"]),
    ({"Fn::Base64": "plain"}, "plain"),
    ({"Fn::Replace": [{"$a": "1", "$b": "2"}, "$a+$b"]}, "1+2"),
    ({"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k", ".member.0.Value=v"]]},
     {"k": "v"}),
    ({"Fn::MemberListToMap": ["Name", "Value", ["member.0.Name=k", "member.0.Value=v"]]}, {}),
    ({"Fn::GetAZs": ""}, ["nova"]),
    ({"get_param": "x"}, {"get_param": "x"}),
    ({"Ref": "AWS::StackName"}, "vstack"),
    ({"Ref": "AWS::Region"}, "ap-southeast-1"),
    ({"Ref": "AWS::StackId"}, "arn:openstack:heat::proj-1:stacks/vstack/sid-1"),
])
def test_functions(snippet: Any, expected: Any) -> None:
    assert value(snippet) == expected
    assert value(snippet, HEAT) == expected


def test_find_in_map() -> None:
    text = (AWS + "Parameters:\n  R: {Type: String, Default: east}\nMappings:\n"
            "  M: {east: {small: s1}}\nResources: {}\nOutputs:\n"
            "  Ok: {Value: {'Fn::FindInMap': [M, {Ref: R}, small]}}\n"
            "  Missing: {Value: {'Fn::FindInMap': [M, east, big]}}\n")
    out = outputs(text)
    assert out["Ok"] == "s1"
    assert out["Missing"].endswith("'big'")


def test_find_in_map_arity() -> None:
    exc = fails(AWS + "Resources: {}\nOutputs:\n  O: {Value: {'Fn::FindInMap': [M, a]}}\n")
    assert "[map_name, key, value]" in exc.message


def test_get_att_and_ref_resource() -> None:
    text = (AWS + "Resources:\n  V: {Type: OS::Heat::Value, Properties: {value: 1}}\n"
            "Outputs:\n  A: {Value: {'Fn::GetAtt': [V, value]}}\n  R: {Value: {Ref: V}}\n")
    ctx = DictContext(refs={"V": "v-id"}, attrs={"V": {"value": 1}})
    assert outputs(text, ctx=ctx) == {"A": 1, "R": "v-id"}
    exc = fails(AWS + "Resources:\n  V: {Type: OS::Heat::None}\n"
                "Outputs:\n  A: {Value: {'Fn::GetAtt': [V, value, extra]}}\n")
    assert "[resource_name, attribute]" in exc.message


def test_conditions_and_if() -> None:
    text = (AWS + "Parameters:\n  Env: {Type: String, Default: prod}\nConditions:\n"
            "  IsProd: {'Fn::Equals': [{Ref: Env}, prod]}\n  IsDev: {'Fn::Not': [IsProd]}\n"
            "  Both: {'Fn::And': [IsProd, {'Fn::Equals': [a, a]}]}\n"
            "  Any: {'Fn::Or': [IsDev, IsProd]}\n"
            "Resources:\n  P: {Type: OS::Heat::None, Condition: IsProd}\n"
            "  D: {Type: OS::Heat::None, Condition: IsDev}\n"
            "Outputs:\n  W: {Value: {'Fn::If': [IsDev, dev, prod]}}\n"
            "  B: {Value: {'Fn::If': [Both, y, n]}}\n  A: {Value: {'Fn::If': [Any, y, n]}}\n"
            "  DOut: {Value: d, Condition: IsDev}\n")
    stack = bind(parse(text), {}, None, IDENT, nesting=HEAT_NESTING)
    assert list(stack.resources) == ["P"]
    assert outputs(text) == {"W": "prod", "B": "y", "A": "y", "DOut": None}
    assert outputs(text, {"Env": "dev"})["W"] == "dev"


def test_aws_condition_reference_form_is_rejected() -> None:
    exc = fails(AWS + "Conditions:\n  A: true\n  B: {'Fn::Not': [{Condition: A}]}\n"
                "Resources:\n  R: {Type: OS::Heat::None, Condition: B}\n")
    assert "Invalid condition \"{'Condition': 'A'}\"" in exc.message


def test_not_takes_one_item_list() -> None:
    exc = fails(AWS + "Conditions:\n  B: {'Fn::Not': true}\nResources: {}\n")
    assert "[condition]" in exc.message


def test_heat_2012_has_no_conditions_or_if() -> None:
    assert "The template section is invalid: Conditions" in \
        fails(HEAT + "Conditions: {}\nResources: {}\n").message
    assert value({"Fn::If": ["c", 1, 2]}, HEAT) == {"Fn::If": ["c", 1, 2]}
    assert '"Condition" is not a valid keyword' in \
        fails(HEAT + "Resources:\n  R: {Type: OS::Heat::None, Condition: c}\n").message


@pytest.mark.parametrize("spec,given,why", [
    ("{Type: String, MinLength: 3, MaxLength: 5}", "ab",
     "length (2) is out of range (min: 3, max: 5)"),
    ("{Type: Number, MinValue: 1, MaxValue: '5'}", "9", "9 is out of range (min: 1, max: 5)"),
    ("{Type: String, AllowedValues: [a, b]}", "c", '"c" is not an allowed value'),
    ("{Type: String, AllowedPattern: '[a-z]+', ConstraintDescription: lower}", "AB", "lower"),
    ("{Type: Boolean}", "maybe", "Unrecognized value 'maybe'"),
])
def test_parameter_constraints(spec: str, given: str, why: str) -> None:
    exc = fails(AWS + f"Parameters:\n  P: {spec}\nResources: {{}}\n", {"P": given})
    assert why in exc.message and "Parameter 'P' is invalid" in exc.message


def test_parameter_types_and_show() -> None:
    text = (AWS + "Parameters:\n  S: {Type: String, Default: s}\n"
            "  N: {Type: Number, Default: '4'}\n  L: {Type: CommaDelimitedList, Default: 'a,b'}\n"
            "  J: {Type: Json, Default: {k: v}}\n  B: {Type: Boolean, Default: 'true'}\n"
            "  H: {Type: String, NoEcho: 'TRUE', Default: secret}\n"
            "Resources: {}\nOutputs:\n  N: {Value: {Ref: N}}\n  L: {Value: {Ref: L}}\n"
            "  J: {Value: {Ref: J}}\n  B: {Value: {Ref: B}}\n")
    assert outputs(text) == {"N": 4, "L": ["a", "b"], "J": {"k": "v"}, "B": True}
    shown = bind(parse(text), {}, None, IDENT, nesting=HEAT_NESTING).parameters_for_show()
    assert shown["H"] == "******" and shown["S"] == "s" and shown["L"] == "a,b"
    assert set(shown) >= {"AWS::StackName", "AWS::Region", "AWS::StackId"}
    assert not any(k.startswith("OS::") for k in shown)


@pytest.mark.parametrize("spec,message", [
    ("{Type: Text}", "Invalid type (Text)"),
    ("{Default: x}", "Missing parameter type for parameter: P"),
    ("{Type: String, Bogus: 1}", "Invalid key 'Bogus' for parameter (P)"),
    ("{Type: String, AllowedValues: [a], Default: z}", "Invalid default"),
])
def test_parameter_schema_errors(spec: str, message: str) -> None:
    exc = fails(AWS + f"Parameters:\n  P: {spec}\nResources: {{}}\n")
    assert message in exc.message
    assert exc.heat_type == "InvalidSchemaError"


@pytest.mark.parametrize("resource,message", [
    ("{Properties: {}}", 'Resource R is missing "Type"'),
    ("{Type: OS::Heat::None, Bogus: 1}", '"Bogus" is not a valid keyword'),
    ("{Type: OS::Heat::None, DeletionPolicy: Keep}", 'Invalid deletion policy "Keep"'),
    ("{Type: OS::Heat::None, DependsOn: [1]}", "DependsOn type must be list or string"),
    ("{Type: OS::Heat::None, DependsOn: Ghost}", 'reference "Ghost"'),
    ("{Type: OS::Heat::None, Properties: [1]}", "Properties type must be object"),
])
def test_resource_structure(resource: str, message: str) -> None:
    assert message in fails(AWS + f"Resources:\n  R: {resource}\n").message


def test_resource_keys_reach_the_definition() -> None:
    text = (AWS + "Resources:\n  A: {Type: OS::Heat::None}\n"
            "  B:\n    Type: OS::Heat::None\n    DependsOn: A\n    DeletionPolicy: Retain\n"
            "    Metadata: {m: 1}\n    UpdatePolicy: {u: 2}\n    Description: d\n"
            "    Properties: {p: {Ref: A}}\n")
    stack = bind(parse(text), {}, None, IDENT, nesting=HEAT_NESTING)
    b = stack.resources["B"]
    assert (b.depends_on, b.deletion_policy, b.metadata, b.update_policy, b.description) == \
        (["A"], "Retain", {"m": 1}, {"u": 2}, "d")
    assert stack.dependencies["B"] == frozenset({"A"})
    assert stack.resolve_properties("B", DictContext(refs={"A": "a-id"})) == {"p": "a-id"}


def test_template_shape() -> None:
    tmpl = parse("{\"AWSTemplateFormatVersion\": \"2010-09-09\", \"Resources\": {}}")
    assert isinstance(tmpl, CfnTemplate)
    assert tmpl.version == ("AWSTemplateFormatVersion", "2010-09-09")
    assert tmpl.description == "No description"
    assert "should be one of: 2010-09-09" in fails(
        "AWSTemplateFormatVersion: '2011-01-01'\nResources: {}\n").message
    assert "Ambiguous versions" in fails(AWS + HEAT + "Resources: {}\n").message
    assert "Each output definition must contain a Value key" in fails(
        AWS + "Resources: {}\nOutputs:\n  O: {Description: x}\n").message


def test_duplicate_keys_last_wins_and_warns() -> None:
    text = AWS + "Resources: {}\nOutputs:\n  O: {Value: first}\n  O: {Value: second}\n"
    tmpl = parse(text)
    assert any("'O'" in w and "line 5" in w for w in tmpl.warnings)
    assert outputs(text) == {"O": "second"}
    assert duplicate_keys("a: 1\nb: {c: 1, c: 2}\n") == [("c", 2)]
    assert duplicate_keys("{not yaml") == []


def test_errors_use_cfn_names_and_lines() -> None:
    from tests.unit.templates.conftest import heat_type_schema
    text = AWS + "Resources:\n  R:\n    Type: OS::Heat::RandomString\n" \
                 "    Properties: {length: abc}\n"
    with pytest.raises(errors.ValidationError) as info:
        bind(parse(text), {}, None, IDENT, heat_type_schema, nesting=HEAT_NESTING)
    exc = info.value
    assert exc.message.startswith("Property error: Resources.R.Properties.length: ")
    assert exc.path == ("Resources", "R", "Properties", "length") and exc.line == 5
    exc2 = fails(AWS + "Resources:\n  V: {Type: OS::Heat::None, Properties: {v: {Ref: Nope}}}\n")
    assert exc2.message.startswith("Property error: Resources.V.Properties.v: ")
    assert exc2.heat_type == "StackValidationFailed"
