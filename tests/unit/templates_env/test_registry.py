"""The resource registry (Heat's ResourceRegistry): exact aliases, OS::Heat::None, wildcards
and renames, per-resource entries, template files, Heat's matching order and its recording
side effect, hooks, the child registry; and template resources through instantiate()."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors
from app.templates import Environment, Nesting, StackIdentity, parse
from app.templates.registry import Registry
from tests.unit.templates.conftest import DictContext, heat_type_schema
from tests.unit.templates.nesting import HEAT_NESTING, bind

KNOWN = {"OS::Heat::Value", "OS::Heat::None", "OS::Nova::Server", "OS::Neutron::Net",
         "OS::Neutron::Port", "OS::Heat::RandomString"}


def resolve(registry: dict[str, Any], type_name: str, name: str | None = "r",
            known: set[str] | None = KNOWN) -> tuple[str, str | None]:
    found = Registry.from_mapping(registry).resolve(
        type_name, name, known=(known.__contains__ if known is not None else None))
    return found.effective_type, found.template


@pytest.mark.parametrize("registry,type_name,name,expected", [
    ({}, "OS::Heat::Value", "r", ("OS::Heat::Value", None)),
    ({"My::T": "OS::Heat::Value"}, "My::T", "r", ("OS::Heat::Value", None)),
    ({"OS::Nova::Server": "OS::Heat::None"}, "OS::Nova::Server", "r", ("OS::Heat::None", None)),
    ({"A::T": "B::T", "B::T": "OS::Heat::Value"}, "A::T", "r", ("OS::Heat::Value", None)),
    ({"OS::Neutron::*": "OS::Heat::None"}, "OS::Neutron::Port", "r", ("OS::Heat::None", None)),
    ({"OS::Networking::*": "OS::Neutron::*"}, "OS::Networking::Net", "r",
     ("OS::Neutron::Net", None)),
    # a wildcard whose value is the type itself does not apply to it (many-to-one)
    ({"OS::Heat::*": "OS::Heat::None"}, "OS::Heat::None", "r", ("OS::Heat::None", None)),
    ({"My::T": "OS::Heat::Value", "resources": {"b": {"My::T": "OS::Heat::None"}}},
     "My::T", "b", ("OS::Heat::None", None)),
    ({"My::T": "OS::Heat::Value", "resources": {"b": {"My::T": "OS::Heat::None"}}},
     "My::T", "a", ("OS::Heat::Value", None)),
    ({"My::T": "child.yaml"}, "My::T", "r", ("My::T", "child.yaml")),
    ({"My::T": "file:///opt/t/child.template"}, "My::T", "r",
     ("My::T", "file:///opt/t/child.template")),
    ({}, "child.yaml", "r", ("child.yaml", "child.yaml")),
    ({"A::T": "My::T", "My::T": "c.yaml"}, "A::T", "r", ("A::T", "c.yaml")),
    ({"resources": {"r": {"OS::Nova::Server": "srv.yaml"}}}, "OS::Nova::Server", "r",
     ("OS::Nova::Server", "srv.yaml")),
    # Heat's order: paths compared as text, so "OS::*" sorts before "OS::Nova::Server"
    ({"OS::Nova::Server": "OS::Heat::Value", "OS::*": "OS::Heat::None"}, "OS::Nova::Server",
     "r", ("OS::Heat::None", None)),
    # a target that does not exist is skipped for the next candidate
    ({"OS::Nova::Server": "OS::Nope::X", "OS::Nova::*": "OS::Heat::None"}, "OS::Nova::Server",
     "r", ("OS::Heat::None", None)),
    # null removes an entry loaded before it (a wildcard null all that match)
    ({"OS::Nova::Server": "OS::Heat::None", "OS::Nova::*": None}, "OS::Nova::Server", "r",
     ("OS::Nova::Server", None)),
])
def test_resolution(registry: dict[str, Any], type_name: str, name: str,
                    expected: tuple[str, str | None]) -> None:
    assert resolve(registry, type_name, name) == expected


def test_unknown_types_name_the_type_as_written() -> None:
    with pytest.raises(errors.ValidationError) as info:
        resolve({"My::T": "OS::Nope::X"}, "My::T")
    assert info.value.message == "The Resource Type (My::T) could not be found."
    with pytest.raises(errors.ValidationError):
        resolve({"A::T": "B::T", "B::T": "A::T"}, "A::T")
    # without a known-type oracle, anything not in the registry is taken as built-in
    assert resolve({"My::T": "OS::Nope::X"}, "My::T", known=None) == ("OS::Nope::X", None)


def test_recording_side_effect() -> None:
    reg = Registry.from_mapping({"My::T": "OS::Heat::Value",
                                 "resources": {"b": {"My::T": "OS::Heat::None"}}})
    known = KNOWN.__contains__
    assert reg.resolve("My::T", "a", known=known, record=True).effective_type == \
        "OS::Heat::Value"
    assert reg.resolve("My::T", "b", known=known, record=True).effective_type == \
        "OS::Heat::None"
    # Heat recorded b's mapping as the top-level entry: a now resolves to OS::Heat::None
    assert reg.resolve("My::T", "a", known=known).effective_type == "OS::Heat::None"


def test_environment_resolve_type() -> None:
    env = Environment.from_mapping({"resource_registry": {"Acme::*": "OS::Heat::None",
                                                          "My::T": "t.yaml"}})
    assert env.resolve_type("x", "Acme::Box") == ("OS::Heat::None", None)
    assert env.resolve_type("0", "My::T") == ("My::T", "t.yaml")
    assert env.resolve_type(None, "OS::Heat::Value") == ("OS::Heat::Value", None)


def test_hooks_and_restricted_actions() -> None:
    reg = Registry.from_mapping({"resources": {
        "web_*": {"hooks": ["pre-create", "pre-update"]},
        "db": {"hooks": "pre-delete", "restricted_actions": "replace"}}})
    assert reg.hooks_for("web_1") == {"pre-create", "pre-update"}
    assert reg.hooks_for("db") == {"pre-delete"}
    assert reg.restricted_actions_for("db") == {"replace"}
    assert reg.hooks_for("other") == set()
    for bad in ({"hooks": "pre-nothing"}, {"restricted_actions": ["delete"]}):
        with pytest.raises(errors.BadRequest):
            Registry.from_mapping({"resources": {"r": bad}})
    with pytest.raises(errors.BadRequest):
        Registry.from_mapping({"My::T": 3})


def test_child_mapping() -> None:
    reg = Registry.from_mapping({"My::T": "t.yaml", "X::Y": "OS::Heat::None", "resources": {
        "svc": {"inner": {"hooks": "pre-create"}}, "s*": {"deep": {"OS::Heat::Value":
                                                                    "OS::Heat::None"}},
        "other": {"z": {"hooks": "pre-create"}}}})
    child = reg.child_mapping("svc", "t.yaml", "My::T")
    assert child == {"X::Y": "OS::Heat::None", "resources": {
        "inner": {"hooks": "pre-create"}, "deep": {"OS::Heat::Value": "OS::Heat::None"}}}


CHILD = ("heat_template_version: 2018-08-31\nparameters:\n  name: {type: string}\n"
         "  port: {type: number, default: 80}\n  color: {type: string, default: grey}\n"
         "outputs:\n  url: {value: {get_param: name}}\n")


def instantiate(text: str, registry: dict[str, Any] | None = None,
                files: dict[str, str] | None = None, nesting: Nesting = HEAT_NESTING,
                **env: Any) -> Any:
    environment = Environment.from_mapping({"resource_registry": registry or {}, **env})
    return bind(parse(text, files=files), {}, environment, StackIdentity("s"),
                heat_type_schema, nesting=nesting)


def test_template_resource_contract() -> None:
    text = ("heat_template_version: 2018-08-31\nresources:\n"
            "  svc: {type: Stoker::Svc, properties: {name: web}, metadata: {m: 1}}\n"
            "  plain: {type: Alias::V, properties: {value: 1}}\n"
            "  direct: {type: svc.yaml, properties: {name: x}}\n"
            "outputs:\n  u: {value: {get_attr: [svc, url]}}\n")
    stack = instantiate(text, {"Stoker::Svc": "svc.yaml", "Alias::V": "OS::Heat::Value",
                               "resources": {"svc": {"x": {"hooks": "pre-create"}}}},
                        {"svc.yaml": CHILD}, parameter_defaults={"color": "teal"})
    svc, plain, direct = (stack.resources[n] for n in ("svc", "plain", "direct"))
    assert (svc.type, svc.template, svc.implementation) == \
        ("Stoker::Svc", "svc.yaml", "Stoker::Svc")
    assert (plain.type, plain.template, plain.implementation) == \
        ("Alias::V", None, "OS::Heat::Value")
    assert (direct.type, direct.template) == ("svc.yaml", "svc.yaml")
    assert stack.resolve_properties("svc", DictContext()) == {"name": "web"}
    assert stack.type_schema_of("svc")["properties"]["port"]["required"] is False
    child = stack.nested_environment("svc")
    assert child["parameter_defaults"] == {"color": "teal"}
    assert child["parameters"] == {}
    assert child["resource_registry"] == {"Alias::V": "OS::Heat::Value",
                                          "resources": {"x": {"hooks": "pre-create"}}}
    assert stack.nested_environment("direct")["resource_registry"]["Stoker::Svc"] == "svc.yaml"


@pytest.mark.parametrize("props,message", [
    ("{bogus: 1, name: x}", "Property error: resources.svc.properties: Unknown Property bogus"),
    ("{}", "Property error: resources.svc.properties: Property name not assigned"),
    ("{name: x, port: abc}", "resources.svc.properties.port"),
])
def test_template_resource_properties(props: str, message: str) -> None:
    text = f"heat_template_version: 2018-08-31\nresources:\n  svc: {{type: c.yaml, " \
           f"properties: {props}}}\n"
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, files={"c.yaml": CHILD})
    assert message in info.value.message


def test_provider_template_errors() -> None:
    text = "heat_template_version: 2018-08-31\nresources:\n  a: {type: My::T}\n"
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, {"My::T": "missing.yaml"})
    assert info.value.message == \
        'Could not fetch remote template "missing.yaml": Invalid URL scheme '
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, {"My::T": "https://example.org/t.yaml"})
    assert "Invalid URL scheme https" in info.value.message
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, {"My::T": "bad.yaml"}, {"bad.yaml": "just text"})
    assert "bad.yaml" in info.value.message
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, {"My::T": "OS::Nope::X"})
    assert info.value.message == "The Resource Type (My::T) could not be found."
    assert info.value.path == ("resources", "a", "type")


def test_none_disables_and_accepts_anything() -> None:
    text = ("heat_template_version: 2018-08-31\nresources:\n"
            "  a: {type: OS::Nova::Server, properties: {anything: goes}}\n"
            "outputs:\n  o: {value: {get_attr: [a, whatever]}}\n")
    stack = instantiate(text, {"OS::Nova::*": "OS::Heat::None"})
    assert stack.resources["a"].implementation == "OS::Heat::None"


def test_cfn_provider_template() -> None:
    child = ('{"AWSTemplateFormatVersion": "2010-09-09", "Parameters": {"N": {"Type": '
             '"Number"}}, "Resources": {}, "Outputs": {"O": {"Value": {"Ref": "N"}}}}')
    text = "heat_template_version: 2018-08-31\nresources:\n  a: {type: c.template, " \
           "properties: {N: 3}}\n"
    stack = instantiate(text, files={"c.template": child})
    assert stack.resources["a"].template == "c.template"
    assert stack.type_schema_of("a")["properties"]["N"]["type"] == "number"


def test_parameter_defaults_satisfy_required_provider_parameters() -> None:
    text = "heat_template_version: 2018-08-31\nresources:\n  svc: {type: c.yaml}\n"
    with pytest.raises(errors.ValidationError):
        instantiate(text, files={"c.yaml": CHILD})
    stack = instantiate(text, files={"c.yaml": CHILD}, parameter_defaults={"name": "pd"})
    assert stack.type_schema_of("svc")["properties"]["name"]["required"] is False


def test_provider_template_is_validated_as_a_child_stack() -> None:
    text = "heat_template_version: 2018-08-31\nresources:\n  svc: {type: c.yaml}\n"
    bad_child = ("heat_template_version: 2018-08-31\nresources:\n"
                 "  x: {type: OS::Heat::RandomString, properties: {bogus: 1}}\n")
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, files={"c.yaml": bad_child})
    assert info.value.message == \
        "Property error: resources.svc<c.yaml>.resources.x.properties: Unknown Property bogus"
    # the child sees the parent's registry and parameter_defaults
    child = ("heat_template_version: 2018-08-31\nparameters: {p: {type: string, default: d}}\n"
             "resources:\n  x: {type: My::Alias}\n")
    stack = instantiate(text, {"My::Alias": "OS::Heat::None"}, {"c.yaml": child})
    assert stack.resources["svc"].template == "c.yaml"
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, files={"c.yaml": child})
    assert "resources.svc<c.yaml>" in info.value.message and "My::Alias" in info.value.message
    loop = "heat_template_version: 2018-08-31\nresources:\n  again: {type: c.yaml}\n"
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, files={"c.yaml": loop})
    assert info.value.message.startswith("RequestLimitExceeded: resources.svc<c.yaml>.")
    assert info.value.message.endswith(": Request limit exceeded: Recursion depth exceeds 5.")


def test_nesting_depth_is_the_callers_setting() -> None:
    """Heat's ``max_nested_stack_depth`` comes from the caller, and a stack already nested
    counts: StackResource._parse_nested_stack refuses a child when ``nested_depth >= max``."""
    chain = {"c1.yaml": "heat_template_version: 2018-08-31\nresources:\n  n: {type: c2.yaml}\n",
             "c2.yaml": "heat_template_version: 2018-08-31\nresources:\n  n: {type: c3.yaml}\n",
             "c3.yaml": "heat_template_version: 2018-08-31\nresources: {}\n"}
    text = "heat_template_version: 2018-08-31\nresources:\n  top: {type: c1.yaml}\n"
    # three levels of children: a limit of 3 allows them, a limit of 2 does not
    instantiate(text, files=chain, nesting=Nesting(max_depth=3))
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, files=chain, nesting=Nesting(max_depth=2))
    assert info.value.message == ("RequestLimitExceeded: resources.top<c1.yaml>.resources."
                                  "n<c2.yaml>.resources.n<c3.yaml>: Request limit exceeded: "
                                  "Recursion depth exceeds 2.")
    # the same chain under a stack that is itself nested two levels deep
    with pytest.raises(errors.ValidationError) as info:
        instantiate(text, files=chain, nesting=Nesting(max_depth=3, depth=2))
    assert info.value.message == ("RequestLimitExceeded: resources.top<c1.yaml>.resources."
                                  "n<c2.yaml>: Request limit exceeded: Recursion depth "
                                  "exceeds 3.")
    instantiate(text, files=chain, nesting=Nesting(max_depth=5, depth=2))


@pytest.mark.parametrize("registry,type_name,expected", [
    # Heat's etc/heat/environment.d/default.yaml sits below every stack's registry
    ({}, "OS::Ceilometer::Alarm", ("OS::Aodh::Alarm", None)),
    ({}, "OS::Metering::Alarm", ("OS::Aodh::Alarm", None)),
    ({}, "OS::Quantum::Net", ("OS::Neutron::Net", None)),
    # the stack's own entry wins over the global one
    ({"OS::Ceilometer::Alarm": "OS::Heat::None"}, "OS::Ceilometer::Alarm",
     ("OS::Heat::None", None)),
])
def test_heats_global_environment_is_below_the_stacks(registry: dict[str, Any], type_name: str,
                                                      expected: tuple[str, None]) -> None:
    known = KNOWN | {"OS::Aodh::Alarm"}
    assert resolve(registry, type_name, known=known) == expected
    assert resolve(registry, type_name, known=None) == expected


def test_a_global_mapping_to_a_missing_type_is_heats_not_found() -> None:
    with pytest.raises(errors.ValidationError, match=r"The Resource Type \(OS::Quantum::Nope\)"):
        resolve({}, "OS::Quantum::Nope")


def test_a_resources_own_hooks_in_its_child_registry_match_nothing() -> None:
    """Hooks given per resource (``resources: {rg: {hooks: pre-update}}``) reach a nested stack
    of ``rg`` as ``resources: {hooks: pre-update}`` (Heat's ``remove_resources_except``): Heat
    keeps that item, which names no resource, so nothing inside pauses and the load succeeds."""
    parent = Registry.from_mapping({"resources": {"rg": {"hooks": "pre-update"}}})
    assert parent.hooks_for("rg") == {"pre-update"}
    child = Registry.from_mapping(parent.child_mapping("rg"))
    assert child.raw["resources"] == {"hooks": "pre-update"}
    assert child.hooks_for("0") == set() and child.hooks_for("hooks") == set()
