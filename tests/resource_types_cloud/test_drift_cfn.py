"""Drift detection through the CloudFormation query API against the sandbox: each answer parsed
by botocore's own parser and service model, as boto3 reads it (DetectStackDrift with and
without LogicalResourceIds, DescribeStackDriftDetectionStatus, DescribeStackResourceDrifts
with StackResourceDriftStatusFilters and MaxResults/NextToken pages, DetectStackResourceDrift
of a stack's and of a nested stack's resource)."""
from __future__ import annotations

import json
from typing import Any

import botocore.session
from botocore.parsers import create_parser

from app import clients
from app.context import RequestContext
from app.services import stacks
from tests.integration.cfn.conftest import sign

CTX = RequestContext(tenant_id="admin")
TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {
    "sg": {"type": "OS::Neutron::SecurityGroup",
           "properties": {"name": "cfn-sg", "rules": [{"protocol": "tcp",
                                                       "port_range_min": 80,
                                                       "port_range_max": 80}]}},
    "v": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}
MODEL = botocore.session.get_session().get_service_model("cloudformation")


def _call(client: Any, action: str, **params: str) -> dict[str, Any]:
    body, headers = sign({"Version": "2010-05-15", "Action": action, **params})
    resp = client.post("/v1/", data=body, headers=headers)
    parsed: dict[str, Any] = create_parser("query").parse(
        {"status_code": resp.status_code, "headers": dict(resp.headers), "body": resp.data},
        MODEL.operation_model(action).output_shape)
    assert resp.status_code == 200, parsed
    return parsed


def test_drift_through_the_cfn_api(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    from app.cfn import create_app
    cfn = create_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="cfndrift", template=TEMPLATE)
    try:
        detection = _call(cfn, "DetectStackDrift", StackName="cfndrift")["StackDriftDetectionId"]
        found = _call(cfn, "DescribeStackDriftDetectionStatus",
                      StackDriftDetectionId=detection)
        assert (found["DetectionStatus"], found["StackDriftStatus"],
                found["DriftedStackResourceCount"]) == ("DETECTION_COMPLETE", "IN_SYNC", 0)
        assert found["StackId"].endswith(f"/cfndrift/{st.id}")

        physical = next(r["PhysicalResourceId"] for r in _call(
            cfn, "DescribeStackResourceDrifts", StackName="cfndrift")["StackResourceDrifts"]
            if r["LogicalResourceId"] == "sg")
        conn = clients.for_stack(type("I", (), {"stack_name": st.name, "stack_id": st.id,
                                                "project_id": "admin"})()).connection()
        conn.network.create_security_group_rule(
            security_group_id=physical, direction="ingress", ethertype="IPv4",
            protocol="17", port_range_min=53, port_range_max=53)
        one = _call(cfn, "DetectStackResourceDrift", StackName="cfndrift",
                    LogicalResourceId="sg")["StackResourceDrift"]
        assert one["StackResourceDriftStatus"] == "MODIFIED"
        assert [(d["PropertyPath"], d["DifferenceType"], json.loads(d["ActualValue"]))
                for d in one["PropertyDifferences"]] == [
            ("/rules/1", "ADD", {"direction": "ingress", "ethertype": "IPv4", "protocol": "17",
                                 "port_range_min": 53, "port_range_max": 53})]
        assert json.loads(one["ExpectedProperties"])["name"] == "cfn-sg"

        again = _call(cfn, "DetectStackDrift", StackName="cfndrift")["StackDriftDetectionId"]
        found = _call(cfn, "DescribeStackDriftDetectionStatus", StackDriftDetectionId=again)
        assert (found["StackDriftStatus"], found["DriftedStackResourceCount"]) == ("DRIFTED", 1)
        drifts = _call(cfn, "DescribeStackResourceDrifts", StackName="cfndrift", **{
            "StackResourceDriftStatusFilters.member.1": "NOT_CHECKED"})["StackResourceDrifts"]
        assert [(d["LogicalResourceId"], d["StackResourceDriftStatus"], d["DriftStatusReason"])
                for d in drifts] == [("v", "NOT_CHECKED", "The live state of OS::Heat::Value "
                                                          "resources cannot be read.")]
    finally:
        stacks.delete_stack(CTX, st.name, st.id)


