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


def _rest_error(resp: Any) -> tuple[int, str, str]:
    body = resp.get_json()
    return resp.status_code, body["error"]["type"], body["error"]["message"]


def test_a_deleted_stack_is_not_checked_by_any_drift_call(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """A deleted stack's resources are gone by its own doing: DetectStackDrift,
    DetectStackResourceDrift and DescribeStackResourceDrifts (by its ARN, which still finds
    it) are the same
    ValidationError — Heat's not-found of the stack — and ``POST .../drift`` its 404."""
    from app.api import create_app as api_app
    from app.cfn import create_app
    cfn, api = create_app(cloud_settings).test_client(), api_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="cfngone", template=VALUES)
    arn = f"arn:openstack:heat::admin:stacks/cfngone/{st.id}"
    stacks.delete_stack(CTX, st.name, st.id)
    whole = _error(cfn, "DetectStackDrift", StackName=arn)
    one = _error(cfn, "DetectStackResourceDrift", StackName=arn, LogicalResourceId="v0")
    listed = _error(cfn, "DescribeStackResourceDrifts", StackName=arn)
    assert whole == one == listed
    assert (whole[0], whole[1]["Code"]) == (400, "ValidationError")
    assert whole[1]["Message"].endswith("The Stack (cfngone) could not be found.")
    status, kind, message = _rest_error(api.post(f"/v1/admin/stacks/cfngone/{st.id}/drift"))
    assert (status, kind) == (404, "EntityNotFound")
    assert message == "The Stack (cfngone) could not be found."


def test_drift_is_detected_only_on_a_settled_stack(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """AWS detects drift of a stack in a *_COMPLETE state or UPDATE_ROLLBACK_FAILED (Heat's
    ROLLBACK_FAILED): REVIEW_IN_PROGRESS (a CREATE change set's stack) and UPDATE_IN_PROGRESS
    are ValidationErrors on the CFN API, Heat's 409 ActionInProgress on the REST API (as any
    action on a stack with one in progress); nothing is recorded, so
    DescribeStackResourceDrifts of such a never-checked stack is AWS's empty list."""
    from app.api import create_app as api_app
    from app.cfn import create_app
    from tests.fixtures.engine import Dropper
    from tests.fixtures.wiring import use_dispatcher, use_inline
    cfn, api = create_app(cloud_settings).test_client(), api_app(cloud_settings).test_client()
    _call(cfn, "CreateChangeSet", StackName="cfnreview", ChangeSetName="first",
          ChangeSetType="CREATE", TemplateBody=json.dumps(VALUES))
    st = stacks.create_stack(CTX, stack_name="cfnbusy", template=VALUES)
    try:
        for name, state in (("cfnreview", "REVIEW_IN_PROGRESS"), ("cfnbusy", None)):
            if state is None:
                use_dispatcher(Dropper())
                changed = {**VALUES, "resources": {**VALUES["resources"], "v0": {
                    "type": "OS::Heat::Value", "properties": {"value": 5}}}}
                assert api.patch(f"/v1/admin/stacks/cfnbusy/{st.id}",
                                 json={"template": changed}).status_code == 202
                state = "UPDATE_IN_PROGRESS"
            shown = _call(cfn, "DescribeStacks", StackName=name)["Stacks"][0]
            assert shown["StackStatus"] == state
            for action, extra in (("DetectStackDrift", {}),
                                  ("DetectStackResourceDrift", {"LogicalResourceId": "v0"})):
                status, err = _error(cfn, action, StackName=name, **extra)
                assert (status, err["Code"]) == (400, "ValidationError"), err
                assert state in err["Message"]
            assert _call(cfn, "DescribeStackResourceDrifts",
                         StackName=name)["StackResourceDrifts"] == []
            sid = shown["StackId"].rsplit("/", 1)[1]
            status, kind, message = _rest_error(
                api.post(f"/v1/admin/stacks/{name}/{sid}/drift"))
            assert (status, kind) == (409, "ActionInProgress") and state in message
    finally:
        use_inline()
        stacks.delete_stack(CTX, st.name, st.id)


def test_the_rest_drift_request_body_is_checked(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """``POST .../drift`` takes ``{"resources": [names]}`` (CFN's LogicalResourceIds): a
    body that is not JSON, another key, or a name the stack lacks is a 400, nothing
    recorded; the names given are the only ones checked."""
    from app.api import create_app
    api = create_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="restbody", template=VALUES)
    href = f"/v1/admin/stacks/restbody/{st.id}/drift"
    try:
        for body in ("{not json", '["v0"]', '{"resource": ["v0"]}', '{"resources": "v0"}',
                     '{"resources": ["nosuch"]}'):
            resp = api.post(href, data=body, content_type="application/json")
            assert resp.status_code == 400, (body, resp.get_json())
        assert api.get(href).status_code == 404   # nothing recorded
        only = api.post(href, json={"resources": ["v1"]})
        assert only.status_code == 202
        assert [r["resource_name"] for r in only.get_json()["drift_detection"]["resources"]] \
            == ["v1"]
        assert api.post(href).status_code == 202   # no body: every resource
    finally:
        stacks.delete_stack(CTX, st.name, st.id)


def test_describe_stacks_has_drift_information(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    """AWS's ``Stack.DriftInformation`` (StackDriftInformation): NOT_CHECKED and no
    LastCheckTimestamp before any detection; then the latest detection's status and time."""
    from app.cfn import create_app
    cfn = create_app(cloud_settings).test_client()
    st = stacks.create_stack(CTX, stack_name="cfninfo", template=TEMPLATE)
    try:
        shown = _call(cfn, "DescribeStacks", StackName="cfninfo")["Stacks"][0]
        assert shown["DriftInformation"] == {"StackDriftStatus": "NOT_CHECKED"}
        detection = _call(cfn, "DetectStackDrift", StackName="cfninfo")["StackDriftDetectionId"]
        found = _call(cfn, "DescribeStackDriftDetectionStatus",
                      StackDriftDetectionId=detection)
        info = _call(cfn, "DescribeStacks", StackName="cfninfo")["Stacks"][0]["DriftInformation"]
        assert info == {"StackDriftStatus": found["StackDriftStatus"],
                        "LastCheckTimestamp": found["Timestamp"]}
        assert info["StackDriftStatus"] == "IN_SYNC"
    finally:
        stacks.delete_stack(CTX, st.name, st.id)
