"""Change sets through boto3's cloudformation client against the CFN app (inline engine):
AWS's shapes (a replacement with the property forcing it and its before/after values), the
``change_set_create_complete`` waiter, execution of exactly the plan, a CREATE change set's
REVIEW_IN_PROGRESS stack, and AWS's errors for bad input with nothing changed."""
from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import WaiterError

FAST = {"Delay": 1, "MaxAttempts": 30}
TEMPLATE = json.dumps({
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {"Length": {"Type": "Number", "Default": "8"},
                   "Value": {"Type": "String", "Default": "one"}},
    "Resources": {"Secret": {"Type": "OS::Heat::RandomString",
                             "Properties": {"length": {"Ref": "Length"}}},
                  "Knob": {"Type": "OS::Heat::TestResource",
                           "Properties": {"value": {"Ref": "Value"}}}},
})


def _error(exc: Any) -> tuple[str, int]:
    resp = exc.value.response
    return resp["Error"]["Code"], resp["ResponseMetadata"]["HTTPStatusCode"]


def _physical(cf: Any, name: str) -> dict[str, str]:
    return {r["LogicalResourceId"]: r["PhysicalResourceId"]
            for r in cf.describe_stack_resources(StackName=name)["StackResources"]}


def _params(**values: str) -> list[dict[str, str]]:
    return [{"ParameterKey": k, "ParameterValue": v} for k, v in values.items()]


def test_update_change_set_described_executed_and_refused_when_spent_or_stale(boto):
    cf = boto
    cf.create_stack(StackName="cs", TemplateBody=TEMPLATE)
    cf.get_waiter("stack_create_complete").wait(StackName="cs", WaiterConfig=FAST)
    before = _physical(cf, "cs")
    made = cf.create_change_set(StackName="cs", ChangeSetName="longer", UsePreviousTemplate=True,
                                Parameters=_params(Length="12", Value="two"),
                                Description="a longer secret")
    assert ":changeSet/longer/" in made["Id"] and made["StackId"].endswith(
        cf.describe_stacks(StackName="cs")["Stacks"][0]["StackId"].rsplit("/", 1)[1])
    cf.get_waiter("change_set_create_complete").wait(ChangeSetName="longer", StackName="cs",
                                                     WaiterConfig=FAST)
    desc = cf.describe_change_set(ChangeSetName=made["Id"])
    assert (desc["Status"], desc["ExecutionStatus"], desc["Description"]) == \
        ("CREATE_COMPLETE", "AVAILABLE", "a longer secret")
    assert {p["ParameterKey"]: p["ParameterValue"] for p in desc["Parameters"]}["Length"] == "12"
    changes = {c["ResourceChange"]["LogicalResourceId"]: c["ResourceChange"]
               for c in desc["Changes"]}
    secret, knob = changes["Secret"], changes["Knob"]
    assert (secret["Action"], secret["Replacement"], secret["Scope"],
            secret["PhysicalResourceId"]) == ("Modify", "True", ["Properties"], before["Secret"])
    assert secret["Details"] == [{"Target": {
        "Attribute": "Properties", "Name": "length", "RequiresRecreation": "Always",
        "BeforeValue": "8", "AfterValue": "12"}, "Evaluation": "Static",
        "ChangeSource": "ParameterReference", "CausingEntity": "Length"}]
    assert (knob["Action"], knob["Replacement"]) == ("Modify", "False")
    assert knob["Details"][0]["Target"]["RequiresRecreation"] == "Never"
    assert cf.describe_stacks(StackName="cs")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"

    cf.execute_change_set(ChangeSetName="longer", StackName="cs")
    cf.get_waiter("stack_update_complete").wait(StackName="cs", WaiterConfig=FAST)
    after = _physical(cf, "cs")
    assert after["Secret"] != before["Secret"] and after["Knob"] == before["Knob"]
    assert [s["ExecutionStatus"] for s in cf.list_change_sets(StackName="cs")["Summaries"]] == \
        ["EXECUTE_COMPLETE"]
    with pytest.raises(cf.exceptions.InvalidChangeSetStatusException) as twice:
        cf.execute_change_set(ChangeSetName="longer", StackName="cs")
    assert _error(twice) == ("InvalidChangeSetStatus", 400)

    cf.create_change_set(StackName="cs", ChangeSetName="stale", UsePreviousTemplate=True,
                         Parameters=_params(Length="14", Value="two"))
    cf.update_stack(StackName="cs", UsePreviousTemplate=True,
                    Parameters=_params(Length="12", Value="three"))
    cf.get_waiter("stack_update_complete").wait(StackName="cs", WaiterConfig=FAST)
    settled = _physical(cf, "cs")
    with pytest.raises(cf.exceptions.InvalidChangeSetStatusException) as stale:
        cf.execute_change_set(ChangeSetName="stale", StackName="cs")
    assert "OBSOLETE" in stale.value.response["Error"]["Message"]
    assert _physical(cf, "cs") == settled
    params = cf.describe_stacks(StackName="cs")["Stacks"][0]["Parameters"]
    assert {p["ParameterKey"]: p["ParameterValue"] for p in params}["Length"] == "12"


