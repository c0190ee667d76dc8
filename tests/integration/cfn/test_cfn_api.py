"""The CFN query API on the test client (inline engine): every action's answer shape, as
heat-api-cfn's StackController forms it, and bad input answered as AWS error XML with nothing
written."""
from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select

from app.models import Event, Stack, read_session

TEMPLATE = json.dumps({
    "AWSTemplateFormatVersion": "2010-09-09",
    "Description": "cfn unit",
    "Parameters": {"Length": {"Type": "Number", "Default": "8", "Description": "how long"},
                   "Prefix": {"Type": "String", "NoEcho": "true"}},
    "Resources": {"Secret": {"Type": "OS::Heat::RandomString",
                             "Properties": {"length": {"Ref": "Length"}}}},
    "Outputs": {"Joined": {"Description": "prefix and secret",
                           "Value": {"Fn::Join": ["-", [{"Ref": "Prefix"},
                                                        {"Fn::GetAtt": ["Secret", "value"]}]]}},
                "Listed": {"Value": {"Fn::Split": [",", "a,b"]}}},
})
PARAMS = {"Parameters.member.1.ParameterKey": "Prefix",
          "Parameters.member.1.ParameterValue": "pre"}


def _counts() -> tuple[int, int]:
    with read_session() as s:
        return (s.execute(select(func.count()).select_from(Stack)).scalar() or 0,
                s.execute(select(func.count()).select_from(Event)).scalar() or 0)


def _create(call: Any, name: str = "s1", **extra: str) -> Any:
    ans = call("CreateStack", StackName=name, TemplateBody=TEMPLATE, **{**PARAMS, **extra})
    assert ans.status == 200, ans.data
    return ans


def test_create_answers_heat_arn_and_describe_shows_outputs(call: Any) -> None:
    ans = _create(call)
    arn = ans.text("CreateStackResult/StackId")
    assert ans.root.tag == "CreateStackResponse"
    tenant, rest = arn.split("::", 1)[1].split(":", 1)
    assert arn.startswith("arn:openstack:heat::") and tenant == "admin"
    name, stack_id = rest.split("/")[1:]
    assert rest.startswith("stacks/") and name == "s1" and len(stack_id) == 36
    assert ans.text("ResponseMetadata/RequestId").startswith("req-")

    desc = call("DescribeStacks", StackName="s1")
    stack = desc.find("DescribeStacksResult/Stacks/member")
    assert stack.findtext("StackId") == arn
    assert stack.findtext("StackStatus") == "CREATE_COMPLETE"
    assert stack.findtext("Description") == "cfn unit"
    assert stack.findtext("DisableRollback") == "true"  # Heat's default for its API
    assert stack.find("LastUpdatedTime") is None and stack.find("TimeoutInMinutes") is None
    outputs = {m.findtext("OutputKey"): m for m in stack.findall("Outputs/member")}
    joined = outputs["Joined"].findtext("OutputValue")
    assert joined.startswith("pre-") and len(joined) == 4 + 8
    assert outputs["Joined"].findtext("Description") == "prefix and secret"
    assert json.loads(outputs["Listed"].findtext("OutputValue")) == ["a", "b"]
    params = {m.findtext("ParameterKey"): m.findtext("ParameterValue")
              for m in stack.findall("Parameters/member")}
    assert params["Prefix"] == "******"  # NoEcho, as Heat shows it
    assert params["Length"] == "8" and params["AWS::StackName"] == "s1"
    # by ARN and by id too
    assert call("DescribeStacks", StackName=arn).text(
        "DescribeStacksResult/Stacks/member/StackName") == "s1"
    assert call("DescribeStacks", StackName=stack_id).status == 200
    assert len(call("DescribeStacks").findall("DescribeStacksResult/Stacks/member")) == 1


