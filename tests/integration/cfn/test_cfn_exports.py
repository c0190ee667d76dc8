"""Cross-stack exports through boto3's cloudformation client against the CFN app (inline
engine): ``Export`` and ``Fn::ImportValue``, ListExports and ListImports with AWS's shapes,
an imported export's change and its stack's delete refused (AWS's messages, nothing
changed), allowed once the import is gone; a missing export fails the create cleanly."""
from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

FAST = {"Delay": 1, "MaxAttempts": 30}


def exporter(value: str) -> str:
    return json.dumps({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Parameters": {"Vpc": {"Type": "String", "Default": value}},
        "Resources": {"Net": {"Type": "OS::Heat::TestResource",
                              "Properties": {"value": {"Ref": "Vpc"}}}},
        "Outputs": {"VpcId": {"Value": {"Ref": "Vpc"},
                              "Export": {"Name": {"Fn::Join": [
                                  "-", [{"Ref": "AWS::StackName"}, "VpcId"]]}}}}})


def importer(name: str) -> str:
    return json.dumps({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"App": {"Type": "OS::Heat::TestResource",
                              "Properties": {"value": {"Fn::ImportValue": name}}}},
        "Outputs": {"Seen": {"Value": {"Fn::GetAtt": ["App", "output"]}}}})


PLAIN = json.dumps({"AWSTemplateFormatVersion": "2010-09-09",
                    "Resources": {"App": {"Type": "OS::Heat::TestResource",
                                          "Properties": {"value": "own"}}}})


def _error(exc: Any) -> tuple[str, str]:
    """Code and detail (heat-api-cfn puts the error's explanation before the detail)."""
    err = exc.value.response["Error"]
    explanation, _, detail = str(err["Message"]).partition(":")
    assert explanation == "A bad or out-of-range value was supplied", err
    return err["Code"], detail


def _status(cf: Any, name: str) -> str:
    return str(cf.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"])


def _outputs(cf: Any, name: str) -> dict[str, str]:
    return {o["OutputKey"]: o["OutputValue"]
            for o in cf.describe_stacks(StackName=name)["Stacks"][0]["Outputs"]}


def test_export_imported_pinned_listed_and_released(boto):
    cf = boto
    cf.create_stack(StackName="net", TemplateBody=exporter("vpc-1"))
    cf.get_waiter("stack_create_complete").wait(StackName="net", WaiterConfig=FAST)
    net = cf.describe_stacks(StackName="net")["Stacks"][0]
    net_id = net["StackId"]
    assert net["Outputs"] == [{"OutputKey": "VpcId", "OutputValue": "vpc-1",
                               "Description": "No description given",
                               "ExportName": "net-VpcId"}]
    assert cf.list_exports()["Exports"] == [
        {"ExportingStackId": net_id, "Name": "net-VpcId", "Value": "vpc-1"}]
    with pytest.raises(ClientError) as exc:
        cf.list_imports(ExportName="net-VpcId")
    # AWS's own message for an action heat-api-cfn lacks, whole, as the AWS CLI prints it
    assert exc.value.response["Error"] == {
        "Type": "Sender", "Code": "ValidationError",
        "Message": "Export 'net-VpcId' is not imported by any stack."}

    cf.create_stack(StackName="app", TemplateBody=importer("net-VpcId"))
    cf.get_waiter("stack_create_complete").wait(StackName="app", WaiterConfig=FAST)
    assert _outputs(cf, "app") == {"Seen": "vpc-1"}
    assert cf.list_imports(ExportName="net-VpcId")["Imports"] == ["app"]

    with pytest.raises(ClientError) as exc:
        cf.update_stack(StackName="net", TemplateBody=exporter("vpc-2"))
    assert _error(exc) == ("ValidationError",
                           "Export net-VpcId cannot be updated as it is in use by app")
    with pytest.raises(ClientError) as exc:
        cf.delete_stack(StackName="net")
    assert _error(exc) == ("ValidationError",
                           "Export net-VpcId cannot be deleted as it is in use by app")
    assert _status(cf, "net") == "CREATE_COMPLETE"
    assert cf.list_exports()["Exports"][0]["Value"] == "vpc-1"

    cf.update_stack(StackName="app", TemplateBody=PLAIN)
    cf.get_waiter("stack_update_complete").wait(StackName="app", WaiterConfig=FAST)
    with pytest.raises(ClientError) as exc:
        cf.list_imports(ExportName="net-VpcId")
    assert exc.value.response["Error"]["Message"] == (
        "Export 'net-VpcId' is not imported by any stack.")
    cf.update_stack(StackName="net", TemplateBody=exporter("vpc-2"))
    cf.get_waiter("stack_update_complete").wait(StackName="net", WaiterConfig=FAST)
    assert cf.list_exports()["Exports"][0]["Value"] == "vpc-2"
    cf.delete_stack(StackName="net")
    cf.get_waiter("stack_delete_complete").wait(StackName="net", WaiterConfig=FAST)
    assert cf.list_exports()["Exports"] == []


def test_a_missing_export_fails_the_create_and_writes_nothing(boto):
    cf = boto
    with pytest.raises(ClientError) as exc:
        cf.create_stack(StackName="app", TemplateBody=importer("nowhere"))
    assert _error(exc) == ("ValidationError", "No export named nowhere found.")
    assert [s["StackName"] for s in cf.list_stacks()["StackSummaries"]] == []


def test_the_same_name_cannot_be_exported_twice(boto):
    cf = boto
    template = json.dumps({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"N": {"Type": "OS::Heat::None"}},
        "Outputs": {"O": {"Value": "x", "Export": {"Name": "shared"}}}})
    cf.create_stack(StackName="first", TemplateBody=template)
    cf.get_waiter("stack_create_complete").wait(StackName="first", WaiterConfig=FAST)
    with pytest.raises(ClientError) as exc:
        cf.create_stack(StackName="second", TemplateBody=template)
    assert _error(exc) == ("ValidationError",
                           "Export with name shared is already exported by stack first.")