def _error(client: Any, action: str, **params: str) -> tuple[int, dict[str, Any]]:
    """``(status, {"Code", "Message", "Type"})`` of a refused call, as botocore reads it."""
    body, headers = sign({"Version": "2010-05-15", "Action": action, **params})
    resp = client.post("/v1/", data=body, headers=headers)
    parsed = create_parser("query").parse(
        {"status_code": resp.status_code, "headers": dict(resp.headers), "body": resp.data},
        None)
    return resp.status_code, parsed["Error"]


VALUES = {"heat_template_version": "2018-08-31", "resources": {
    f"v{i}": {"type": "OS::Heat::Value", "properties": {"value": i}} for i in range(3)}}


def test_resource_drifts_are_paged_by_max_results_and_next_token(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """AWS: ``MaxResults`` (1 to 100) results a call; more → ``NextToken`` for the next set."""
    from app.cfn import create_app
    cfn = create_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="cfnpages", template=VALUES)
    try:
        _call(cfn, "DetectStackDrift", StackName="cfnpages")
        every = [d["LogicalResourceId"] for d in _call(
            cfn, "DescribeStackResourceDrifts", StackName="cfnpages")["StackResourceDrifts"]]
        assert sorted(every) == ["v0", "v1", "v2"]
        first = _call(cfn, "DescribeStackResourceDrifts", StackName="cfnpages", MaxResults="2")
        assert [d["LogicalResourceId"] for d in first["StackResourceDrifts"]] == every[:2]
        second = _call(cfn, "DescribeStackResourceDrifts", StackName="cfnpages",
                       MaxResults="2", NextToken=first["NextToken"])
        assert [d["LogicalResourceId"] for d in second["StackResourceDrifts"]] == every[2:]
        assert "NextToken" not in second
        filtered = _call(cfn, "DescribeStackResourceDrifts", StackName="cfnpages",
                         MaxResults="1", **{"StackResourceDriftStatusFilters.member.1":
                                            "NOT_CHECKED"})
        assert len(filtered["StackResourceDrifts"]) == 1 and filtered["NextToken"]
        assert "NextToken" not in _call(cfn, "DescribeStackResourceDrifts",
                                        StackName="cfnpages", MaxResults="100")
        for bad, bound in (("0", "greater than or equal to 1"),
                           ("101", "less than or equal to 100")):
            status, err = _error(cfn, "DescribeStackResourceDrifts", StackName="cfnpages",
                                 MaxResults=bad)
            assert (status, err["Code"]) == (400, "ValidationError")
            assert f"Value '{bad}' at 'maxResults' failed to satisfy constraint: Member must " \
                   f"have value {bound}" in err["Message"]
        status, err = _error(cfn, "DescribeStackResourceDrifts", StackName="cfnpages",
                             NextToken="not-a-token")
        assert (status, err["Code"]) == (400, "ValidationError")
    finally:
        stacks.delete_stack(CTX, st.name, st.id)


