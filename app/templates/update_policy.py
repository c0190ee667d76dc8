"""The ``update_policy`` schemas of the resource types that have one, as Heat's plugins declare
them (``update_policy_schema``); every other type has Heat's empty default, so any key is
"Unknown Property". Heat checks a resource's update policy against its schema when the stack is
validated (``Resource.validate``: ``self.t.update_policy(schema).validate()``), so a bad policy
is refused at create: ``Property error: resources.g.update_policy: Unknown Property x``,
``...update_policy.rolling_update.max_batch_size: 0 is out of range (min: 1, max: None)``.

Schemas are in the property-schema form of :mod:`.properties`.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any

_INT_MIN_0 = {"type": "integer", "default": 0, "constraints": [{"range": {"min": 0}}]}
_INT_MIN_1 = {"type": "integer", "default": 1, "constraints": [{"range": {"min": 1}}]}
_NUM_MIN_0 = {"type": "number", "default": 0, "constraints": [{"range": {"min": 0}}]}


def _map(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "map", "schema": schema}


#: heat/engine/resources/openstack/heat/resource_group.py
_GROUP = {
    "rolling_update": _map({"min_in_service": _INT_MIN_0, "max_batch_size": _INT_MIN_1,
                            "pause_time": _NUM_MIN_0}),
    "batch_create": _map({"max_batch_size": _INT_MIN_1, "pause_time": _NUM_MIN_0}),
}
#: heat/engine/resources/openstack/heat/software_deployment.py (SoftwareDeploymentGroup)
_DEPLOYMENT_GROUP = {
    "rolling_update": _map({"max_batch_size": _INT_MIN_1, "pause_time": _NUM_MIN_0}),
    "batch_create": _map({"max_batch_size": _INT_MIN_1, "pause_time": _NUM_MIN_0}),
}
_AWS_ROLLING = {"MinInstancesInService": {"type": "integer", "default": 0},
                "MaxBatchSize": {"type": "integer", "default": 1},
                "PauseTime": {"type": "string", "default": "PT0S"}}

SCHEMAS: MappingProxyType[str, dict[str, Any]] = MappingProxyType({
    "OS::Heat::ResourceGroup": _GROUP,
    "OS::Heat::SoftwareDeploymentGroup": _DEPLOYMENT_GROUP,
    "OS::Heat::StructuredDeploymentGroup": _DEPLOYMENT_GROUP,
    "OS::Heat::InstanceGroup": {"RollingUpdate": _map(_AWS_ROLLING)},
    "AWS::AutoScaling::AutoScalingGroup": {"AutoScalingRollingUpdate": _map(_AWS_ROLLING)},
})


def schema_for(type_name: str) -> dict[str, Any]:
    """The update policy schema of ``type_name`` (``{}``: Heat's default, no key allowed)."""
    return SCHEMAS.get(type_name, {})
