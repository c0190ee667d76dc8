"""OS::Heat::StructuredDeployment (Heat's ``heat/engine/resources/openstack/heat/
structured_config.py``): a software deployment whose derived config is its StructuredConfig's
map with each ``{get_input: name}`` replaced by the input's value.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types import schema as s
from app.resource_types.base import Resource
from app.resource_types.heat_deployment import DEPLOYMENT_PROPERTIES, SoftwareDeployment


class StructuredDeployment(SoftwareDeployment):
    """OS::Heat::StructuredDeployment: ``{get_input: name}`` (``input_key``) in the config
    map replaced by the input's value (``STRICT``: a missing one is an error)."""

    type_name = "OS::Heat::StructuredDeployment"
    properties_schema: ClassVar[dict[str, Any]] = {
        **DEPLOYMENT_PROPERTIES,
        "input_key": s.prop("string", "Name of key to use for substituting inputs during "
                            "deployment.", default="get_input"),
        "input_values_validate": s.prop(
            "string", "Perform a check on the input values passed to verify that each "
            "required input has a corresponding value. When the property is set to STRICT "
            "and no value is passed, an exception is raised.", default="LAX",
            constraints=[s.allowed_values(["LAX", "STRICT"])]),
    }

    def empty_config(self) -> Any:
        return {}

    def derived_config(self, action: str, source: Mapping[str, Any],
                       inputs: list[dict[str, Any]]) -> Any:
        values = {i["name"]: i.get("value") for i in inputs}
        return parse(values, str(self.get_property("input_key")), source.get("config"),
                     str(self.get_property("input_values_validate")))


def parse(inputs: Mapping[str, Any], input_key: str, snippet: Any, check: str = "LAX") -> Any:
    """Heat's ``StructuredDeployment.parse``: every ``{input_key: name}`` replaced by
    ``inputs[name]``. :raises errors.ValidationError: STRICT and no such input (Heat's
    ``UserParameterMissing``)."""
    if isinstance(snippet, Mapping):
        if len(snippet) == 1:
            fn, arg = next(iter(snippet.items()))
            if fn == input_key and isinstance(arg, str):
                if check == "STRICT" and arg not in inputs:
                    raise errors.ValidationError(f"The Parameter ({arg}) was not provided.",
                                                 heat_type="UserParameterMissing")
                return inputs.get(arg)
        return {k: parse(inputs, input_key, v, check) for k, v in snippet.items()}
    if isinstance(snippet, list):
        return [parse(inputs, input_key, v, check) for v in snippet]
    return snippet


def resource_mapping() -> dict[str, type[Resource]]:
    return {StructuredDeployment.type_name: StructuredDeployment}
