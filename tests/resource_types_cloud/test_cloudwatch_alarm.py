"""AWS::CloudWatch::Alarm on the sandbox (SQLite, in-process engine), as Heat 27 provides it:
a template resource of Heat's global environment (etc/heat/environment.d/default.yaml ->
AWS_CloudWatch_Alarm.yaml) whose child stack holds one OS::Aodh::Alarm ``__alarm__``, the
CloudWatch names mapped to Aodh's (GreaterThanThreshold -> gt, Average -> avg), repeat_actions
true, Dimensions as matching_metadata. Its AlarmActions are an AWS::AutoScaling::ScalingPolicy's
reference (the pre-signed URL): the sandbox's metric crossing the threshold scales the
AWS::AutoScaling::AutoScalingGroup."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.services import stacks

CTX = RequestContext(tenant_id="admin")


def template(threshold: str = "80") -> dict[str, Any]:
    return {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
        "Launch": {"Type": "AWS::AutoScaling::LaunchConfiguration",
                   "Properties": {"ImageId": "cirros", "InstanceType": "m1.tiny"}},
        "Group": {"Type": "AWS::AutoScaling::AutoScalingGroup", "Properties": {
            "AvailabilityZones": ["nova"], "LaunchConfigurationName": {"Ref": "Launch"},
            "MinSize": "1", "MaxSize": "3"}},
        "ScaleUp": {"Type": "AWS::AutoScaling::ScalingPolicy", "Properties": {
            "AdjustmentType": "ChangeInCapacity", "AutoScalingGroupName": {"Ref": "Group"},
            "Cooldown": "0", "ScalingAdjustment": "1"}},
        "CPUHigh": {"Type": "AWS::CloudWatch::Alarm", "Properties": {
            "AlarmDescription": "Scale up on high CPU", "MetricName": "cpu_util",
            "Namespace": "system/linux", "Statistic": "Average", "Period": "60",
            "EvaluationPeriods": "1", "Threshold": threshold,
            "ComparisonOperator": "GreaterThanThreshold",
            "AlarmActions": [{"Ref": "ScaleUp"}],
            "Dimensions": [{"Name": "AutoScalingGroupName", "Value": {"Ref": "Group"}}]}}},
        "Outputs": {"Size": {"Value": {"Fn::GetAtt": ["Group", "CurrentSize"]}},
                    "AlarmRef": {"Value": {"Ref": "CPUHigh"}}}}


def _rows(stack_id: str) -> dict[str, Resource]:
    with read_session() as s:
        return {r.name: r for r in s.execute(select(Resource).where(
            Resource.stack_id == stack_id)).scalars()}


def test_cloudwatch_alarm_is_an_aodh_alarm_in_a_child_stack(db: Any, cloud_settings: Any,
                                                           sandbox: Any) -> None:
    st = stacks.create_stack(CTX, stack_name="cw", template=template())
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    rows = _rows(st.id)
    alarm_row = rows["CPUHigh"]
    assert alarm_row.type == "AWS::CloudWatch::Alarm"
    with read_session() as s:
        child = s.get(Stack, alarm_row.physical_resource_id)
        assert child is not None and child.parent_id == st.id
    (inner,) = _rows(child.id).values()
    assert (inner.name, inner.type) == ("__alarm__", "OS::Aodh::Alarm")
    alarm = sandbox.app.extensions["sandbox"].store.get("alarms", inner.physical_resource_id)
    rule = alarm["threshold_rule"]
    assert (rule["meter_name"], rule["comparison_operator"], rule["statistic"]) == \
        ("cpu_util", "gt", "avg")
    assert float(rule["threshold"]) == 80 and int(rule["period"]) == 60
    assert alarm["repeat_actions"] is True
    assert alarm["description"] == "Scale up on high CPU"
    assert alarm["alarm_actions"] == [rows["ScaleUp"].rsrc_data["ec2_signed_url"]]
    assert alarm["ok_actions"] == [] and alarm["insufficient_data_actions"] == []
    assert {q["field"]: q["value"] for q in rule["query"]} == \
        {"metadata.user_metadata.AutoScalingGroupName": rows["Group"].physical_resource_id}
    stacks.delete_stack(CTX, st.name, st.id)
    assert sandbox.app.extensions["sandbox"].store.get("alarms", inner.physical_resource_id) is None
