"""OS::Heat::AutoScalingGroup and OS::Heat::ScalingPolicy (schemas as
heat-reference/resource_types.json).

More in docs/code/resource_types.md (app.resource_types.heat_autoscaling).
"""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import quote

from app import errors
from app.resource_types import _ec2sign
from app.resource_types import schema as s
from app.resource_types._signal_urls import delete_signals
from app.resource_types.aws_signals import sign
from app.resource_types.base import Resource
from app.resource_types.heat_signals import heat_url

ADJUSTMENT_TYPES = ["change_in_capacity", "exact_capacity", "percent_change_in_capacity"]

#: ``adjuster(stack_id, group_ref, adjustment, adjustment_type, min_adjustment_step,
#: cooldown) -> new size`` (implemented by app.services.scaling)
Adjuster = Callable[[str, str, float, str, "int | None", "float | None"], int]


def make_signal_urls(res: Resource) -> None:
    """Keep an EC2 keypair and the signal URLs in ``res.data`` (once; a redelivered create
    keeps them): ``ec2_signed_url`` (``POST`` CFN ``/v1/signal/<quoted ARN>`` signed without a
    timestamp, as Heat's ``never_expire``) and ``heat_signal_url``
    (``http://<api>/v1/<project>/stacks/<stack>/<id>/resources/<name>/signal``)."""
    if res.stack is None:
        return
    sign(res, _ec2sign.SIGNAL, never_expire=True)
    st = res.stack
    if "heat_signal_url" not in res.data:
        res.data["heat_signal_url"] = (
            f"{heat_url(st.project_id)}/stacks/{quote(st.stack_name, '')}/"
            f"{quote(st.stack_id, '')}/resources/{quote(res.name, '')}/signal")


def run_adjuster(res: Resource, group: str, adjustment: Any, adjustment_type: str,
                 min_step: Any, cooldown: Any) -> int:
    """Call the adjuster the engine handed ``res`` (a policy: its ``adjuster``).
    :returns: the new size.
    :raises errors.NoActionRequired: nothing scaled (Heat's signal then answers normally).
    :raises errors.NotFound: Heat's "Alarm <policy> could not find scaling group ...".
    :raises RuntimeError: no adjuster handed (a policy built outside the engine)."""
    adjuster: Adjuster | None = getattr(res, "adjuster", None)
    if adjuster is None or res.stack is None:
        raise RuntimeError(f"{res.name}: no scaling adjuster handed to this policy")
    try:
        return adjuster(str(res.stack.stack_id), group, adjustment, adjustment_type,
                         min_step, cooldown)
    except errors.NotFound as exc:
        raise errors.NotFound("Resource", group, f"Alarm {res.name} could not find "
                              f'scaling group named "{group}"') from exc


class AutoScalingGroup(Resource):
    """Heat's ``OS::Heat::AutoScalingGroup``: ``min_size``..``max_size`` copies of ``resource``,
    created at ``desired_capacity`` (else ``min_size``)."""

    type_name = "OS::Heat::AutoScalingGroup"
    nested_kind = "scaling_group"
    nested_stack: ClassVar[bool] = True
    accepts_any_attributes = True
    support_status = s.support_status("2014.1")
    properties_schema = {
        "resource": s.prop("map", "The member definition, in HOT format.", required=True,
                           update_allowed=True),
        "max_size": s.prop("integer", "Maximum number of members.", required=True,
                           update_allowed=True, constraints=[s.value_range(0)]),
        "min_size": s.prop("integer", "Minimum number of members.", required=True,
                           update_allowed=True, constraints=[s.value_range(0)]),
        "cooldown": s.prop("integer", "Cooldown period, in seconds.", update_allowed=True),
        "desired_capacity": s.prop("integer", "Desired initial number of members.",
                                   update_allowed=True),
        "rolling_updates": s.prop(
            "map", "Policy for rolling updates.", update_allowed=True,
            default={"max_batch_size": 1, "min_in_service": 0, "pause_time": 0},
            schema={
                "min_in_service": s.prop("integer", "Members kept in service.", default=0,
                                         constraints=[s.value_range(0)]),
                "max_batch_size": s.prop("integer", "Members replaced at once.", default=1,
                                         constraints=[s.value_range(1)]),
                "pause_time": s.prop("number", "Seconds between batches.", default=0,
                                     constraints=[s.value_range(0)]),
            }),
    }
    attributes_schema = {
        "current_size": s.attr("The current number of members.", "integer"),
        "outputs": s.attr("Member name -> the named attribute of that member.", "map"),
        "outputs_list": s.attr("The named attribute of every member.", "list"),
        "refs": s.attr("Reference ids of the members.", "list"),
        "refs_map": s.attr("Member name -> reference id.", "map"),
    }

    def validate(self) -> None:
        """Heat's ``AutoScalingGroup.validate``.

        :raises errors.ValidationError: "MinSize can not be greater than MaxSize",
            "DesiredCapacity must be between MinSize and MaxSize"."""
        lo, hi = self.properties.get("min_size"), self.properties.get("max_size")
        if not isinstance(lo, int) or not isinstance(hi, int):
            return
        if hi < lo:
            raise errors.ValidationError("MinSize can not be greater than MaxSize")
        desired = self.properties.get("desired_capacity")
        if isinstance(desired, int) and not lo <= desired <= hi:
            raise errors.ValidationError("DesiredCapacity must be between MinSize and MaxSize")

    def get_reference_id(self) -> str:
        return str(self.resource_id or self.name)

    def resolve_attribute(self, name: str) -> Any:  # computed by the engine from the members
        return None


