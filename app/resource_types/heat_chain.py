"""OS::Heat::ResourceChain: a nested stack of one resource per entry of ``resources``.

As Heat's ``heat/engine/resources/openstack/heat/resource_chain.py``: members "0", "1", ... of
the listed types, all with ``resource_properties``, each depending on the one before unless
``concurrent``. The plugin declares the schema; the child stack is the engine's nested-stack
machinery (``app.convergence.nested.stacks``, its template from ``app.convergence.nested.groups``), and the
attributes (``refs``, ``attributes``, ``resource.<i>``, member attributes as lists) are read
from the child's outputs as a ResourceGroup's are.
"""
from __future__ import annotations

from typing import Any, ClassVar

from app.resource_types import schema as s
from app.resource_types.base import Resource


class ResourceChain(Resource):
    """OS::Heat::ResourceChain (schema as heat-reference/resource_types.json)."""

    type_name = "OS::Heat::ResourceChain"
    nested_kind = "resource_chain"
    nested_stack: ClassVar[bool] = True
    accepts_any_attributes = True  # member attributes as lists, resource.<i>
    support_status = s.support_status("6.0.0")
    properties_schema: ClassVar[dict[str, Any]] = {
        "resources": s.prop("list", "The list of resource types to create. This list may "
                            "contain type names or aliases defined in the resource registry.",
                            required=True, update_allowed=True),
        "concurrent": s.prop("boolean", "If true, the resources in the chain will be created "
                             "concurrently.", default=False),
        "resource_properties": s.prop("map", "Properties to pass to each resource being "
                                      "created in the chain."),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "refs": s.attr("A list of resource IDs for the resources in the chain.", "list"),
        "attributes": s.attr("A map of resource names to the specified attribute of each "
                             "individual resource.", "map"),
    }

    def get_reference_id(self) -> str:
        return str(self.resource_id or self.name)

    def resolve_attribute(self, name: str) -> Any:  # computed by the engine from the members
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {ResourceChain.type_name: ResourceChain}
