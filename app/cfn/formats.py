"""Stoker's rows in the AWS data types heat-api-cfn answers (``heat/api/cfn/v1/stacks.py``):
``Stack``, ``StackSummary``, ``StackEvent``, ``StackResource``, ``StackResourceDetail``,
``StackResourceSummary``; and stack ARNs as Heat's ``HeatIdentifier.arn()`` writes them::

    arn:openstack:heat::<tenant>:stacks/<stack_name>/<stack_id>

(each part percent-quoted with no safe characters). Statuses are ``ACTION_STATUS``; times are
Heat's ``isotime`` (``2026-12-01T10:00:00Z``).
"""
from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, unquote

from app.models import isotime
from app.resource_types import _wait

ARN_RE = re.compile(r"arn:openstack:heat::([^:]*):stacks/([^/]+)/([^/]+)(/.*)?")


def stack_arn(tenant: str, stack_name: str, stack_id: str) -> str:
    """Heat's stack ARN (``HeatIdentifier(tenant, name, id).arn()``)."""
    return (f"arn:openstack:heat::{quote(tenant, safe='')}:stacks/"
            f"{quote(stack_name, safe='')}/{quote(stack_id, safe='')}")


def parse_arn(text: str) -> tuple[str, str, str] | None:
    """``(tenant, stack_name, stack_id)`` of a stack ARN (Heat's ``from_arn``), None when the
    text is not one (then it is a stack name or id)."""
    match = ARN_RE.fullmatch(text)
    if not match:
        return None
    tenant, name, stack_id = (unquote(p) for p in match.groups()[:3])
    return tenant, name, stack_id


def arn_of(stack: Any) -> str:
    return stack_arn(stack.tenant, stack.name, stack.id)


def _status(row: Any) -> str:
    return f"{row.action}_{row.status}"


def output_value(value: Any) -> str:
    """An output's value as text: strings as they are, anything else as JSON (the XML
    ``OutputValue`` is a string; Heat's nested elements would read back as nothing)."""
    return value if isinstance(value, str) else json.dumps(value)


def stack(row: Any, outputs: list[dict[str, Any]] | None, protected: bool = False,
          export_names: dict[str, str] | None = None,
          last_check: tuple[str, str] | None = None) -> dict[str, Any]:
    """AWS ``Stack`` (Heat's ``format_stack`` of DescribeStacks): ``Outputs`` only hold
    values once the stack's last traversal has ended; ``LastUpdatedTime`` only once updated;
    ``EnableTerminationProtection`` is ``protected`` (a nested stack's is its root's); an
    exported output has AWS's ``ExportName`` (``export_names``: output key -> name);
    ``DriftInformation`` (AWS's ``StackDriftInformation``) is ``last_check`` (the status and
    time of the latest ended detection), NOT_CHECKED with no timestamp before any."""
    body: dict[str, Any] = {
        "Capabilities": [],
        "CreationTime": isotime(row.created_at),
        "Description": row.description or "",
        "DisableRollback": bool(row.disable_rollback),
        "EnableTerminationProtection": bool(protected),
        "NotificationARNs": [],
        "StackId": arn_of(row),
        "StackName": row.name,
        "StackStatusReason": row.status_reason or "",
        "TimeoutInMinutes": row.timeout_mins,
    }
    if row.updated_at is not None:
        body["LastUpdatedTime"] = isotime(row.updated_at)
    body["StackStatus"] = _status(row)
    body["Outputs"] = [{"Description": o.get("description") or "",
                        "OutputKey": o["output_key"],
                        "OutputValue": output_value(o.get("output_value")),
                        "ExportName": (export_names or {}).get(o["output_key"])}
                       for o in outputs or []]
    body["Parameters"] = [{"ParameterKey": k, "ParameterValue": str(v)}
                          for k, v in (row.parameters_show or {}).items()]
    body["DriftInformation"] = {"StackDriftStatus": "NOT_CHECKED"} if last_check is None \
        else {"StackDriftStatus": last_check[0], "LastCheckTimestamp": last_check[1]}
    return body


def stack_summary(row: Any) -> dict[str, Any]:
    """AWS ``StackSummary`` (ListStacks)."""
    body: dict[str, Any] = {"CreationTime": isotime(row.created_at),
                            "LastUpdatedTime": isotime(row.updated_at),
                            "StackId": arn_of(row), "StackName": row.name,
                            "StackStatusReason": row.status_reason or "",
                            "TemplateDescription": row.description or "",
                            "StackStatus": _status(row)}
    if row.deleted_at is not None:
        body["DeletionTime"] = isotime(row.deleted_at)
    return body


def event(stack_row: Any, row: Any) -> dict[str, Any]:
    """AWS ``StackEvent`` (DescribeStackEvents); ``ResourceProperties`` is JSON text."""
    return {"EventId": row.uuid, "LogicalResourceId": row.resource_name,
            "PhysicalResourceId": row.physical_resource_id or "",
            "ResourceProperties": json.dumps(getattr(row, "resource_properties", None) or {}),
            "ResourceStatusReason": row.status_reason or "",
            "ResourceType": row.resource_type or "",
            "StackId": arn_of(stack_row), "StackName": stack_row.name,
            "Timestamp": isotime(row.created_at), "ResourceStatus": _status(row)}


def _updated(row: Any) -> str | None:
    return isotime(row.updated_at or row.created_at)  # Heat: updated_time or created_time


def resource(stack_row: Any, row: Any) -> dict[str, Any]:
    """AWS ``StackResource`` (DescribeStackResources)."""
    return {"Description": getattr(row, "description", None) or "",
            "LogicalResourceId": row.name,
            "PhysicalResourceId": row.physical_resource_id or "",
            "ResourceStatusReason": row.status_reason or "", "ResourceType": row.type,
            "StackId": arn_of(stack_row), "StackName": stack_row.name,
            "Timestamp": _updated(row), "ResourceStatus": _status(row)}


def _metadata(row: Any) -> Any:
    """A resource's live metadata (a SOFTWARE_CONFIG server's deployments, a handle's
    signals), else what its data keeps as ``metadata``."""
    data = row.rsrc_data or {}
    live = data.get(_wait.METADATA)
    return live if live is not None else data.get("metadata") or {}


def resource_detail(stack_row: Any, row: Any) -> dict[str, Any]:
    """AWS ``StackResourceDetail`` (DescribeStackResource); ``Metadata`` is JSON text."""
    return {"Description": getattr(row, "description", None) or "",
            "LastUpdatedTimestamp": _updated(row), "LogicalResourceId": row.name,
            "Metadata": _metadata(row),
            "PhysicalResourceId": row.physical_resource_id or "",
            "ResourceStatusReason": row.status_reason or "", "ResourceType": row.type,
            "StackId": arn_of(stack_row), "StackName": stack_row.name,
            "ResourceStatus": _status(row)}


def resource_summary(row: Any) -> dict[str, Any]:
    """AWS ``StackResourceSummary`` (ListStackResources)."""
    return {"LastUpdatedTimestamp": _updated(row), "LogicalResourceId": row.name,
            "PhysicalResourceId": row.physical_resource_id or "",
            "ResourceStatusReason": row.status_reason or "", "ResourceType": row.type,
            "ResourceStatus": _status(row)}