def test_create_change_set_makes_a_review_stack_then_creates_it(boto):
    cf = boto
    made = cf.create_change_set(StackName="fresh", ChangeSetName="first", TemplateBody=TEMPLATE,
                                ChangeSetType="CREATE", Parameters=_params(Value="v"),
                                OnStackFailure="DO_NOTHING")
    cf.get_waiter("change_set_create_complete").wait(ChangeSetName=made["Id"],
                                                     WaiterConfig=FAST)
    stack = cf.describe_stacks(StackName="fresh")["Stacks"][0]
    assert stack["StackStatus"] == "REVIEW_IN_PROGRESS" and stack["StackId"] == made["StackId"]
    assert cf.describe_stack_resources(StackName="fresh")["StackResources"] == []
    desc = cf.describe_change_set(ChangeSetName="first", StackName="fresh")
    assert sorted((c["ResourceChange"]["LogicalResourceId"], c["ResourceChange"]["Action"])
                  for c in desc["Changes"]) == [("Knob", "Add"), ("Secret", "Add")]
    with pytest.raises(cf.exceptions.ClientError) as update:
        cf.create_change_set(StackName="fresh", ChangeSetName="upd", UsePreviousTemplate=True)
    assert _error(update) == ("ValidationError", 400)
    with pytest.raises(cf.exceptions.ClientError) as direct:
        cf.update_stack(StackName="fresh", UsePreviousTemplate=True)
    assert "REVIEW_IN_PROGRESS" in direct.value.response["Error"]["Message"]
    # a second REVIEW stack, never executed, is deleted as any stack
    cf.create_change_set(StackName="unused", ChangeSetName="c", TemplateBody=TEMPLATE,
                         ChangeSetType="CREATE")
    cf.delete_stack(StackName="unused")
    cf.get_waiter("stack_delete_complete").wait(StackName="unused", WaiterConfig=FAST)
    cf.execute_change_set(ChangeSetName="first", StackName="fresh")
    cf.get_waiter("stack_create_complete").wait(StackName="fresh", WaiterConfig=FAST)
    assert set(_physical(cf, "fresh")) == {"Knob", "Secret"}
    with pytest.raises(cf.exceptions.AlreadyExistsException):
        cf.create_change_set(StackName="fresh", ChangeSetName="again", TemplateBody=TEMPLATE,
                             ChangeSetType="CREATE")


