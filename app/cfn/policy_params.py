"""The guard parameters of CreateStack / UpdateStack / SetStackPolicy, as AWS CloudFormation
names them: ``EnableTerminationProtection``, ``StackPolicyBody``,
``StackPolicyDuringUpdateBody`` (the ``...URL`` forms are refused: nothing is fetched).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.cfn import faults
from app.cfn.params import flag
from app.services import stack_policy

NO_URL = ("fetching {key} is disabled on this server (Stoker does not fetch URLs on a "
          "request's behalf); send the policy in {body}")


def policy_body(params: Mapping[str, str], body: str, url: str) -> Any:
    """The policy document of ``body`` (JSON text), checked; None when absent.
    :raises faults.ValidationError: the ``url`` form was given; :raises errors.BadRequest:
    a malformed document (answered as ValidationError)."""
    if params.get(url):
        raise faults.ValidationError(NO_URL.format(key=url, body=body))
    if body not in params:
        return None
    return stack_policy.parse_document(params[body])


def create_args(params: Mapping[str, str]) -> dict[str, Any]:
    """CreateStack's ``EnableTerminationProtection`` and ``StackPolicyBody``, as
    ``create_stack`` keyword arguments (only what is given)."""
    out: dict[str, Any] = {}
    protect = flag(params, "EnableTerminationProtection")
    if protect is not None:
        out["termination_protection"] = protect
    policy = policy_body(params, "StackPolicyBody", "StackPolicyURL")
    if policy is not None:
        out["stack_policy"] = policy
    return out


def update_policy_args(params: Mapping[str, str]) -> tuple[Any, Any]:
    """UpdateStack's ``(StackPolicyDuringUpdateBody, StackPolicyBody)`` documents, checked
    (None when absent)."""
    return (policy_body(params, "StackPolicyDuringUpdateBody", "StackPolicyDuringUpdateURL"),
            policy_body(params, "StackPolicyBody", "StackPolicyURL"))
