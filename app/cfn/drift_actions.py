"""Drift detection on the CFN query API with AWS's names and shapes: DetectStackDrift (of
the ``LogicalResourceIds.member.N`` only, when given), DescribeStackDriftDetectionStatus,
DescribeStackResourceDrifts (``StackResourceDriftStatusFilters``; paged by ``MaxResults``,
1 to 100, and ``NextToken``) and DetectStackResourceDrift, through :mod:`app.services.drift`.
A resource of a nested stack is named by that stack (its name or ARN) and its own logical id,
as AWS names a nested stack's resources. A nested stack's resources carry their own stack's ``StackId``;
``ExpectedProperties`` / ``ActualProperties`` are JSON text and property values JSON too, as
AWS's. ``DriftStatusReason`` says why a resource is NOT_CHECKED.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app import errors
from app.cfn import faults, formats
from app.cfn.params import member_list, page, required
from app.cfn.stack_actions import identify
from app.context import RequestContext
from app.engine import drift as rules
from app.services import drift

#: ``MaxResults`` of DescribeStackResourceDrifts: AWS's ``BoxedMaxResults`` (1 to 100)
MOST = 100

STATUSES = (rules.IN_SYNC, rules.MODIFIED, rules.DELETED, rules.NOT_CHECKED)


def detect(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DetectStackDrift → ``{"StackDriftDetectionId"}``; with ``LogicalResourceIds.member.N``
    only those resources are checked (a nested stack's resource: its resources too).
    :raises faults.ValidationError: a logical id that is not a resource of the stack."""
    st = identify(ctx, required(params, "StackName"))
    names = [m.get("", "") for m in member_list(params, "LogicalResourceIds")]
    return {"StackDriftDetectionId": drift.start(ctx, st, names or None)["id"]}


def status(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeStackDriftDetectionStatus of ``StackDriftDetectionId``."""
    found, st = drift.by_id(ctx, required(params, "StackDriftDetectionId"))
    counts = found["counts"]
    out = {"StackId": formats.arn_of(st), "StackDriftDetectionId": found["id"],
           "DetectionStatus": found["status"], "Timestamp": found["detection_time"]}
    if found["stack_drift_status"]:
        out["StackDriftStatus"] = found["stack_drift_status"]
    if found["status_reason"]:
        out["DetectionStatusReason"] = found["status_reason"]
    if found["status"] != drift.IN_PROGRESS:
        out["DriftedStackResourceCount"] = (counts.get(rules.MODIFIED, 0)
                                            + counts.get(rules.DELETED, 0))
    return out


def resource_drifts(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DescribeStackResourceDrifts → ``{"StackResourceDrifts": [...], "NextToken"?}`` of the
    stack's latest detection, only the ``StackResourceDriftStatusFilters`` statuses when
    given, ``MaxResults`` (default 100) a page; a stack never checked has none (AWS).
    :raises faults.ValidationError: an unknown status, MaxResults out of 1..100, a bad token.
    :raises errors.NotFound: a deleted stack (as the Detect actions answer it)."""
    st = identify(ctx, required(params, "StackName"))
    if st.deleted_at is not None or f"{st.action}_{st.status}" == "DELETE_COMPLETE":
        raise errors.NotFound("Stack", st.name)
    wanted = {m[""] for m in member_list(params, "StackResourceDriftStatusFilters")}
    if wanted - set(STATUSES):
        raise faults.ValidationError(
            f"StackResourceDriftStatusFilters: {sorted(wanted - set(STATUSES))} are not among "
            f"{', '.join(STATUSES)}")
    try:
        found = drift.get(ctx, st)
    except errors.NotFound:  # never checked: AWS answers an empty list
        found = {"resources": []}
    chosen, token = page([r for r in found["resources"]
                          if not wanted or r["drift_status"] in wanted], params, MOST, MOST)
    body: dict[str, Any] = {"StackResourceDrifts": [_drift(st.tenant, r) for r in chosen]}
    if token is not None:
        body["NextToken"] = token
    return body


def resource_drift(ctx: RequestContext, params: Mapping[str, str]) -> dict[str, Any]:
    """DetectStackResourceDrift → ``{"StackResourceDrift": {...}}`` checked now."""
    st = identify(ctx, required(params, "StackName"))
    entry = drift.resource(ctx, st, required(params, "LogicalResourceId"))
    return {"StackResourceDrift": _drift(st.tenant, entry)}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _drift(tenant: str, entry: dict[str, Any]) -> dict[str, Any]:
    """AWS ``StackResourceDrift`` of one entry of a detection."""
    out: dict[str, Any] = {
        "StackId": formats.stack_arn(tenant, entry["stack_name"], entry["stack_id"]),
        "LogicalResourceId": entry["resource_name"],
        "PhysicalResourceId": entry["physical_resource_id"] or "",
        "ResourceType": entry["resource_type"],
        "StackResourceDriftStatus": entry["drift_status"], "Timestamp": entry["timestamp"]}
    if entry["expected_properties"] is not None:
        out["ExpectedProperties"] = _json(entry["expected_properties"])
    if entry["actual_properties"] is not None:
        out["ActualProperties"] = _json(entry["actual_properties"])
    if entry["property_differences"]:
        out["PropertyDifferences"] = [
            {"PropertyPath": d["path"], "ExpectedValue": _json(d["expected"]),
             "ActualValue": _json(d["actual"]), "DifferenceType": d["difference_type"]}
            for d in entry["property_differences"]]
    if entry["reason"]:
        out["DriftStatusReason"] = entry["reason"]
    return out