def test_bad_input_answers_aws_errors_and_changes_nothing(boto):
    cf = boto
    cf.create_stack(StackName="bad", TemplateBody=TEMPLATE)
    cf.get_waiter("stack_create_complete").wait(StackName="bad", WaiterConfig=FAST)
    with pytest.raises(cf.exceptions.ChangeSetNotFoundException) as unknown:
        cf.describe_change_set(ChangeSetName="nope", StackName="bad")
    assert _error(unknown) == ("ChangeSetNotFound", 404)
    with pytest.raises(cf.exceptions.ChangeSetNotFoundException):
        cf.execute_change_set(ChangeSetName="nope", StackName="bad")
    with pytest.raises(cf.exceptions.ClientError) as no_stack:
        cf.create_change_set(StackName="missing", ChangeSetName="x", UsePreviousTemplate=True)
    assert _error(no_stack) == ("ValidationError", 400)
    with pytest.raises(cf.exceptions.ClientError) as kind:
        cf.create_change_set(StackName="bad", ChangeSetName="x", UsePreviousTemplate=True,
                             ChangeSetType="IMPORT")
    assert _error(kind) == ("ValidationError", 400)
    # no change: kept FAILED, and the waiter fails as it does on AWS
    cf.create_change_set(StackName="bad", ChangeSetName="same", UsePreviousTemplate=True)
    with pytest.raises(WaiterError):
        cf.get_waiter("change_set_create_complete").wait(ChangeSetName="same", StackName="bad",
                                                         WaiterConfig=FAST)
    assert "didn't contain changes" in cf.describe_change_set(
        ChangeSetName="same", StackName="bad")["StatusReason"]
    with pytest.raises(cf.exceptions.AlreadyExistsException):
        cf.create_change_set(StackName="bad", ChangeSetName="same", UsePreviousTemplate=True)
    cf.delete_change_set(ChangeSetName="same", StackName="bad")
    assert cf.list_change_sets(StackName="bad")["Summaries"] == []
    assert cf.describe_stacks(StackName="bad")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"


FAILING = json.dumps({
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {"Fail": {"Type": "String", "Default": "true"}},
    "Resources": {"Kept": {"Type": "OS::Heat::RandomString"},
                  "Knob": {"Type": "OS::Heat::TestResource",
                           "Properties": {"value": "v", "fail": {"Ref": "Fail"}}}},
})


def test_failed_create_kept_then_retried_or_rolled_back_on_request(boto):
    cf = boto
    for name in ("kept", "back"):
        cf.create_stack(StackName=name, TemplateBody=FAILING, DisableRollback=True)
        with pytest.raises(WaiterError):
            cf.get_waiter("stack_create_complete").wait(StackName=name, WaiterConfig=FAST)
        assert cf.describe_stacks(StackName=name)["Stacks"][0]["StackStatus"] == "CREATE_FAILED"
    kept = _physical(cf, "kept")["Kept"]
    # retry: the same template with the fault gone; what completed stays
    cf.update_stack(StackName="kept", UsePreviousTemplate=True, Parameters=_params(Fail="false"))
    cf.get_waiter("stack_update_complete").wait(StackName="kept", WaiterConfig=FAST)
    assert _physical(cf, "kept")["Kept"] == kept
    with pytest.raises(cf.exceptions.ClientError) as not_failed:
        cf.rollback_stack(StackName="kept")
    assert _error(not_failed) == ("ValidationError", 400)
    assert "UPDATE_COMPLETE" in not_failed.value.response["Error"]["Message"]
    # roll back on request: what the create made is deleted
    arn = cf.rollback_stack(StackName="back")["StackId"]
    assert arn == cf.describe_stacks(StackName="back")["Stacks"][0]["StackId"]
    # (boto3's stack_rollback_complete waits for UPDATE_ROLLBACK_COMPLETE; the inline engine
    # has finished when the call returns)
    assert cf.describe_stacks(StackName="back")["Stacks"][0]["StackStatus"] == \
        "ROLLBACK_COMPLETE"



