"""The stack guards through the CFN API, driven by boto3's cloudformation client unchanged
(a real HTTP server over the ``db`` fixture, tasks in-process): EnableTerminationProtection on
CreateStack, UpdateTerminationProtection, DescribeStacks' EnableTerminationProtection, a
protected DeleteStack refused as AWS's ValidationError; StackPolicyBody, SetStackPolicy,
GetStackPolicy, StackPolicyDuringUpdateBody; malformed input refused with nothing changed."""
from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.fixtures.cfn import FAST, client

DB_REPLACE = "Update:Replace"


def template(size: str, label: str) -> str:
    """``Db`` is replaced when ``size`` changes; ``App`` is modified in place by ``label``."""
    return json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
        "Db": {"Type": "OS::Heat::TestResource",
               "Properties": {"value": size, "update_replace": True}},
        "App": {"Type": "OS::Heat::TestResource", "Properties": {"value": label}}}})


POLICY = json.dumps({"Statement": [
    {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"},
    {"Effect": "Deny", "Action": DB_REPLACE, "Principal": "*",
     "Resource": "LogicalResourceId/Db"}]})
ALLOW_ALL = json.dumps({"Statement": [{"Effect": "Allow", "Action": "Update:*",
                                       "Principal": "*", "Resource": "*"}]})


@pytest.fixture()
def cf(db: Any) -> Iterator[Any]:
    from werkzeug.serving import make_server

    from app.cfn import create_app
    server = make_server("127.0.0.1", 0, create_app(db), threaded=True)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield client(f"http://127.0.0.1:{server.server_port}/v1/")
    server.shutdown()
    thread.join(5)


def _error(exc: Any) -> tuple[str, str, int]:
    err = exc.value.response
    return (err["Error"]["Code"], err["Error"]["Message"],
            err["ResponseMetadata"]["HTTPStatusCode"])


def _physical(cf: Any, name: str) -> dict[str, str]:
    return {r["LogicalResourceId"]: r["PhysicalResourceId"] for r in
            cf.describe_stack_resources(StackName=name)["StackResources"]}


def test_termination_protection(cf):
    arn = cf.create_stack(StackName="prod", TemplateBody=template("1", "a"),
                          EnableTerminationProtection=True)["StackId"]
    cf.get_waiter("stack_create_complete").wait(StackName="prod", WaiterConfig=FAST)
    stack = cf.describe_stacks(StackName="prod")["Stacks"][0]
    assert stack["EnableTerminationProtection"] is True
    with pytest.raises(cf.exceptions.ClientError) as refused:
        cf.delete_stack(StackName="prod")
    code, message, status = _error(refused)
    assert (code, status) == ("ValidationError", 400)
    assert message.endswith("Stack [prod] cannot be deleted while TerminationProtection is "
                            "enabled")
    assert cf.describe_stacks(StackName="prod")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"

    assert cf.update_termination_protection(StackName="prod", EnableTerminationProtection=False
                                            )["StackId"] == arn
    assert cf.describe_stacks(StackName="prod")["Stacks"][0][
        "EnableTerminationProtection"] is False
    cf.delete_stack(StackName="prod")
    cf.get_waiter("stack_delete_complete").wait(StackName="prod", WaiterConfig=FAST)


def test_unprotected_by_default_and_unknown_stack(cf):
    cf.create_stack(StackName="plain", TemplateBody=template("1", "a"))
    cf.get_waiter("stack_create_complete").wait(StackName="plain", WaiterConfig=FAST)
    assert cf.describe_stacks(StackName="plain")["Stacks"][0][
        "EnableTerminationProtection"] is False
    with pytest.raises(cf.exceptions.ClientError) as unknown:
        cf.update_termination_protection(StackName="nope", EnableTerminationProtection=True)
    assert _error(unknown)[0] == "ValidationError"


def test_stack_policy_denies_replace_allows_modify_and_overrides(cf):
    cf.create_stack(StackName="guarded", TemplateBody=template("1", "a"), StackPolicyBody=POLICY)
    cf.get_waiter("stack_create_complete").wait(StackName="guarded", WaiterConfig=FAST)
    assert json.loads(cf.get_stack_policy(StackName="guarded")["StackPolicyBody"]) == \
        json.loads(POLICY)
    before = _physical(cf, "guarded")

    with pytest.raises(cf.exceptions.ClientError) as denied:
        cf.update_stack(StackName="guarded", TemplateBody=template("2", "a"))
    code, message, status = _error(denied)
    assert (code, status) == ("ValidationError", 400)
    assert "Update:Replace of resource [Db]" in message and "Statement[1]" in message
    assert cf.describe_stacks(StackName="guarded")["Stacks"][0]["StackStatus"] == \
        "CREATE_COMPLETE"

    cf.update_stack(StackName="guarded", TemplateBody=template("1", "b"))
    cf.get_waiter("stack_update_complete").wait(StackName="guarded", WaiterConfig=FAST)
    assert _physical(cf, "guarded") == before

    cf.update_stack(StackName="guarded", TemplateBody=template("2", "b"),
                    StackPolicyDuringUpdateBody=ALLOW_ALL)
    cf.get_waiter("stack_update_complete").wait(StackName="guarded", WaiterConfig=FAST)
    assert _physical(cf, "guarded")["Db"] != before["Db"]

    cf.set_stack_policy(StackName="guarded", StackPolicyBody=ALLOW_ALL)
    assert json.loads(cf.get_stack_policy(StackName="guarded")["StackPolicyBody"]) == \
        json.loads(ALLOW_ALL)
    cf.update_stack(StackName="guarded", TemplateBody=template("3", "b"))
    cf.get_waiter("stack_update_complete").wait(StackName="guarded", WaiterConfig=FAST)


def test_malformed_policies_are_validation_errors_and_change_nothing(cf):
    with pytest.raises(cf.exceptions.ClientError) as bad:
        cf.create_stack(StackName="never", TemplateBody=template("1", "a"),
                        StackPolicyBody='{"Statement": [{"Effect": "Perhaps"}]}')
    assert _error(bad)[0] == "ValidationError" and "Invalid stack policy" in _error(bad)[1]
    assert [s for s in cf.list_stacks()["StackSummaries"] if s["StackName"] == "never"] == []

    cf.create_stack(StackName="kept", TemplateBody=template("1", "a"))
    cf.get_waiter("stack_create_complete").wait(StackName="kept", WaiterConfig=FAST)
    assert "StackPolicyBody" not in cf.get_stack_policy(StackName="kept")
    for body in ("not json", '{"Statement": [{"Effect": "Allow", "Action": "Update:Nope", '
                             '"Principal": "*", "Resource": "*"}]}'):
        with pytest.raises(cf.exceptions.ClientError) as bad:
            cf.set_stack_policy(StackName="kept", StackPolicyBody=body)
        assert _error(bad)[:1] == ("ValidationError",) and _error(bad)[2] == 400
        with pytest.raises(cf.exceptions.ClientError) as bad:
            cf.update_stack(StackName="kept", TemplateBody=template("2", "a"),
                            StackPolicyDuringUpdateBody=body)
        assert _error(bad)[0] == "ValidationError"
    assert "StackPolicyBody" not in cf.get_stack_policy(StackName="kept")
    assert cf.describe_stacks(StackName="kept")["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"
    with pytest.raises(cf.exceptions.ClientError) as url:
        cf.set_stack_policy(StackName="kept", StackPolicyURL="http://example.com/p.json")
    assert "StackPolicyURL" in _error(url)[1]


def _with_child(fail: bool) -> str:
    """``Child`` (an OS::Heat::Stack, its physical id a stack id) with DeletionPolicy
    RetainExceptOnCreate; with ``fail``, ``Boom`` fails after it."""
    resources: dict[str, Any] = {"Child": {
        "Type": "OS::Heat::Stack", "DeletionPolicy": "RetainExceptOnCreate",
        "Properties": {"template": json.dumps({
            "heat_template_version": "2018-08-31",
            "resources": {"leaf": {"type": "OS::Heat::None"}}})}}}
    if fail:
        resources["Boom"] = {"Type": "OS::Heat::TestResource", "DependsOn": "Child",
                             "Properties": {"fail": True}}
    return json.dumps({"AWSTemplateFormatVersion": "2010-09-09", "Resources": resources})


def test_retain_except_on_create_on_delete_and_on_rollback(cf):
    cf.create_stack(StackName="keeps", TemplateBody=_with_child(False))
    cf.get_waiter("stack_create_complete").wait(StackName="keeps", WaiterConfig=FAST)
    child = _physical(cf, "keeps")["Child"]
    cf.delete_stack(StackName="keeps")
    cf.get_waiter("stack_delete_complete").wait(StackName="keeps", WaiterConfig=FAST)
    assert cf.describe_stacks(StackName=child)["Stacks"][0]["StackStatus"] == "CREATE_COMPLETE"

    cf.create_stack(StackName="rolls", TemplateBody=_with_child(True), OnFailure="ROLLBACK")
    with pytest.raises(Exception, match="ROLLBACK_COMPLETE"):
        cf.get_waiter("stack_create_complete").wait(StackName="rolls", WaiterConfig=FAST)
    events = cf.describe_stack_events(StackName="rolls")["StackEvents"]
    made = {e["PhysicalResourceId"] for e in events
            if e["LogicalResourceId"] == "Child" and e["ResourceStatus"] == "CREATE_COMPLETE"}
    assert len(made) == 1
    assert cf.describe_stacks(StackName=made.pop())["Stacks"][0]["StackStatus"] == \
        "DELETE_COMPLETE"