def test_detect_stack_drift_checks_only_the_logical_resource_ids_given(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """AWS's ``LogicalResourceIds``: the detection is of those resources only; its status and
    its resource drifts say nothing of the others. An unknown one is a ValidationError."""
    from app.cfn import create_app
    cfn = create_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="cfnsome", template=TEMPLATE)
    try:
        _call(cfn, "DetectStackDrift", StackName="cfnsome")
        physical = next(r["PhysicalResourceId"] for r in _call(
            cfn, "DescribeStackResourceDrifts", StackName="cfnsome")["StackResourceDrifts"]
            if r["LogicalResourceId"] == "sg")
        conn = clients.for_stack(type("I", (), {"stack_name": st.name, "stack_id": st.id,
                                                "project_id": "admin"})()).connection()
        conn.network.create_security_group_rule(
            security_group_id=physical, direction="ingress", ethertype="IPv4",
            protocol="17", port_range_min=53, port_range_max=53)

        only_v = _call(cfn, "DetectStackDrift", StackName="cfnsome",
                       **{"LogicalResourceIds.member.1": "v"})["StackDriftDetectionId"]
        found = _call(cfn, "DescribeStackDriftDetectionStatus", StackDriftDetectionId=only_v)
        assert found["StackDriftStatus"] != "DRIFTED" and found["DriftedStackResourceCount"] == 0
        assert [d["LogicalResourceId"] for d in _call(
            cfn, "DescribeStackResourceDrifts", StackName="cfnsome")["StackResourceDrifts"]
            ] == ["v"]

        only_sg = _call(cfn, "DetectStackDrift", StackName="cfnsome",
                        **{"LogicalResourceIds.member.1": "sg"})["StackDriftDetectionId"]
        found = _call(cfn, "DescribeStackDriftDetectionStatus", StackDriftDetectionId=only_sg)
        assert (found["StackDriftStatus"], found["DriftedStackResourceCount"]) == ("DRIFTED", 1)
        assert [(d["LogicalResourceId"], d["StackResourceDriftStatus"]) for d in _call(
            cfn, "DescribeStackResourceDrifts", StackName="cfnsome")["StackResourceDrifts"]
            ] == [("sg", "MODIFIED")]

        status, err = _error(cfn, "DetectStackDrift", StackName="cfnsome",
                             **{"LogicalResourceIds.member.1": "sg",
                                "LogicalResourceIds.member.2": "nosuch"})
        assert (status, err["Code"]) == (400, "ValidationError")
        assert "Resource nosuch does not exist for stack cfnsome" in err["Message"]
        latest = _call(cfn, "DescribeStackResourceDrifts", StackName="cfnsome")
        assert [d["LogicalResourceId"] for d in latest["StackResourceDrifts"]] == ["sg"]
    finally:
        stacks.delete_stack(CTX, st.name, st.id)


NESTED = {"heat_template_version": "2018-08-31", "resources": {
    "inner": {"type": "inner.yaml"}}}
INNER = ("heat_template_version: 2018-08-31\nresources:\n"
         "  sg: {type: OS::Neutron::SecurityGroup, properties: {name: nested-sg}}\n")


def test_a_nested_stacks_resource_is_named_by_its_own_stack(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """As AWS names a nested stack's resources: DetectStackResourceDrift takes the nested
    stack (its name or ARN) and the resource's own logical id, and answers that stack's
    ``StackId``, the logical id and the resource's physical id; the parent's resource holding
    the nested stack is NOT_CHECKED with the nested stack's id as its physical id (Heat's);
    the nested resource is not one of the parent's."""
    from app.cfn import create_app
    cfn = create_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="cfnouter", template=NESTED,
                             files={"inner.yaml": INNER})
    try:
        child = next(r for r in _call(cfn, "DescribeStackResources", StackName="cfnouter")[
            "StackResources"] if r["LogicalResourceId"] == "inner")["PhysicalResourceId"]
        nested = stacks.get_by_id(CTX, child)
        arn = f"arn:openstack:heat::admin:stacks/{nested.name}/{nested.id}"
        sg = next(r for r in _call(cfn, "DescribeStackResources", StackName=arn)[
            "StackResources"] if r["LogicalResourceId"] == "sg")["PhysicalResourceId"]
        for name in (arn, nested.name):
            one = _call(cfn, "DetectStackResourceDrift", StackName=name,
                        LogicalResourceId="sg")["StackResourceDrift"]
            assert (one["StackId"], one["LogicalResourceId"], one["PhysicalResourceId"],
                    one["StackResourceDriftStatus"]) == (arn, "sg", sg, "IN_SYNC")
        holder = _call(cfn, "DetectStackResourceDrift", StackName="cfnouter",
                       LogicalResourceId="inner")["StackResourceDrift"]
        assert (holder["StackId"], holder["PhysicalResourceId"],
                holder["StackResourceDriftStatus"]) == (
            f"arn:openstack:heat::admin:stacks/cfnouter/{st.id}", nested.id, "NOT_CHECKED")
        assert holder["DriftStatusReason"] == ("A nested stack: its resources are checked one "
                                               "by one.")
        status, err = _error(cfn, "DetectStackResourceDrift", StackName="cfnouter",
                             LogicalResourceId="sg")
        assert (status, err["Code"]) == (400, "ValidationError")
    finally:
        stacks.delete_stack(CTX, st.name, st.id)
