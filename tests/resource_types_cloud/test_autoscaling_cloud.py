"""Autoscaling groups of servers on the sandbox (SQLite, in-process engine): an
AWS::AutoScaling::AutoScalingGroup of a LaunchConfiguration's AWS::EC2::Instances, scaled by an
AWS::AutoScaling::ScalingPolicy's signal; an OS::Heat::InstanceGroup of Size instances; an
OS::Heat::AutoScalingGroup of OS::Nova::Servers scaled down (the oldest server deleted).
As Heat's instance_group.py / aws autoscaling_group.py / autoscaling_group.py."""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.services import scaling, signals, stacks

CTX = RequestContext(tenant_id="admin")
LC = {"lc": {"type": "AWS::AutoScaling::LaunchConfiguration",
             "properties": {"ImageId": "cirros", "InstanceType": "m1.tiny"}}}


def _outs(st: Any) -> dict[str, Any]:
    st = stacks.get_by_id(CTX, st.id)
    return {o["output_key"]: o["output_value"] for o in stacks.stack_outputs(st)}


def _servers(sandbox: Any) -> list[dict[str, Any]]:
    return [s for s in sandbox.app.extensions["sandbox"].store.all("servers") if s.get("status") != "DELETED"]


def _child_rows(st: Any) -> list[Resource]:
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == st.id)).scalar_one()
        return list(s.execute(select(Resource).where(Resource.stack_id == child.id)
                              .order_by(Resource.created_at, Resource.id)).scalars())


def test_aws_group_of_a_launch_configuration_scaled_by_a_policy(db: Any, cloud_settings: Any,
                                                               sandbox: Any) -> None:
    tmpl = {"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
        **{k: {"Type": v["type"], "Properties": v["properties"]} for k, v in LC.items()},
        "grp": {"Type": "AWS::AutoScaling::AutoScalingGroup", "Properties": {
            "AvailabilityZones": ["nova"], "LaunchConfigurationName": {"Ref": "lc"},
            "MinSize": "1", "MaxSize": "3", "DesiredCapacity": "1"}},
        "up": {"Type": "AWS::AutoScaling::ScalingPolicy", "Properties": {
            "AutoScalingGroupName": {"Ref": "grp"}, "AdjustmentType": "ChangeInCapacity",
            "ScalingAdjustment": "2"}}},
        "Outputs": {"ips": {"Value": {"Fn::GetAtt": ["grp", "InstanceList"]}}}}
    before = len(_servers(sandbox))
    st = stacks.create_stack(CTX, stack_name="awsasg", template=tmpl)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    rows = _child_rows(st)
    assert [r.type for r in rows] == ["AWS::EC2::Instance"]
    assert len(_servers(sandbox)) == before + 1
    signals.signal(CTX, st, "up", None)   # the policy's alarm URL, signalled
    assert len(_servers(sandbox)) == before + 3
    assert len([r for r in _child_rows(st) if r.action == "CREATE"]) == 3
    stacks.delete_stack(CTX, st.name, st.id)
    assert len(_servers(sandbox)) == before


def test_instance_group_of_size_instances(db: Any, cloud_settings: Any, sandbox: Any) -> None:
    tmpl = {"heat_template_version": "2018-08-31", "resources": {**LC, "grp": {
        "type": "OS::Heat::InstanceGroup", "properties": {
            "AvailabilityZones": ["nova"], "LaunchConfigurationName": {"get_resource": "lc"},
            "Size": 2}}}}
    st = stacks.create_stack(CTX, stack_name="ig", template=tmpl)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    rows = _child_rows(st)
    assert len(rows) == 2 and {r.type for r in rows} == {"AWS::EC2::Instance"}
    tags = rows[0].properties_data["Tags"]
    assert {"Key": "metering.groupname", "Value": "grp"} in tags
    stacks.delete_stack(CTX, st.name, st.id)


def test_os_group_of_servers_scaled_down_deletes_the_oldest(db: Any, cloud_settings: Any,
                                                            sandbox: Any) -> None:
    tmpl = {"heat_template_version": "2018-08-31", "resources": {"asg": {
        "type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": 1, "max_size": 3, "desired_capacity": 2,
            "resource": {"type": "OS::Nova::Server", "properties": {
                "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}]}}}}},
        "outputs": {"size": {"value": {"get_attr": ["asg", "current_size"]}}}}
    st = stacks.create_stack(CTX, stack_name="osasg", template=tmpl)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    oldest = _child_rows(st)[0].physical_resource_id
    assert scaling.adjust(st.id, "asg", -1) == 1
    alive = {s["id"] for s in _servers(sandbox)}
    assert oldest not in alive
    assert _outs(st)["size"] == 1
    stacks.delete_stack(CTX, st.name, st.id)


def test_instance_group_rolling_update_to_a_new_launch_configuration(
        db: Any, cloud_settings: Any, sandbox: Any) -> None:
    from app.services import updates

    def tmpl(flavor: str) -> dict[str, Any]:
        return {"heat_template_version": "2018-08-31", "resources": {
            "lc": {"type": "AWS::AutoScaling::LaunchConfiguration",
                   "properties": {"ImageId": "cirros", "InstanceType": flavor}},
            "grp": {"type": "OS::Heat::InstanceGroup",
                    "update_policy": {"RollingUpdate": {"MaxBatchSize": 1, "PauseTime": "PT0S"}},
                    "properties": {"AvailabilityZones": ["nova"], "Size": 2,
                                   "LaunchConfigurationName": {"get_resource": "lc"}}}}}
    st = stacks.create_stack(CTX, stack_name="igroll", template=tmpl("m1.tiny"))
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    names = sorted(r.name for r in _child_rows(st))
    updates.update_stack(CTX, st.name, st.id, template=tmpl("m1.small"))
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason
    rows = _child_rows(st)
    assert sorted(r.name for r in rows) == names  # the same members, updated
    assert {r.properties_data["InstanceType"] for r in rows} == {"m1.small"}
    with read_session() as s:
        child = s.execute(select(Stack).where(Stack.parent_id == st.id)).scalar_one()
        from app.models import Event
        child_updates = s.execute(select(Event).where(
            Event.stack_id == child.id, Event.resource_name == child.name,
            Event.action == "UPDATE", Event.status == "COMPLETE")).all()
    assert len(child_updates) == 2  # one batch per member
    stacks.delete_stack(CTX, st.name, st.id)