class Held:
    """A dispatcher that keeps the engine's work until :meth:`release` (an update that takes a
    moment): the stack stays IN_PROGRESS meanwhile."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))

    def release(self) -> None:
        """Run the kept work in-process, and whatever it enqueues."""
        from tests.fixtures.wiring import use_inline
        inline = use_inline()
        for name, args, kwargs in self.calls:
            getattr(inline, name)(*args, **kwargs)


def test_execution_status_follows_the_stacks_update(boto):
    """AWS: ExecutionStatus is EXECUTE_IN_PROGRESS while the execution's update runs, then
    EXECUTE_COMPLETE, or EXECUTE_FAILED when it fails (and stays so: a later operation of the
    stack does not change what an execution ended as)."""
    from tests.fixtures.wiring import use_dispatcher, use_inline
    cf = boto
    cf.create_stack(StackName="slow", TemplateBody=TEMPLATE, DisableRollback=True)
    cf.get_waiter("stack_create_complete").wait(StackName="slow", WaiterConfig=FAST)
    cf.create_change_set(StackName="slow", ChangeSetName="two", UsePreviousTemplate=True,
                         Parameters=_params(Value="two"))
    held = use_dispatcher(Held())
    try:
        cf.execute_change_set(ChangeSetName="two", StackName="slow")
        assert cf.describe_stacks(StackName="slow")["Stacks"][0]["StackStatus"] == \
            "UPDATE_IN_PROGRESS"
        assert cf.describe_change_set(ChangeSetName="two", StackName="slow")[
            "ExecutionStatus"] == "EXECUTE_IN_PROGRESS"
        assert [s["ExecutionStatus"] for s in cf.list_change_sets(StackName="slow")[
            "Summaries"]] == ["EXECUTE_IN_PROGRESS"]
        held.release()
    finally:
        use_inline()
    assert cf.describe_stacks(StackName="slow")["Stacks"][0]["StackStatus"] == "UPDATE_COMPLETE"
    assert cf.describe_change_set(ChangeSetName="two", StackName="slow")[
        "ExecutionStatus"] == "EXECUTE_COMPLETE"

    failing = json.loads(TEMPLATE)
    failing["Resources"]["Knob"]["Properties"]["fail"] = True
    cf.create_change_set(StackName="slow", ChangeSetName="broken",
                         TemplateBody=json.dumps(failing))
    cf.execute_change_set(ChangeSetName="broken", StackName="slow")
    assert cf.describe_stacks(StackName="slow")["Stacks"][0]["StackStatus"] == "UPDATE_FAILED"
    # AWS deletes the stack's other change sets (the executed "two" too) on an execution
    assert {s["ChangeSetName"]: s["ExecutionStatus"] for s in cf.list_change_sets(
        StackName="slow")["Summaries"]} == {"broken": "EXECUTE_FAILED"}
    # what an execution ended as is kept through the stack's later operations
    cf.update_stack(StackName="slow", TemplateBody=TEMPLATE)
    cf.get_waiter("stack_update_complete").wait(StackName="slow", WaiterConfig=FAST)
    assert cf.describe_change_set(ChangeSetName="broken", StackName="slow")[
        "ExecutionStatus"] == "EXECUTE_FAILED"


@pytest.mark.parametrize("bad, code", [
    ({"Parameters.member.1": "a"}, "MissingParameter"),
    ({"Parameters.member.1.ParameterKey": "Value"}, "MissingParameter"),
    ({"Parameters.member.x.ParameterKey": "Value"}, "InvalidQueryParameter"),
    ({"Parameters.member.1.ParameterKey": "Value", "Parameters.member.1.ParameterValue": "b",
      "Parameters.member.1.UsePreviousValue": "maybe"}, "ValidationError"),
])
def test_malformed_parameters_are_an_aws_client_error_and_make_nothing(call, bad, code):
    """AWS's common errors for a malformed query list (400, Sender), never a server fault;
    the CREATE change set's stack is not made."""
    answer = call("CreateChangeSet", StackName="shapes", ChangeSetName="c1",
                  ChangeSetType="CREATE", TemplateBody=TEMPLATE, **bad)
    assert (answer.status, answer.code, answer.text("Error/Type")) == (400, code, "Sender")
    assert call("DescribeStacks", StackName="shapes").code == "ValidationError"


def test_a_review_stack_takes_another_create_change_set(boto):
    """AWS: a stack in REVIEW_IN_PROGRESS takes further CREATE change sets (its only one
    deleted, or beside others); the one executed creates the stack as it planned."""
    cf = boto
    made = cf.create_change_set(StackName="again", ChangeSetName="first", TemplateBody=TEMPLATE,
                                ChangeSetType="CREATE")
    cf.delete_change_set(ChangeSetName="first", StackName="again")
    second = cf.create_change_set(StackName="again", ChangeSetName="second",
                                  TemplateBody=TEMPLATE, ChangeSetType="CREATE",
                                  Parameters=_params(Value="two"))
    assert second["StackId"] == made["StackId"]
    cf.get_waiter("change_set_create_complete").wait(ChangeSetName=second["Id"],
                                                     WaiterConfig=FAST)
    desc = cf.describe_change_set(ChangeSetName=second["Id"])
    assert {p["ParameterKey"]: p["ParameterValue"] for p in desc["Parameters"]}["Value"] == "two"
    assert sorted(c["ResourceChange"]["Action"] for c in desc["Changes"]) == ["Add", "Add"]
    cf.execute_change_set(ChangeSetName="second", StackName="again")
    cf.get_waiter("stack_create_complete").wait(StackName="again", WaiterConfig=FAST)
    stack = cf.describe_stacks(StackName="again")["Stacks"][0]
    assert {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}["Value"] == \
        "two"