def test_list_exports_pages_by_next_token(boto):
    cf = boto
    outputs = {f"O{i}": {"Value": str(i), "Export": {"Name": f"e{i:03d}"}} for i in range(105)}
    cf.create_stack(StackName="many", TemplateBody=json.dumps({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"N": {"Type": "OS::Heat::None"}}, "Outputs": outputs}))
    cf.get_waiter("stack_create_complete").wait(StackName="many", WaiterConfig=FAST)
    first = cf.list_exports()
    assert len(first["Exports"]) == 100 and first["NextToken"]
    rest = cf.list_exports(NextToken=first["NextToken"])
    assert [e["Name"] for e in rest["Exports"]] == ["e100", "e101", "e102", "e103", "e104"]
    assert "NextToken" not in rest
    names = [e["Name"] for page in cf.get_paginator("list_exports").paginate()
             for e in page["Exports"]]
    assert names == [f"e{i:03d}" for i in range(105)]


def test_an_export_name_with_fn_sub_names_the_missing_function(boto):
    """Heat's CFN format (heat/engine/cfn/template.py) has no Fn::Sub: the map is kept as it
    is, and the refusal says so rather than only that the name is no string."""
    cf = boto
    template = json.dumps({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {"N": {"Type": "OS::Heat::None"}},
        "Outputs": {"O": {"Value": "x", "Export": {"Name": {"Fn::Sub": "${AWS::StackName}-o"}}}}})
    with pytest.raises(ClientError) as exc:
        cf.create_stack(StackName="subbed", TemplateBody=template)
    code, message = _error(exc)
    assert code == "ValidationError"
    assert message.endswith('"Fn::Sub" is not a function of this template format '
                            "(AWSTemplateFormatVersion: 2010-09-09)")
    assert [s["StackName"] for s in cf.list_stacks()["StackSummaries"]] == []


def test_a_change_set_removing_only_an_exported_output_is_executable(boto):
    """AWS keeps a change set whose only changes are to Outputs CREATE_COMPLETE and AVAILABLE
    with no resource change (only one with no change at all is FAILED, "didn't contain
    changes"); executing it removes the output and its export."""
    cf = boto
    cf.create_stack(StackName="net", TemplateBody=exporter("vpc-1"))
    cf.get_waiter("stack_create_complete").wait(StackName="net", WaiterConfig=FAST)
    physical = cf.describe_stack_resources(StackName="net")["StackResources"][0]
    without = json.loads(exporter("vpc-1"))
    del without["Outputs"]
    cf.create_change_set(StackName="net", ChangeSetName="drop", TemplateBody=json.dumps(without))
    cf.get_waiter("change_set_create_complete").wait(ChangeSetName="drop", StackName="net",
                                                     WaiterConfig=FAST)
    desc = cf.describe_change_set(ChangeSetName="drop", StackName="net")
    assert (desc["Status"], desc["ExecutionStatus"], desc["Changes"]) == (
        "CREATE_COMPLETE", "AVAILABLE", [])
    cf.execute_change_set(ChangeSetName="drop", StackName="net")
    cf.get_waiter("stack_update_complete").wait(StackName="net", WaiterConfig=FAST)
    stack = cf.describe_stacks(StackName="net")["Stacks"][0]
    assert (stack["StackStatus"], stack.get("Outputs", [])) == ("UPDATE_COMPLETE", [])
    assert cf.list_exports()["Exports"] == []
    assert cf.describe_stack_resources(StackName="net")["StackResources"][0][
        "PhysicalResourceId"] == physical["PhysicalResourceId"]
    with pytest.raises(ClientError) as exc:
        cf.list_imports(ExportName="net-VpcId")
    assert exc.value.response["Error"]["Code"] == "ValidationError"
