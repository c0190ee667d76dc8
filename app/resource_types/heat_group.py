"""OS::Heat::ResourceGroup: a nested stack of ``count`` copies of ``resource_def``.

The plugin declares Heat's schema; creating, polling and deleting the member stack is the
engine's nested-stack machinery (``app.convergence.nested.stacks``), as for template resources. The
group's attributes (``refs``, ``refs_map``, ``attributes``, ``resource.N``, member attributes as
lists, ``removed_rsrc_list``) are computed from the member stack by that machinery.

``removal_policies`` feed a name skiplist kept across updates (names are never reused;
``removal_policies_mode: update`` replaces it), and ``update_policy`` ``rolling_update`` /
``batch_create`` change the member stack in batches with ``pause_time`` between them
(``app.convergence.nested.group_batches``), as Heat's resource_group.py.
"""
from __future__ import annotations

from typing import Any, ClassVar

from app.resource_types import schema as s
from app.resource_types.base import Resource


class ResourceGroup(Resource):
    """Heat's ``OS::Heat::ResourceGroup`` (schema as heat-reference/resource_types.json)."""

    type_name = "OS::Heat::ResourceGroup"
    nested_kind = "resource_group"
    nested_stack: ClassVar[bool] = True
    accepts_any_attributes = True
    support_status = s.support_status("2014.1")
    properties_schema = {
        "count": s.prop("integer", "Number of members.", default=1, update_allowed=True,
                        constraints=[s.value_range(0)]),
        "index_var": s.prop("string", "Placeholder replaced by each member's index.",
                            default="%index%", constraints=[s.length(3)]),
        "removal_policies": s.prop(
            "list", "Members to remove (their names are not reused).", default=[],
            update_allowed=True,
            schema=s.list_of(s.prop("map", "A removal policy.", schema={
                "resource_list": s.prop("list", "Member names or physical ids.", default=[]),
            }))),
        "removal_policies_mode": s.prop("string", "How removal_policies apply.",
                                        default="append", update_allowed=True,
                                        constraints=[s.allowed_values(["append", "update"])]),
        "resource_def": s.prop("map", "The member definition.", required=True,
                               update_allowed=True, schema={
                                   "type": s.prop("string", "Member type.", required=True),
                                   "properties": s.prop("map", "Member properties."),
                                   "metadata": s.prop("map", "Member metadata."),
                               }),
    }
    attributes_schema = {
        "refs": s.attr("Reference ids of the members, in index order.", "list"),
        "refs_map": s.attr("Member name -> reference id.", "map"),
        "attributes": s.attr("Member name -> the named attribute of that member.", "map"),
        "removed_rsrc_list": s.attr("Names of removed members.", "list"),
    }

    def get_reference_id(self) -> str:
        return str(self.resource_id or self.name)

    def resolve_attribute(self, name: str) -> Any:  # computed by the engine from the members
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {ResourceGroup.type_name: ResourceGroup}
