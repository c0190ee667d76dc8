"""OS::Heat::InstanceGroup, AWS::AutoScaling::AutoScalingGroup, LaunchConfiguration and
ScalingPolicy (schemas as heat-reference/resource_types.json).

The groups are nested stacks of ``AWS::EC2::Instance`` members built from the launch
configuration's properties (Heat's heat/engine/resources/openstack/heat/instance_group.py
``_get_conf_properties``, heat/engine/resources/aws/autoscaling/autoscaling_group.py), realised
by the engine's nested-stack machinery (``app.convergence.nested.scaling_group``); the policy's signal
resizes its group through the adjuster the engine hands it (its ``adjuster`` attribute).
"""
from __future__ import annotations

from typing import Any, ClassVar

from app import errors
from app.resource_types import _signal_urls, heat_autoscaling
from app.resource_types import schema as s
from app.resource_types.base import Resource

CFN_ADJUSTMENT_TYPES = ["ChangeInCapacity", "ExactCapacity", "PercentChangeInCapacity"]
_TAGS = s.prop("list", "Tags to attach to the members.", schema=s.list_of(s.prop(
    "map", "A tag.", schema={"Key": s.prop("string", "Tag key.", required=True),
                             "Value": s.prop("string", "Tag value.", required=True)})))


def _group_props(*, size: bool) -> dict[str, Any]:
    props = {
        "AvailabilityZones": s.prop("list", "Not implemented.", required=True),
        "LaunchConfigurationName": s.prop(
            "string", "The reference to a LaunchConfiguration resource.",
            required=size, update_allowed=True),
        "LoadBalancerNames": s.prop("list", "List of LoadBalancer resources."),
        "Tags": _TAGS,
    }
    if size:
        props["Size"] = s.prop("integer", "Desired number of instances.", required=True,
                               update_allowed=True)
    return props


class InstanceGroup(Resource):
    """Heat's ``OS::Heat::InstanceGroup``: ``Size`` instances of a launch configuration."""

    type_name = "OS::Heat::InstanceGroup"
    nested_kind = "scaling_group"
    nested_stack: ClassVar[bool] = True
    accepts_any_attributes = True
    properties_schema = _group_props(size=True)
    attributes_schema = {
        "InstanceList": s.attr("A comma-delimited list of server ip addresses. "
                               "(Heat extension).", "string"),
    }

    def get_reference_id(self) -> str:
        return str(self.resource_id or self.name)

    def resolve_attribute(self, name: str) -> Any:  # computed by the engine from the members
        return None


class AWSAutoScalingGroup(InstanceGroup):
    """Heat's ``AWS::AutoScaling::AutoScalingGroup``: ``MinSize``..``MaxSize`` instances,
    created at ``DesiredCapacity`` (else ``MinSize``)."""

    type_name = "AWS::AutoScaling::AutoScalingGroup"
    support_status = s.support_status("2014.1")
    properties_schema = {
        **_group_props(size=False),
        "Cooldown": s.prop("integer", "Cooldown period, in seconds.", update_allowed=True),
        "DesiredCapacity": s.prop("integer", "Desired initial number of instances.",
                                  update_allowed=True),
        "InstanceId": s.prop("string", "The ID of an existing instance to use to create "
                             "the Auto Scaling group.",
                             constraints=[s.custom_constraint("nova.server")]),
        "MaxSize": s.prop("integer", "Maximum number of instances in the group.",
                          required=True, update_allowed=True),
        "MinSize": s.prop("integer", "Minimum number of instances in the group.",
                          required=True, update_allowed=True),
        "VPCZoneIdentifier": s.prop("list", "Use only with Neutron, to list the internal "
                                    "subnet to which the instance will be attached.",
                                    schema=s.list_of(s.prop("string", "A subnet id."))),
    }

    def validate(self) -> None:
        """Heat's ``AutoScalingGroup.validate``.

        :raises errors.ValidationError: Heat's messages for the sizes and the launch source."""
        lo, hi = self.properties.get("MinSize"), self.properties.get("MaxSize")
        if isinstance(lo, int) and isinstance(hi, int):
            if hi < lo:
                raise errors.ValidationError("MinSize can not be greater than MaxSize")
            if lo < 0:
                raise errors.ValidationError(
                    "The size of AutoScalingGroup can not be less than zero")
            desired = self.properties.get("DesiredCapacity")
            if isinstance(desired, int) and not lo <= desired <= hi:
                raise errors.ValidationError(
                    "DesiredCapacity must be between MinSize and MaxSize")
        if len(self.properties.get("VPCZoneIdentifier") or [None]) != 1:
            raise errors.ValidationError("Anything other than one VPCZoneIdentifier is not "
                                         "supported")
        if bool(self.properties.get("InstanceId")) == \
                bool(self.properties.get("LaunchConfigurationName")):
            raise errors.ValidationError(
                "Either 'InstanceId' or 'LaunchConfigurationName' must be provided.")