def test_list_resources_events_and_template(call: Any) -> None:
    arn = _create(call).text("CreateStackResult/StackId")
    summaries = call("ListStacks").findall("ListStacksResult/StackSummaries/member")
    assert [(m.findtext("StackName"), m.findtext("StackStatus"), m.findtext("StackId"),
             m.findtext("TemplateDescription")) for m in summaries] == [
        ("s1", "CREATE_COMPLETE", arn, "cfn unit")]

    res = call("ListStackResources", StackName="s1").findall(
        "ListStackResourcesResult/StackResourceSummaries/member")
    assert [(r.findtext("LogicalResourceId"), r.findtext("ResourceType"),
             r.findtext("ResourceStatus")) for r in res] == [
        ("Secret", "OS::Heat::RandomString", "CREATE_COMPLETE")]
    assert res[0].findtext("PhysicalResourceId") and res[0].findtext("LastUpdatedTimestamp")

    detail = call("DescribeStackResource", StackName="s1", LogicalResourceId="Secret").find(
        "DescribeStackResourceResult/StackResourceDetail")
    assert detail.findtext("StackId") == arn and detail.findtext("StackName") == "s1"
    assert detail.findtext("ResourceStatus") == "CREATE_COMPLETE"
    physical = detail.findtext("PhysicalResourceId")

    many = call("DescribeStackResources", StackName="s1").findall(
        "DescribeStackResourcesResult/StackResources/member")
    assert [m.findtext("LogicalResourceId") for m in many] == ["Secret"]
    assert many[0].findtext("Timestamp") and many[0].findtext("StackId") == arn
    by_physical = call("DescribeStackResources", PhysicalResourceId=physical).findall(
        "DescribeStackResourcesResult/StackResources/member")
    assert [m.findtext("StackName") for m in by_physical] == ["s1"]
    assert call("DescribeStackResources", StackName="s1", LogicalResourceId="nope").findall(
        "DescribeStackResourcesResult/StackResources/member") == []

    events = call("DescribeStackEvents", StackName="s1").findall(
        "DescribeStackEventsResult/StackEvents/member")
    statuses = [(e.findtext("LogicalResourceId"), e.findtext("ResourceStatus")) for e in events]
    # newest first, as Heat's event query orders them
    assert statuses[0] == ("s1", "CREATE_COMPLETE") and statuses[-1] == ("s1",
                                                                         "CREATE_IN_PROGRESS")
    assert [e.findtext("Timestamp") for e in events] == sorted(
        (e.findtext("Timestamp") for e in events), reverse=True)
    assert ("Secret", "CREATE_COMPLETE") in statuses
    assert all(e.findtext("StackId") == arn and e.findtext("EventId") for e in events)
    assert json.loads(events[0].findtext("ResourceProperties")) == {}
    assert len(call("DescribeStackEvents").findall(
        "DescribeStackEventsResult/StackEvents/member")) == len(events)

    body = call("GetTemplate", StackName="s1").text("GetTemplateResult/TemplateBody")
    assert json.loads(body) == json.loads(TEMPLATE)


def test_update_with_new_and_previous_values_then_delete(call: Any) -> None:
    _create(call, TimeoutInMinutes="30")
    ans = call("UpdateStack", StackName="s1", UsePreviousTemplate="true",
               **{"Parameters.member.1.ParameterKey": "Prefix",
                  "Parameters.member.1.UsePreviousValue": "true",
                  "Parameters.member.2.ParameterKey": "Length",
                  "Parameters.member.2.ParameterValue": "12"})
    assert ans.status == 200, ans.data
    stack = call("DescribeStacks", StackName="s1").find("DescribeStacksResult/Stacks/member")
    assert stack.findtext("StackStatus") == "UPDATE_COMPLETE"
    assert stack.findtext("LastUpdatedTime") and stack.findtext("TimeoutInMinutes") == "30"
    joined = {m.findtext("OutputKey"): m.findtext("OutputValue")
              for m in stack.findall("Outputs/member")}["Joined"]
    assert joined.startswith("pre-") and len(joined) == 4 + 12

    assert call("DeleteStack", StackName="s1").find("DeleteStackResult") is not None
    # a deleted stack: by name it is gone (what boto3's stack_delete_complete waits for) ...
    assert call("DescribeStacks", StackName="s1").code == "ValidationError"
    assert call("ListStacks").findall("ListStacksResult/StackSummaries/member") == []


