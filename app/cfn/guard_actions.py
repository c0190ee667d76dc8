"""The CFN query API's stack guards, as AWS CloudFormation names and shapes them (Heat's
heat-api-cfn has none): UpdateTerminationProtection, SetStackPolicy, GetStackPolicy, and the
guard parameters of CreateStack / UpdateStack. The services enforce them
(:mod:`app.services.protection`, :mod:`app.services.stack_policy`).
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.cfn import faults, formats
from app.cfn.params import flag, required
from app.cfn.policy_params import policy_body
from app.cfn.stack_actions import identify
from app.context import RequestContext
from app.services import guards, stack_policy


def update_termination_protection(ctx: RequestContext,
                                  params: Mapping[str, str]) -> dict[str, Any]:
    """UpdateTerminationProtection → ``{"StackId": arn}``. A nested stack's is refused (it
    is its root's), as in AWS."""
    enabled = flag(params, "EnableTerminationProtection")
    if enabled is None:
        raise faults.MissingParameter("EnableTerminationProtection")
    st = identify(ctx, required(params, "StackName"))
    row = guards.set_termination_protection(ctx, st.name, st.id, enabled)
    return {"StackId": formats.arn_of(row)}


def set_policy(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """SetStackPolicy → an empty result; ``StackPolicyBody`` replaces the stack's policy."""
    document = policy_body(params, "StackPolicyBody", "StackPolicyURL")
    if document is None:
        raise faults.MissingParameter("StackPolicyBody")
    st = identify(ctx, required(params, "StackName"))
    stack_policy.set_policy(ctx, st.name, st.id, document)
    return {}


def get_policy(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """GetStackPolicy → ``{"StackPolicyBody": <JSON text>}``, left out when the stack has no
    policy (as AWS answers)."""
    st = identify(ctx, required(params, "StackName"))
    document = stack_policy.get_policy(ctx, st.name, st.id)
    return {"StackPolicyBody": None if document is None else json.dumps(document)}
