"""CFN ``NoEcho`` parameters read ``******`` in DescribeStacks' ``Parameters`` (Heat's
``format_stack`` of ``heat/api/cfn/v1/stacks.py`` takes stack show's masked parameters) and in
the HOT API's stack show and environment (the same stack, heat/engine/service.py
``get_environment``)."""
from __future__ import annotations

import json
from typing import Any

TEMPLATE = json.dumps({
    "AWSTemplateFormatVersion": "2010-09-09",
    "Parameters": {"Password": {"Type": "String", "NoEcho": "true"},
                   "Visible": {"Type": "String", "NoEcho": "false", "Default": "v"}},
    "Resources": {"W": {"Type": "OS::Heat::Value", "Properties": {"value": {"Ref": "Password"}}}},
})


def test_describe_stacks_masks_noecho(call: Any, db: Any) -> None:
    ans = call("CreateStack", StackName="noecho", TemplateBody=TEMPLATE,
               **{"Parameters.member.1.ParameterKey": "Password",
                  "Parameters.member.1.ParameterValue": "hunter2"})
    assert ans.status == 200, ans.data
    desc = call("DescribeStacks", StackName="noecho")
    members = desc.findall("DescribeStacksResult/Stacks/member/Parameters/member")
    params = {m.findtext("ParameterKey"): m.findtext("ParameterValue") for m in members}
    assert params["Password"] == "******" and params["Visible"] == "v"
    assert b"hunter2" not in desc.data
    from app.api import create_app
    api = create_app(db).test_client()
    href = api.get("/v1/admin/stacks/noecho").headers["Location"]
    assert api.get(href).get_json()["stack"]["parameters"]["Password"] == "******"
    assert api.get(f"{href}/environment").get_json()["parameters"] == {"Password": "******"}
