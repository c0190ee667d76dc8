"""Cross-stack exports in the template layer: which names a template imports, the export
names of its outputs, import resolution, and which versions know the functions."""
from __future__ import annotations

from typing import Any

import pytest

from app import errors, templates
from app.templates import exports, versions
from app.templates.cfn import functions as cfn_functions

NESTING = templates.Nesting(max_depth=5)
IDENT = templates.StackIdentity(stack_name="net", stack_id="id-1", project_id="p1")


class Ctx:
    def get_resource(self, name: str) -> str:
        return f"{name}-id"

    def get_attr(self, name: str, attr: str, *path: Any) -> Any:
        return f"{name}.{attr}"

    def get_all_attrs(self, name: str) -> dict[str, Any]:
        return {}


def cfn(resources: dict[str, Any], outputs: dict[str, Any] | None = None) -> Any:
    return templates.parse({"AWSTemplateFormatVersion": "2010-09-09",
                            "Parameters": {"V": {"Type": "String", "Default": "v1"}},
                            "Resources": resources, "Outputs": outputs or {}})


def knob(value: Any) -> dict[str, Any]:
    return {"Type": "OS::Heat::TestResource", "Properties": {"value": value}}


def test_imported_names_are_collected_from_resources_and_outputs_once() -> None:
    tmpl = cfn({"a": knob({"Fn::ImportValue": "b-net"}),
                "b": knob({"Fn::Join": ["", [{"Fn::ImportValue": "a-net"}]]})},
               {"o": {"Value": {"Fn::ImportValue": "b-net"}}})
    assert exports.imported_names(tmpl) == ["a-net", "b-net"]


def test_an_import_resolves_to_the_bound_value_or_fails_with_awss_message() -> None:
    tmpl = cfn({"a": knob({"Fn::ImportValue": "net"})})
    definition = templates.instantiate(tmpl, identity=IDENT, nesting=NESTING)
    exports.bind_imports(definition, {})
    with pytest.raises(errors.ValidationError, match="No export named net found."):
        definition.resolve_properties("a", Ctx())
    exports.bind_imports(definition, {"net": "net-7"})
    assert definition.resolve_properties("a", Ctx()) == {"value": "net-7"}


def test_export_names_resolve_from_parameters_and_pseudo_parameters() -> None:
    tmpl = cfn({"a": knob("x")}, {
        "Id": {"Value": {"Ref": "a"},
               "Export": {"Name": {"Fn::Join": ["-", [{"Ref": "AWS::StackName"}, "id"]]}}},
        "V": {"Value": {"Ref": "V"}, "Export": {"Name": "plain"}},
        "None": {"Value": "n"}})
    definition = templates.instantiate(tmpl, identity=IDENT, nesting=NESTING)
    assert exports.export_names(definition) == {"Id": "net-id", "V": "plain"}
    assert definition.known_output("V") == "v1"
    assert definition.known_output("Id") is templates.UNKNOWN   # depends on a resource
    outputs = definition.resolve_outputs(Ctx())
    assert exports.export_values(exports.export_names(definition), outputs) == {
        "net-id": "a-id", "plain": "v1"}


@pytest.mark.parametrize("export, message", [
    ({"Name": {"Fn::GetAtt": ["a", "output"]}}, "known before any resource"),
    ({"Value": "x"}, "must be a map with one key, Name"),
    ("x", "must be a map with one key, Name"),
])
def test_bad_export_names_are_refused(export: Any, message: str) -> None:
    with pytest.raises(errors.ValidationError, match=message):
        tmpl = cfn({"a": knob("x")}, {"o": {"Value": "x", "Export": export}})
        exports.export_names(templates.instantiate(tmpl, identity=IDENT, nesting=NESTING))


def test_two_outputs_cannot_export_one_name() -> None:
    tmpl = cfn({"a": knob("x")}, {"o1": {"Value": 1, "Export": {"Name": "n"}},
                                  "o2": {"Value": 2, "Export": {"Name": "n"}}})
    with pytest.raises(errors.ValidationError, match="already used by another output"):
        exports.export_names(templates.instantiate(tmpl, identity=IDENT, nesting=NESTING))


def test_the_import_argument_is_a_literal_name() -> None:
    with pytest.raises(errors.ValidationError, match="must be the name of an export"):
        cfn({"a": knob({"Fn::ImportValue": {"Ref": "V"}})})


def test_only_stokers_hot_version_and_aws_cfn_know_the_functions() -> None:
    assert "import_value" in versions.hot_version(versions.STOKER_VERSION).functions
    assert "export" in versions.hot_version(versions.STOKER_VERSION).output_keys
    for date, version in versions.HOT_VERSIONS.items():
        assert "import_value" not in version.functions, date
        assert "export" not in version.output_keys, date
    assert "Fn::ImportValue" in cfn_functions.AWS_2010
    assert "Fn::ImportValue" not in cfn_functions.HEAT_2012


def test_a_heat_version_reads_import_value_as_plain_data() -> None:
    tmpl = templates.parse({"heat_template_version": "2021-04-16",
                            "resources": {"a": {"type": "OS::Heat::None",
                                                "properties": {"p": {"import_value": "n"}}}}})
    assert exports.imported_names(tmpl) == []
    assert tmpl.warnings == []
    hot = templates.parse({"heat_template_version": "2021-04-16", "resources": {},
                           "outputs": {"o": {"value": 1, "export": {"name": "n"}}}})
    assert hot.warnings == ["outputs.o: unknown keys ignored: export"]
