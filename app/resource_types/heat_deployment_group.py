"""OS::Heat::SoftwareDeploymentGroup and OS::Heat::StructuredDeploymentGroup (Heat's
``SoftwareDeploymentGroup``, a ResourceGroup of one deployment per ``servers`` entry,
heat/engine/resources/openstack/heat/software_deployment.py and structured_config.py).

The plugins declare Heat's schemas; the engine's nested-stack machinery builds the member
stack (:func:`app.convergence.nested.groups.deployment_template`: member ``<name>`` is an
OS::Heat::SoftwareDeployment / StructuredDeployment with the group's properties and
``server: servers[<name>]``) and computes the attributes: ``deploy_stdouts``,
``deploy_stderrs``, ``deploy_status_codes`` map member names to the members' ``deploy_*``, and
any other name (a declared output) maps each member to that attribute. Heat's deprecated
``OS::Heat::SoftwareDeployments`` / ``StructuredDeployments`` are the same, HIDDEN.
"""
from __future__ import annotations

from typing import Any, ClassVar

from app.resource_types import schema as s
from app.resource_types.base import Resource
from app.resource_types.heat_deployment import DEPLOYMENT_PROPERTIES
from app.resource_types.heat_structured import StructuredDeployment

_SERVERS = s.prop("map", "A map of names and server IDs to apply configuration to. The name is "
                  "arbitrary and is used as the Heat resource name for the corresponding "
                  "deployment.", update_allowed=True, required=True)
_ATTRIBUTES = {
    "deploy_stdouts": s.attr("A map of Nova names and captured stdouts from the configuration "
                             "execution to each server.", "map"),
    "deploy_stderrs": s.attr("A map of Nova names and captured stderrs from the configuration "
                             "execution to each server.", "map"),
    "deploy_status_codes": s.attr("A map of Nova names and returned status code from the "
                                  "configuration execution.", "map"),
}


class SoftwareDeploymentGroup(Resource):
    """OS::Heat::SoftwareDeploymentGroup (see the module docstring)."""

    type_name = "OS::Heat::SoftwareDeploymentGroup"
    nested_kind = "deployment_group"
    support_status = s.support_status("5.0.0")
    accepts_any_attributes = True   # any member attribute, as a map (Heat's get_attribute)
    properties_schema: ClassVar[dict[str, Any]] = {
        "servers": _SERVERS,
        **{k: v for k, v in DEPLOYMENT_PROPERTIES.items() if k != "server"},
    }
    attributes_schema: ClassVar[dict[str, Any]] = dict(_ATTRIBUTES)

    def get_reference_id(self) -> str:
        return str(self.resource_id or self.name)

    def resolve_attribute(self, name: str) -> Any:  # computed by the engine from the members
        return None


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    """OS::Heat::StructuredDeploymentGroup: members are OS::Heat::StructuredDeployment."""

    type_name = "OS::Heat::StructuredDeploymentGroup"
    properties_schema: ClassVar[dict[str, Any]] = {
        "servers": _SERVERS,
        **{k: v for k, v in StructuredDeployment.properties_schema.items() if k != "server"},
    }


def _hidden(base: type[SoftwareDeploymentGroup], name: str) -> type[Resource]:
    """Heat's deprecated ``*Deployments`` name of ``base`` (HIDDEN since 7.0.0)."""
    return type(name.rsplit("::", 1)[1], (base,), {
        "type_name": name,
        "support_status": s.support_status(
            "7.0.0", "HIDDEN", f"Please use {base.type_name} instead.",
            previous_status=s.support_status("2014.2", "DEPRECATED"))})


SoftwareDeployments = _hidden(SoftwareDeploymentGroup, "OS::Heat::SoftwareDeployments")
StructuredDeployments = _hidden(StructuredDeploymentGroup, "OS::Heat::StructuredDeployments")


def hidden_resource_mapping() -> dict[str, type[Resource]]:
    """Heat's HIDDEN names, still usable in templates (app.resource_types.registry)."""
    return {"OS::Heat::SoftwareDeployments": SoftwareDeployments,
            "OS::Heat::StructuredDeployments": StructuredDeployments}


def resource_mapping() -> dict[str, type[Resource]]:
    return {SoftwareDeploymentGroup.type_name: SoftwareDeploymentGroup,
            StructuredDeploymentGroup.type_name: StructuredDeploymentGroup}
