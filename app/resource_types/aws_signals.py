"""AWS wait conditions: AWS::CloudFormation::WaitConditionHandle and WaitCondition, and
OS::Heat::UpdateWaitConditionHandle (Heat derives it from the AWS handle).

As Heat's ``heat/engine/resources/aws/cfn/wait_condition{,_handle}.py``: the handle's reference
id is a pre-signed EC2v2 URL of the CFN API's ``PUT /v1/waitcondition/<arn>``
(:mod:`app.resource_types._ec2sign`), signed with the EC2 keypair of the handle's stack user, kept in
its data (keystone mode: a Keystone credential, verified by the CFN API through Keystone's
``/v3/ec2tokens``; noauth: a local secret the CFN API checks the signature against). Signals use the CFN fields ``Status``/``Reason``/``Data``/``UniqueId``; the
condition validates that its ``Handle`` URL names a handle of its own stack and waits as
OS::Heat::WaitCondition does.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app.resource_types import _ec2sign
from app.resource_types import schema as s
from app.resource_types._signal_urls import cfn_url, sign
from app.resource_types.base import Resource, UpdateReplace
from app.resource_types.heat_signals import (
    BaseWaitConditionHandle,
    HeatWaitCondition,
    wait_condition_schemas,
)

__all__ = ["UpdateWaitConditionHandle", "WaitCondition", "WaitConditionHandle", "cfn_url",
           "resource_mapping", "sign"]


class WaitConditionHandle(BaseWaitConditionHandle):
    """AWS::CloudFormation::WaitConditionHandle."""

    type_name = "AWS::CloudFormation::WaitConditionHandle"
    support_status = s.support_status("2014.1")

    def handle_create(self) -> None:
        """Physical id, EC2 keypair and the signed URL (kept on a redelivered create)."""
        super().handle_create()
        sign(self, _ec2sign.WAITCONDITION)

    def get_reference_id(self) -> str:
        """The pre-signed URL once created, else the name (Heat's)."""
        if self.resource_id and self.data.get("ec2_signed_url"):
            return str(self.data["ec2_signed_url"])
        return str(self.name)

    def handle_signal(self, details: Any = None) -> str | None:
        """No details: nothing stored (Heat returns early)."""
        if details is None:
            return None
        return super().handle_signal(details)


class UpdateWaitConditionHandle(WaitConditionHandle):
    """OS::Heat::UpdateWaitConditionHandle: an AWS-style handle (signed URL, CFN signal fields)
    replaced on every update, so its signals are cleared and must be sent again (Heat's
    ``_needs_update`` raises ``UpdateReplace``)."""

    type_name = "OS::Heat::UpdateWaitConditionHandle"
    support_status = s.support_status("2014.1")

    def always_updates(self) -> bool:
        """Its diff is taken on every update, unchanged or not (Heat's ``_needs_update``)."""
        return True

    def update_diff(self, new_properties: Mapping[str, Any]) -> dict[str, Any]:
        """:raises UpdateReplace: always."""
        raise UpdateReplace(self.name)


class WaitCondition(HeatWaitCondition):
    """AWS::CloudFormation::WaitCondition (``Handle`` is the handle's signed URL)."""

    type_name = "AWS::CloudFormation::WaitCondition"
    support_status = s.support_status("2014.1")
    handle_property: ClassVar[str] = "Handle"
    properties_schema, attributes_schema = wait_condition_schemas(
        "Handle", "Timeout", "Count", "Data", "integer")

    def _count(self) -> int:
        return int(self.get_property("Count"))

    def _timeout(self) -> float:
        return float(self.get_property("Timeout"))

    def handle_create(self) -> dict[str, Any]:
        """Heat's ``_validate_handle_url``, then as OS::Heat::WaitCondition.

        :raises ValueError: "WaitCondition invalid Handle ..." (another tenant, stack, or not
            a handle)."""
        arn = _ec2sign.arn_of_url(self._ref())
        if arn is None:
            raise ValueError(f"WaitCondition invalid Handle {self._ref()}")
        if self.stack is not None:
            if arn.tenant != self.stack.project_id:
                raise ValueError(f"WaitCondition invalid Handle tenant {arn.tenant}")
            if arn.stack_name != self.stack.stack_name:
                raise ValueError(f"WaitCondition invalid Handle stack {arn.stack_name}")
            if arn.stack_id != self.stack.stack_id:
                raise ValueError(f"WaitCondition invalid Handle stack {arn.stack_id}")
        if self.signals_of is None or self.signals_of(self._ref()) is None:
            raise ValueError(f"WaitCondition invalid Handle {arn.resource_name}")
        return super().handle_create()

    def _resolve_attribute(self, name: str) -> Any:
        return super()._resolve_attribute("data" if name == "Data" else name)


def resource_mapping() -> dict[str, type[Resource]]:
    return {
        "AWS::CloudFormation::WaitConditionHandle": WaitConditionHandle,
        "AWS::CloudFormation::WaitCondition": WaitCondition,
        "OS::Heat::UpdateWaitConditionHandle": UpdateWaitConditionHandle,
    }
