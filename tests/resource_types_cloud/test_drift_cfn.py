"""Drift detection through the CloudFormation query API against the sandbox: each answer parsed
by botocore's own parser and service model, as boto3 reads it (DetectStackDrift,
DescribeStackDriftDetectionStatus, DescribeStackResourceDrifts with
StackResourceDriftStatusFilters, DetectStackResourceDrift)."""
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