def test_list_change_sets_refuses_a_token_it_did_not_give(boto):
    """As ListExports and DescribeStackResourceDrifts: a NextToken not of this listing is a
    ValidationError, never page 1 again."""
    cf = boto
    cf.create_change_set(StackName="paged", ChangeSetName="only", TemplateBody=TEMPLATE,
                         ChangeSetType="CREATE")
    listed = cf.list_change_sets(StackName="paged")
    assert [s["ChangeSetName"] for s in listed["Summaries"]] == ["only"]
    assert "NextToken" not in listed
    for token in ("garbage", "5"):
        with pytest.raises(cf.exceptions.ClientError) as bad:
            cf.list_change_sets(StackName="paged", NextToken=token)
        assert _error(bad) == ("ValidationError", 400)
        assert bad.value.response["Error"]["Message"].endswith(f"Invalid NextToken: {token}")


def test_description_and_name_limits_are_validation_errors(boto):
    """AWS's CreateChangeSet constraints: Description at most 1024 characters, ChangeSetName
    [a-zA-Z][-a-zA-Z0-9]* at most 128; beyond, ValidationError and no REVIEW stack made."""
    cf = boto
    for extra in ({"ChangeSetName": "ok", "Description": "d" * 1025},
                  {"ChangeSetName": "a" * 129}, {"ChangeSetName": "under_score"}):
        with pytest.raises(cf.exceptions.ClientError) as bad:
            cf.create_change_set(StackName="limited", TemplateBody=TEMPLATE,
                                 ChangeSetType="CREATE", **extra)
        assert _error(bad) == ("ValidationError", 400)
    assert [s for s in cf.list_stacks()["StackSummaries"]
            if s["StackName"] == "limited"] == []


def test_change_source_names_what_caused_each_change(boto):
    """AWS ResourceChangeDetail: ChangeSource DirectModification (the template's value itself,
    no CausingEntity), ParameterReference (CausingEntity: the parameter), ResourceReference
    (a Ref of a resource being replaced: its name) and ResourceAttribute (a Fn::GetAtt:
    resource.attribute)."""
    cf = boto
    body = json.loads(TEMPLATE)
    body["Resources"]["ById"] = {"Type": "OS::Heat::TestResource",
                                 "Properties": {"value": {"Ref": "Secret"}}}
    body["Resources"]["ByAttr"] = {"Type": "OS::Heat::TestResource",
                                   "Properties": {"value": {"Fn::GetAtt": ["Secret", "value"]}}}
    cf.create_stack(StackName="why", TemplateBody=json.dumps(body))
    cf.get_waiter("stack_create_complete").wait(StackName="why", WaiterConfig=FAST)
    body["Resources"]["Knob"]["Properties"]["value"] = "typed"
    cf.create_change_set(StackName="why", ChangeSetName="why", TemplateBody=json.dumps(body),
                         Parameters=_params(Length="12"))
    cf.get_waiter("change_set_create_complete").wait(ChangeSetName="why", StackName="why",
                                                     WaiterConfig=FAST)
    causes = {c["ResourceChange"]["LogicalResourceId"]: [
        (d["ChangeSource"], d.get("CausingEntity")) for d in c["ResourceChange"]["Details"]]
        for c in cf.describe_change_set(ChangeSetName="why", StackName="why")["Changes"]}
    assert causes == {"Secret": [("ParameterReference", "Length")],
                      "Knob": [("DirectModification", None)],
                      "ById": [("ResourceReference", "Secret")],
                      "ByAttr": [("ResourceAttribute", "Secret.value")]}