class ScalingPolicy(Resource):
    """Heat's ``OS::Heat::ScalingPolicy``: a signal adjusts ``auto_scaling_group_id`` by
    ``scaling_adjustment`` of ``adjustment_type``, with the policy's ``cooldown``."""

    type_name = "OS::Heat::ScalingPolicy"
    support_status = s.support_status(None)
    #: what a signal calls to resize the group (handed by the engine)
    adjuster: Adjuster | None = None
    properties_schema = {
        "adjustment_type": s.prop("string", "Type of adjustment (absolute or percentage).",
                                  required=True, update_allowed=True,
                                  constraints=[s.allowed_values(ADJUSTMENT_TYPES)]),
        "auto_scaling_group_id": s.prop("string", "The group to scale (its reference id).",
                                        required=True),
        "cooldown": s.prop("number", "Cooldown period, in seconds.", update_allowed=True),
        "min_adjustment_step": s.prop("integer", "Minimum number of members to add or remove "
                                      "with percent_change_in_capacity.", update_allowed=True,
                                      constraints=[s.value_range(0)]),
        "scaling_adjustment": s.prop("number", "Size of adjustment.", required=True,
                                     update_allowed=True),
    }
    attributes_schema = {
        "alarm_url": s.attr("A signed url to handle the alarm.", "string"),
        "signal_url": s.attr("A url to handle the alarm using native API.", "string"),
    }

    def validate(self) -> None:
        """Heat's ``_validate_min_adjustment_step``.

        :raises errors.ValidationError: ``min_adjustment_step`` without a percent type."""
        if self.properties.get("min_adjustment_step") is not None and \
                self.properties.get("adjustment_type") != "percent_change_in_capacity":
            raise errors.ValidationError(
                "min_adjustment_step property should only be specified for "
                "adjustment_type with value percent_change_in_capacity.")

    def handle_create(self) -> None:
        """Heat makes a stack user (its id the physical id) and keypair here (kept on
        redelivery), then the signal URLs (:func:`make_signal_urls`)."""
        if self.resource_id is None:
            self.resource_id = uuid.uuid4().hex
        make_signal_urls(self)

    def handle_update(self, new_properties: Any, changed: Any) -> None:
        """Adopts the new properties (used by later signals)."""
        self.properties = dict(new_properties)

    def handle_delete(self) -> None:
        """The signal URLs and the stack user go (Heat's ``SignalResponder.handle_delete``)."""
        delete_signals(self)

    def handle_signal(self, details: Any = None) -> None:
        """Adjust the group (Heat's ``AutoScalingPolicy.handle_signal``), whatever the alarm
        state in ``details``. :returns: None, as Heat's (so the SIGNAL event's reason describes
        ``details``, e.g. "alarm state changed from ok to alarm (...)").
        :raises errors.NoActionRequired: cooldown, scaling in progress, no change.
        :raises errors.NotFound: the group is not in this stack."""
        run_adjuster(self, str(self.properties["auto_scaling_group_id"]),
                     self.properties["scaling_adjustment"],
                     str(self.properties["adjustment_type"]),
                     self.properties.get("min_adjustment_step"),
                     self.properties.get("cooldown"))

    def _resolve_attribute(self, name: str) -> Any:
        """``alarm_url`` / ``signal_url`` (None before create, as Heat's)."""
        if self.resource_id is None:
            return None
        key = {"alarm_url": "ec2_signed_url", "signal_url": "heat_signal_url"}.get(name)
        return self.data.get(key) if key else None


def resource_mapping() -> dict[str, type[Resource]]:
    return {AutoScalingGroup.type_name: AutoScalingGroup,
            ScalingPolicy.type_name: ScalingPolicy}