class LaunchConfiguration(Resource):
    """Heat's ``AWS::AutoScaling::LaunchConfiguration``: holds the members' properties; its
    reference id is its physical name."""

    type_name = "AWS::AutoScaling::LaunchConfiguration"
    properties_schema = {
        "BlockDeviceMappings": s.prop("list", "Block device mappings to attach to instance.",
                                      schema=s.list_of(s.prop("map", "A mapping.", schema={
                                          "DeviceName": s.prop("string", "A device name.",
                                                               required=True),
                                          "Ebs": s.prop("map", "The ebs volume.", schema={
                                              "DeleteOnTermination": s.prop(
                                                  "boolean", "x", default=True),
                                              "SnapshotId": s.prop(
                                                  "string", "x", constraints=[
                                                      s.custom_constraint("cinder.snapshot")]),
                                              "VolumeSize": s.prop("string", "x"),
                                              "VolumeType": s.prop("string", "x"),
                                              "Iops": s.prop("number", "x"),
                                          }),
                                          "NoDevice": s.prop("map", "x"),
                                          "VirtualName": s.prop("string", "x"),
                                      }))),
        "ImageId": s.prop("string", "Glance image ID or name.",
                         constraints=[s.custom_constraint("glance.image")]),
        "InstanceId": s.prop("string", "The ID of an existing instance.",
                         constraints=[s.custom_constraint("nova.server")]),
        "InstanceType": s.prop("string", "Nova instance type (flavor).",
                         constraints=[s.custom_constraint("nova.flavor")]),
        "KeyName": s.prop("string", "Optional Nova keypair name.",
                         constraints=[s.custom_constraint("nova.keypair")]),
        "NovaSchedulerHints": s.prop("list", "Scheduler hints.", schema=s.list_of(s.prop(
            "map", "A hint.", schema={"Key": s.prop("string", "x", required=True),
                                      "Value": s.prop("string", "x", required=True)}))),
        "SecurityGroups": s.prop("list", "Security group names to assign."),
        "UserData": s.prop("string", "User data to pass to instance."),
    }

    def handle_create(self) -> None:
        """Nothing in the cloud: the physical id is the physical name (Heat's)."""
        if self.resource_id is None:
            self.resource_id = self.physical_resource_name()

    def get_reference_id(self) -> str:
        return str(self.resource_id or self.name)


class AWSScalingPolicy(Resource):
    """Heat's ``AWS::AutoScaling::ScalingPolicy``: a signal adjusts ``AutoScalingGroupName``."""

    type_name = "AWS::AutoScaling::ScalingPolicy"
    #: what a signal calls to resize the group (handed by the engine)
    adjuster: heat_autoscaling.Adjuster | None = None
    properties_schema = {
        "AdjustmentType": s.prop("string", "Type of adjustment (absolute or percentage).",
                                 required=True, update_allowed=True,
                                 constraints=[s.allowed_values(CFN_ADJUSTMENT_TYPES)]),
        "AutoScalingGroupName": s.prop("string", "AutoScaling group name to apply policy to.",
                                       required=True),
        "Cooldown": s.prop("integer", "Cooldown period, in seconds.", update_allowed=True),
        "MinAdjustmentStep": s.prop("integer", "Minimum number of resources that are added "
                                    "or removed when the AutoScaling group scales up or "
                                    "down.", update_allowed=True,
                                    constraints=[s.value_range(0)]),
        "ScalingAdjustment": s.prop("integer", "Size of adjustment.", required=True,
                                    update_allowed=True),
    }
    attributes_schema = {"AlarmUrl": s.attr("A signed url to handle the alarm. "
                                            "(Heat extension).", "string")}

    def validate(self) -> None:
        """Heat's ``_validate_min_adjustment_step``.

        :raises errors.ValidationError: ``MinAdjustmentStep`` without PercentChangeInCapacity."""
        if self.properties.get("MinAdjustmentStep") is not None and \
                self.properties.get("AdjustmentType") != "PercentChangeInCapacity":
            raise errors.ValidationError(
                "MinAdjustmentStep property should only be specified for AdjustmentType "
                "with value PercentChangeInCapacity.")

    def handle_create(self) -> None:
        """Physical id the physical name, then the keypair and signed URL (Heat's
        ``SignalResponder.handle_create``; :func:`heat_autoscaling.make_signal_urls`)."""
        if self.resource_id is None:
            self.resource_id = self.physical_resource_name()
        heat_autoscaling.make_signal_urls(self)

    def handle_update(self, new_properties: Any, changed: Any) -> None:
        self.properties = dict(new_properties)

    def handle_delete(self) -> None:
        """The signal URL and the stack user go (Heat's ``SignalResponder.handle_delete``)."""
        _signal_urls.delete_signals(self)

    def handle_signal(self, details: Any = None) -> None:
        """Adjust the group, as :meth:`heat_autoscaling.ScalingPolicy.handle_signal` (None)."""
        heat_autoscaling.run_adjuster(
            self, str(self.properties["AutoScalingGroupName"]),
            self.properties["ScalingAdjustment"], str(self.properties["AdjustmentType"]),
            self.properties.get("MinAdjustmentStep"), self.properties.get("Cooldown"))

    def get_reference_id(self) -> str:
        """The never-expiring pre-signed alarm URL once created, else the name (Heat's
        ``AWSScalingPolicy.get_reference_id``)."""
        if self.resource_id is not None and self.data.get("ec2_signed_url"):
            return str(self.data["ec2_signed_url"])
        return str(self.name)

    def _resolve_attribute(self, name: str) -> Any:
        """``AlarmUrl``: the pre-signed URL (None before create)."""
        if name == "AlarmUrl" and self.resource_id is not None:
            return self.data.get("ec2_signed_url")
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    return {c.type_name: c for c in (InstanceGroup, AWSAutoScalingGroup, LaunchConfiguration,
                                     AWSScalingPolicy)}