def test_validate_template(call: Any) -> None:
    ans = call("ValidateTemplate", TemplateBody=TEMPLATE)
    assert ans.text("ValidateTemplateResult/Description") == "cfn unit"
    params = {m.findtext("ParameterKey"): m for m in
              ans.findall("ValidateTemplateResult/Parameters/member")}
    assert set(params) == {"Length", "Prefix"}
    assert params["Length"].findtext("DefaultValue") == "8"
    assert params["Length"].findtext("Description") == "how long"
    assert params["Prefix"].findtext("NoEcho") == "true"
    assert params["Length"].findtext("NoEcho") == "false"

    bad = json.dumps({"AWSTemplateFormatVersion": "2010-09-09",
                      "Resources": {"x": {"Type": "No::Such::Type"}}})
    err = call("ValidateTemplate", TemplateBody=bad)
    assert err.status == 400 and err.code == "ValidationError"
    assert err.text("Error/Type") == "Sender" and "No::Such::Type" in err.text("Error/Message")


def test_estimate_cost_and_cancel_update(call: Any) -> None:
    assert call("EstimateTemplateCost", TemplateBody=TEMPLATE).text(
        "EstimateTemplateCostResult/Url") == "http://en.wikipedia.org/wiki/Gratis"
    _create(call)
    err = call("CancelUpdateStack", StackName="s1")
    assert err.status == 400 and err.code == "ValidationError"
    assert err.text("Error/Message").endswith(
        "Cancelling update when stack is CREATE_COMPLETE is not supported.")


def test_errors_are_aws_xml_and_write_nothing(call: Any) -> None:
    _create(call)
    before = _counts()
    cases = [
        (call(None), 400, "MissingAction"),
        (call("DoSomething"), 400, "InvalidAction"),
        (call("CreateStack", TemplateBody=TEMPLATE), 400, "MissingParameter"),
        (call("CreateStack", StackName="s2"), 400, "MissingParameter"),
        (call("CreateStack", StackName="s1", TemplateBody=TEMPLATE, **PARAMS), 400,
         "AlreadyExistsException"),
        (call("CreateStack", StackName="s2", TemplateBody="{: nope"), 400, "ValidationError"),
        (call("CreateStack", StackName="s2", TemplateURL="http://example.com/t.json"), 400,
         "ValidationError"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE,
              **{"Parameters.member.1.ParameterKey": "Prefix"}), 400, "MissingParameter"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE,
              **{"Parameters.member.x.ParameterKey": "Prefix"}), 400, "InvalidQueryParameter"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE, **PARAMS,
              **{"Parameters.member.2.ParameterKey": "Prefix",
                 "Parameters.member.2.ParameterValue": "again"}), 400, "ValidationError"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE, **PARAMS,
              **{"Parameters.member.2.ParameterKey": "Unknown",
                 "Parameters.member.2.ParameterValue": "x"}), 400, "ValidationError"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE), 400, "ValidationError"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE, TimeoutInMinutes="soon",
              **PARAMS), 400, "ValidationError"),
        (call("CreateStack", StackName="s2", TemplateBody=TEMPLATE, DisableRollback="true",
              OnFailure="DELETE", **PARAMS), 400, "InvalidParameterCombination"),
        (call("DescribeStacks", StackName="nope"), 400, "ValidationError"),
        (call("DescribeStackResource", StackName="s1", LogicalResourceId="nope"), 400,
         "ValidationError"),
        (call("DescribeStackResources", StackName="s1", PhysicalResourceId="x"), 400,
         "InvalidParameterCombination"),
        (call("DescribeStackResources", PhysicalResourceId="nope"), 400, "ValidationError"),
        (call("UpdateStack", StackName="s1"), 400, "MissingParameter"),
        (call("UpdateStack", StackName="nope", TemplateBody=TEMPLATE), 400, "ValidationError"),
        (call("DeleteStack", StackName="nope"), 400, "ValidationError"),
        (call("ListStacks", signed=False), 400, "IncompleteSignature"),
    ]
    for ans, status, code in cases:
        assert (ans.status, ans.code) == (status, code), ans.data
        assert ans.root.tag == "ErrorResponse" and ans.text("Error/Message")
        assert ans.headers["Content-Type"].startswith("application/xml")
    assert _counts() == before
    assert cases[4][0].text("Error/Message") == (
        "Resource with the name requested already exists:The Stack (s1) already exists.")
    assert cases[14][0].text("Error/Message") == (
        "A bad or out-of-range value was supplied:The Stack (nope) could not be found.")


