"""Environment merging (Heat's heat-api + environment_util): order, precedence, merge
strategies and their quirks, sections, errors."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates.env_merge import merge_request, param_types_of, parse_environment
from tests.unit.templates.nesting import HEAT_NESTING, bind

TYPES = {"s": "string", "l": "comma_delimited_list", "j": "json", "n": "number",
         "b": "boolean", "a": "string"}


def merged(*envs: str, body: Any = None, params: dict[str, Any] | None = None,
           types: dict[str, str] | None = TYPES) -> Any:
    files = {f"e{i}.yaml": e for i, e in enumerate(envs)}
    return merge_request(body, params, list(files), files, types)


@pytest.mark.parametrize("envs,body,params,expected", [
    # later files win
    (("parameters: {a: one}", "parameters: {a: two}"), None, None, {"a": "two"}),
    # request parameters beat the body environment's, files beat both
    ((), "parameters: {a: body}", {"a": "request"}, {"a": "request"}),
    (("parameters: {a: file}",), "parameters: {a: body}", {"a": "request"}, {"a": "file"}),
    # an undeclared name in a later file is dropped (Heat only merges declared names) ...
    (("parameters: {a: x}", "parameters: {zzz: 1}"), None, None, {"a": "x"}),
    # ... but the first section is taken whole (so it reaches the template: rejected there)
    (("parameters: {zzz: 1}",), None, None, {"zzz": 1}),
    # null values are skipped
    (("parameters: {a: x}", "parameters: {a: null}"), None, None, {"a": "x"}),
])
def test_order_and_precedence(envs: tuple[str, ...], body: Any, params: Any,
                              expected: dict[str, Any]) -> None:
    assert merged(*envs, body=body, params=params).parameters == expected


@pytest.mark.parametrize("first,second,expected", [
    ("parameter_merge_strategies: {s: merge}\nparameters: {s: ab}", "parameter_merge_strategies: {s: merge}\nparameters: {s: cd}",
     {"s": "abcd"}),
    ("parameter_merge_strategies: {l: merge}\nparameters: {l: 'a,b'}", "parameter_merge_strategies: {l: merge}\nparameters: {l: c}",
     {"l": "a,b,c"}),
    ("parameter_merge_strategies: {l: merge}\nparameters: {l: [a]}", "parameter_merge_strategies: {l: merge}\nparameters: {l: [b]}",
     {"l": ["a", "b"]}),
    ("parameter_merge_strategies: {j: merge}\nparameters: {j: {x: {p: 1}, k: [1]}}",
     "parameter_merge_strategies: {j: merge}\nparameters: {j: {x: {q: 2}, k: [2]}}",
     {"j": {"x": {"q": 2}, "k": [2]}}),
    # a strategy named only by a later file conflicts with the implicit overwrite
    # (see test_merge_errors_are_400); the first file declaring it is what counts
    ("parameter_merge_strategies: {j: deep_merge}\nparameters: {j: {x: {p: 1}, k: [1], t: a}}",
     "parameter_merge_strategies: {j: deep_merge}\nparameters: {j: {x: {q: 2}, k: [2], t: b}}",
     {"j": {"x": {"p": 1, "q": 2}, "k": [1, 2], "t": "ab"}}),
    ("parameter_merge_strategies: {j: merge}\nparameters: {j: '{\"x\": 1}'}",
     "parameter_merge_strategies: {j: merge}\nparameters: {j: '{\"y\": 2}'}",
     {"j": {"x": 1, "y": 2}}),
    # numbers given as text are added as text (Heat's quirk)
    ("parameter_merge_strategies: {n: merge}\nparameters: {n: '1'}", "parameter_merge_strategies: {n: merge}\nparameters: {n: '2'}",
     {"n": "12"}),
    # first strategy sticks: implicit overwrite, a later default: merge does not change it
    ("parameters: {s: ab}", "parameter_merge_strategies: {default: merge}\nparameters: {s: cd}",
     {"s": "cd"}),
    # an unknown strategy is the file's default
    ("parameters: {s: ab}",
     "parameter_merge_strategies: {s: bogus, default: overwrite}\nparameters: {s: cd}",
     {"s": "cd"}),
])
def test_strategies(first: str, second: str, expected: dict[str, Any]) -> None:
    assert merged(first, second).parameters == expected


def test_both_default_merge() -> None:
    env = merged("parameter_merge_strategies: {default: merge}\nparameters: {l: 'a,b', s: x}",
                 "parameter_merge_strategies: {default: merge}\nparameters: {l: c, s: y}")
    assert env.parameters == {"l": "a,b,c", "s": "xy"}


def test_parameter_defaults_merge_too() -> None:
    env = merged("parameter_defaults: {s: a, other: 1}",
                 "parameter_merge_strategies: {default: merge}\nparameter_defaults: {s: b}")
    assert env.parameter_defaults == {"s": "b", "other": 1}  # implicit overwrite sticks
    env = merged("parameter_merge_strategies: {default: merge}\nparameter_defaults: {s: a}",
                 "parameter_merge_strategies: {default: merge}\nparameter_defaults: {s: b}")
    assert env.parameter_defaults == {"s": "ab"}


@pytest.mark.parametrize("first,second,heat_type,text", [
    ("parameter_merge_strategies: {s: merge}\nparameters: {s: a}",
     "parameter_merge_strategies: {s: overwrite}\nparameters: {s: b}",
     "ConflictingMergeStrategyForParam",
     "Conflicting merge strategy 'overwrite' for parameter 's' in file 'e1.yaml'."),
    ("parameters: {s: a}", "parameter_merge_strategies: {s: merge}\nparameters: {s: b}",
     "ConflictingMergeStrategyForParam",
     "Conflicting merge strategy 'merge' for parameter 's' in file 'e1.yaml'."),
    ("parameter_merge_strategies: {default: merge}\nparameters: {n: 1}",
     "parameter_merge_strategies: {default: merge}\nparameters: {n: 2}",
     "ValueError", "Invalid parameter in environment ."),
    ("parameter_merge_strategies: {b: merge}\nparameters: {b: 'true'}",
     "parameter_merge_strategies: {b: merge}\nparameters: {b: 'false'}",
     "InvalidMergeStrategyForParam", "Invalid merge strategy 'merge' for parameter 'b'."),
])
def test_merge_errors_are_400(first: str, second: str, heat_type: str, text: str) -> None:
    with pytest.raises(errors.BadRequest) as info:
        merged(first, second)
    assert (info.value.heat_type, info.value.http_status, info.value.message) == \
        (heat_type, 400, text)


def test_other_sections() -> None:
    env = merged("resource_registry: {A: OS::Heat::None, resources: {r: {X: Y}}}\n"
                 "event_sinks: [{type: zaqar-queue, target: q}]\nencrypted_param_names: [p]",
                 "resource_registry: {B: OS::Heat::Value, A: null, resources: {s: {X: Z}}}\n"
                 "event_sinks: [{type: zaqar-queue, target: r}]")
    # top-level registry keys replace (a later resources: replaces the earlier one whole)
    assert env.resource_registry == {"A": "OS::Heat::None", "B": "OS::Heat::Value",
                                     "resources": {"s": {"X": "Z"}}}
    assert [s["target"] for s in env.event_sinks] == ["q", "r"]
    assert env.encrypted_param_names == ["p"]


@pytest.mark.parametrize("text,message", [
    ("- a\n- b\n", "The environment is not a valid YAML mapping data type."),
    ("paramters: {a: 1}\n", 'environment has wrong section "paramters"'),
    ("parameters: [1]\n", 'environment section "parameters" must be a mapping'),
    ("a: [\n", "Error parsing e0.yaml"),
    ("resource_registry: {resources: {r: {hooks: nope}}}\n", 'Invalid hook type "nope"'),
])
def test_bad_environment(text: str, message: str) -> None:
    with pytest.raises(errors.BadRequest) as info:
        merged(text)
    assert message in info.value.message


def test_missing_file_and_body_environment_forms() -> None:
    with pytest.raises(errors.BadRequest) as info:
        merge_request(None, None, ["nope.yaml"], {}, TYPES)
    assert "File nope.yaml not found in files map." == info.value.message
    env = merge_request({"parameters": {"a": "m"}}, None, None, None)
    assert env.parameters == {"a": "m"}
    assert parse_environment(None) == {}
    assert merge_request(None, None, None, None).to_mapping()["resource_registry"] == \
        {"resources": {}}


def test_param_types_of_include_nested_templates() -> None:
    files = {"c.yaml": "heat_template_version: 2018-08-31\nparameters: {x: {type: json}}\n",
             "env.yaml": "parameters: {a: 1}\n",
             "c.template": "{\"AWSTemplateFormatVersion\": \"2010-09-09\", "
                           "\"Parameters\": {\"y\": {\"Type\": \"CommaDelimitedList\"}}}"}
    tmpl = "heat_template_version: 2018-08-31\nparameters: {x: {type: string}}\n"
    assert param_types_of(tmpl, files) == {"x": "string", "y": "comma_delimited_list"}


@pytest.mark.parametrize("envs,params,expected", [
    # environment parameters > parameter_defaults > template default
    (("parameters: {a: p}\nparameter_defaults: {a: d, c: d}",), {}, {"a": "p", "c": "d"}),
    # request parameters lose to an environment file
    (("parameters: {a: file}",), {"a": "req"}, {"a": "file", "c": "tmpl"}),
    # parameter_defaults for undeclared names are ignored
    (("parameter_defaults: {zzz: 1}",), {"a": "req"}, {"a": "req", "c": "tmpl"}),
])
def test_precedence_reaches_the_stack(envs: tuple[str, ...], params: dict[str, Any],
                                      expected: dict[str, Any]) -> None:
    text = ("heat_template_version: 2018-08-31\nparameters:\n  a: {type: string, default: t}\n"
            "  c: {type: string, default: tmpl}\n")
    files = {f"e{i}.yaml": e for i, e in enumerate(envs)}
    env = merge_request(None, params, list(files), files, param_types_of(text, files))
    stack = bind(parse(text), {}, env, StackIdentity("s"), nesting=HEAT_NESTING)
    shown = {k: v for k, v in stack.parameters_for_show().items() if not k.startswith("OS::")}
    assert shown == expected


def test_undeclared_environment_parameter_is_rejected() -> None:
    text = "heat_template_version: 2018-08-31\nparameters: {a: {type: string, default: t}}\n"
    env = merged("parameters: {zzz: 1}", types=param_types_of(text))
    with pytest.raises(errors.ParameterError) as info:
        bind(parse(text), {}, env, StackIdentity("s"), nesting=HEAT_NESTING)
    assert info.value.heat_type == "UnknownUserParameter"
