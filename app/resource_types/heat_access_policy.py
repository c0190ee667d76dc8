"""OS::Heat::AccessPolicy (Heat's ``heat/engine/resources/openstack/heat/access_policy.py``):
the resources an AWS::IAM::User whose ``Policies`` name it may read through the
DescribeStackResource API. Nothing is created; at validation every ``AllowedResources`` entry
must be a resource of the stack (else Heat's ``AccessPolicy resource <name> not in stack``).
"""
from __future__ import annotations

from typing import Any, ClassVar

from app import errors
from app.resource_types import schema as s
from app.resource_types.base import Resource


class AccessPolicy(Resource):
    """OS::Heat::AccessPolicy."""

    type_name = "OS::Heat::AccessPolicy"
    support_status = s.support_status(None)
    properties_schema: ClassVar[dict[str, Any]] = {
        "AllowedResources": s.prop("list", "Resources that users are allowed to access by the "
                                   "DescribeStackResource API.", required=True),
    }

    #: set by stack validation and the engine: the names of the stack's resources
    stack_resource_names: frozenset[str] | None = None

    def validate(self) -> None:
        """:raises errors.ValidationError: ``AccessPolicy resource <name> not in stack``."""
        if self.stack_resource_names is None:
            return
        for name in self.get_property("AllowedResources") or []:
            if name not in self.stack_resource_names:
                raise errors.ValidationError(f"AccessPolicy resource {name} not in stack")

    def access_allowed(self, resource_name: str) -> bool:
        """Heat's ``access_allowed``: the resource is one of ``AllowedResources``."""
        return resource_name in (self.get_property("AllowedResources") or [])


def resource_mapping() -> dict[str, type[Resource]]:
    return {"OS::Heat::AccessPolicy": AccessPolicy}