def test_access_key_without_signature_and_oversized_body(cfn: Any, db: Any) -> None:
    from xml.etree import ElementTree as ET
    resp = cfn.post("/v1/", data={"Action": "ListStacks", "Signature": "abc"})
    assert resp.status_code == 403
    assert ET.fromstring(resp.data).findtext("Error/Code") == "MissingAuthenticationToken"
    big = "x" * (db.max_json_body_size + 1)
    resp = cfn.post("/v1/", data={"Action": "ValidateTemplate", "TemplateBody": big})
    assert resp.status_code == 400
    assert ET.fromstring(resp.data).findtext("Error/Code") == "RequestLimitExceeded"
    resp = cfn.put("/v1/")
    assert resp.status_code == 405
    assert ET.fromstring(resp.data).findtext("Error/Code") == "MethodNotAllowed"


def test_get_query_and_root(cfn: Any, db: Any) -> None:
    from urllib.parse import urlencode
    from xml.etree import ElementTree as ET
    resp = cfn.get("/v1?" + urlencode({"Action": "ListStacks", "AWSAccessKeyId": "k",
                                       "Signature": "s", "SignatureVersion": "2"}))
    assert resp.status_code == 200
    assert ET.fromstring(resp.data).tag == "ListStacksResponse"
    root = cfn.get("/")
    assert root.status_code == 300 and root.json["versions"][0]["id"] == "v1.0"


def test_an_arn_naming_another_project_is_refused_as_heats_invalid_tenant(call: Any) -> None:
    """heat/engine/service.py ``_get_stack``: the ARN's tenant must be the caller's project
    (unless admin) -> ``InvalidTenant``, which heat-api-cfn answers as InvalidParameterValue
    (``ValidationError`` here, see app/cfn/faults.py) with its ``<explanation>:<detail>``."""
    arn = _create(call).text("CreateStackResult/StackId")
    other = arn.replace("heat::admin:", "heat::other:")
    ans = call("DescribeStacks", StackName=other)
    assert (ans.status, ans.code) == (400, "ValidationError")
    assert ans.text("Error/Message") == ("A bad or out-of-range value was supplied:"
                                         "Searching Tenant other from Tenant admin forbidden.")
    assert call("DescribeStacks", StackName=arn).status == 200


def test_describe_stacks_with_an_empty_stack_name_looks_up_the_name(call: Any) -> None:
    # heat-api-cfn tests ``'StackName' in req.params``: an empty name is looked up (and not
    # found), it does not list every stack as an absent StackName does
    _create(call)
    ans = call("DescribeStacks", StackName="")
    assert (ans.status, ans.code) == (400, "ValidationError"), ans.data
    assert ans.root.tag == "ErrorResponse"
    assert ans.headers["Content-Type"].startswith("application/xml")
    assert ans.text("Error/Message") == (
        "A bad or out-of-range value was supplied:The Stack () could not be found.")
    assert len(call("DescribeStacks").findall("DescribeStacksResult/Stacks/member")) == 1
