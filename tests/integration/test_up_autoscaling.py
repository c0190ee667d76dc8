"""Scaling webhooks on ``stoker up`` (embedded default, sandbox cloud), driven with
python-heatclient and plain HTTP as a user would, with ``examples/autoscaling.yaml``: a group of
1..3 sandbox servers; an unauthenticated POST to the up policy's ``alarm_url`` (the CFN port's
pre-signed ``/v1/signal``) grows it to 2; the URL with a changed signature is a 403 and leaves 2;
a signal to the down policy through the Orchestration API shrinks it to 1, the oldest server
removed; the sandbox's Aodh firing the OS::Aodh::Alarm (``PUT /sandbox/metrics``), whose
alarm_actions is the up policy's alarm_url, grows it to 2 again (Heat's signal_responder.py,
scaling_policy.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
import requests

from tests.fixtures.procs import stoker_up
from tests.fixtures.stacks import settled_members, wait_for
from tests.integration.test_up import home  # noqa: F401

pytestmark = pytest.mark.integration
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "autoscaling.yaml"


def _until(what: str, fn: Any, timeout: float = 150) -> Any:
    return wait_for(fn, timeout, 0.5, what)


def _members(heat: Any, stack_id: str) -> list[str] | None:
    """The group's servers oldest first once the group has settled, else None."""
    rows = settled_members(heat, stack_id)
    return None if rows is None else [r.resource_name for r in rows]


def _settled_at(heat: Any, stack_id: str, n: int) -> list[str]:
    return list(_until(f"{n} members", lambda: (m := _members(heat, stack_id)) is not None
                       and len(m) == n and m))


def test_alarm_url_api_signal_and_an_aodh_alarm_scale_the_example(home: Path) -> None:  # noqa: F811
    with stoker_up(home) as up:
        heat, log, sandbox_port = up.heat(), up.log, up.sandbox_port
        created = heat.stacks.create(stack_name="scaled", template=EXAMPLE.read_text())
        sid = created["stack"]["id"]
        stack = _until("the create", lambda: (s := heat.stacks.get(sid)) and
                       not s.stack_status.endswith("IN_PROGRESS") and s)
        assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason,
                                                          log.read_text()[-3000:])
        outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
        (first,) = _settled_at(heat, sid, 1)

        assert requests.post(outs["scale_up_url"], timeout=30).status_code == 200
        grown = _settled_at(heat, sid, 2)
        assert grown[0] == first

        parts = urlparse(outs["scale_up_url"])
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        query["Signature"] = ("A" if query["Signature"][0] != "A" else "B") + \
            query["Signature"][1:]
        resp = requests.post(parts._replace(query=urlencode(query)).geturl(), timeout=30)
        assert resp.status_code == 403 and "SignatureDoesNotMatch" in resp.text
        assert _members(heat, sid) == grown

        heat.resources.signal(sid, "scale_down", data={"current": "alarm"})
        left = _settled_at(heat, sid, 1)
        assert left == grown[1:] and first not in left

        fired = requests.put(f"http://127.0.0.1:{sandbox_port}/sandbox/metrics",
                             json={"metric": "cpu_util", "value": 95}, timeout=30)
        assert fired.status_code == 200, fired.text
        assert [a["state"] for a in fired.json()["alarms"]] == ["alarm"]
        again = _settled_at(heat, sid, 2)
        assert again[0] == left[0]
        reasons = [e.resource_status_reason for e in heat.events.list(sid, resource_name="scale_up")
                   if e.resource_status == "SIGNAL_COMPLETE"]
        assert sorted(reasons) == sorted([  # the bodiless POST, then Aodh's notification
            "No signal details provided",
            "alarm state changed from insufficient data to alarm (Transition to alarm due to 1 "
            "samples outside threshold, most recent: 95.0)"]), reasons
        # the parent's outputs follow once the group's resize step has finished after its child
        _until("size 2", lambda: {o["output_key"]: o["output_value"] for o in
                                  heat.stacks.get(sid).outputs}["size"] == 2)

        heat.stacks.delete(sid)
        _until("the delete", lambda: heat.stacks.get(sid).stack_status == "DELETE_COMPLETE", 90)


CFN_TEMPLATE = """
AWSTemplateFormatVersion: '2010-09-09'
Resources:
  Launch:
    Type: AWS::AutoScaling::LaunchConfiguration
    Properties: {ImageId: cirros, InstanceType: m1.tiny}
  Group:
    Type: AWS::AutoScaling::AutoScalingGroup
    Properties:
      AvailabilityZones: [nova]
      LaunchConfigurationName: {Ref: Launch}
      MinSize: '1'
      MaxSize: '3'
  ScaleUp:
    Type: AWS::AutoScaling::ScalingPolicy
    Properties:
      AdjustmentType: ChangeInCapacity
      AutoScalingGroupName: {Ref: Group}
      Cooldown: '0'
      ScalingAdjustment: '1'
  CPUHigh:
    Type: AWS::CloudWatch::Alarm
    Properties:
      MetricName: cpu_util
      Statistic: Average
      Period: '60'
      EvaluationPeriods: '1'
      Threshold: '80'
      ComparisonOperator: GreaterThanThreshold
      AlarmActions: [{Ref: ScaleUp}]
      Dimensions: [{Name: AutoScalingGroupName, Value: {Ref: Group}}]
"""


def test_a_cloudwatch_alarm_on_a_policys_reference_scales_an_aws_group(home: Path) -> None:  # noqa: F811
    """AWS::CloudWatch::Alarm (Heat's global template resource onto OS::Aodh::Alarm) whose
    AlarmActions is an AWS::AutoScaling::ScalingPolicy's reference, its pre-signed URL: the
    sandbox's cpu_util above the threshold grows the AWS::AutoScaling::AutoScalingGroup; a
    value below it (the alarm back to ok, no ok action) changes nothing."""
    with stoker_up(home) as up:
        heat, sandbox_port = up.heat(), up.sandbox_port
        sid = heat.stacks.create(stack_name="cw", template=CFN_TEMPLATE)["stack"]["id"]
        stack = _until("the create", lambda: (s := heat.stacks.get(sid)) and
                       not s.stack_status.endswith("IN_PROGRESS") and s)
        assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason,
                                                          up.log.read_text()[-3000:])
        alarm = heat.resources.get(sid, "CPUHigh")
        assert alarm.resource_type == "AWS::CloudWatch::Alarm"
        (inner,) = heat.resources.list(alarm.physical_resource_id)
        assert (inner.resource_name, inner.resource_type) == ("__alarm__", "OS::Aodh::Alarm")

        group_id = heat.resources.get(sid, "Group").physical_resource_id

        def size() -> int | None:
            """The group's instances once its child stack has settled."""
            if heat.stacks.get(group_id).stack_status.endswith("IN_PROGRESS"):
                return None
            rows = heat.resources.list(group_id)
            assert {r.resource_type for r in rows} == {"AWS::EC2::Instance"}
            return len(rows)
        assert size() == 1
        metrics = f"http://127.0.0.1:{sandbox_port}/sandbox/metrics"
        low = requests.put(metrics, json={"metric": "cpu_util", "value": 20}, timeout=30)
        assert [a["state"] for a in low.json()["alarms"]] == ["ok"]
        high = requests.put(metrics, json={"metric": "cpu_util", "value": 95}, timeout=30)
        assert [a["state"] for a in high.json()["alarms"]] == ["alarm"]
        _until("2 instances", lambda: size() == 2)
        # the sandbox records a notification once its answer is back, which can come after the
        # group it started has already grown (the signal's reply and the resize race)
        notified = f"http://127.0.0.1:{sandbox_port}/sandbox/notifications"
        sent = _until("the notification's answer", lambda: (
            n := requests.get(notified, timeout=30).json()["notifications"]) and n)
        assert [(n["url"].split("?")[0].split("/v1/")[1][:6], n["status"]) for n in sent] == \
            [("signal", 200)]
        heat.stacks.delete(sid)
        _until("the delete", lambda: heat.stacks.get(sid).stack_status == "DELETE_COMPLETE", 90)


ELB_TEMPLATE = """
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  LbImageId: {Type: String, Default: cirros}
  LbFlavor: {Type: String, Default: m1.tiny}
Resources:
  LB:
    Type: AWS::ElasticLoadBalancing::LoadBalancer
    Properties:
      AvailabilityZones: [nova]
      Listeners: [{LoadBalancerPort: 80, InstancePort: 8080, Protocol: HTTP}]
  Launch:
    Type: AWS::AutoScaling::LaunchConfiguration
    Properties: {ImageId: cirros, InstanceType: m1.tiny}
  Group:
    Type: AWS::AutoScaling::AutoScalingGroup
    Properties:
      AvailabilityZones: [nova]
      LaunchConfigurationName: {Ref: Launch}
      MinSize: '1'
      MaxSize: '3'
      LoadBalancerNames: [{Ref: LB}]
  ScaleUp:
    Type: AWS::AutoScaling::ScalingPolicy
    Properties:
      AdjustmentType: ChangeInCapacity
      AutoScalingGroupName: {Ref: Group}
      Cooldown: '0'
      ScalingAdjustment: '1'
Outputs:
  dns: {Value: {'Fn::GetAtt': [LB, DNSName]}}
  zone: {Value: {'Fn::GetAtt': [LB, CanonicalHostedZoneName]}}
  lb: {Value: {Ref: LB}}
  up: {Value: {Ref: ScaleUp}}
"""


def test_an_elb_is_an_haproxy_instance_reloaded_when_its_group_scales(home: Path) -> None:  # noqa: F811
    """AWS::ElasticLoadBalancing::LoadBalancer as Heat's loadbalancer.py: a nested stack whose
    HAProxy instance (booted from the parent's LbImageId, Heat's magic parameter) signals its
    wait condition from its user data (the sandbox agent runs the cfn-signal); DNSName is the
    instance's PublicIp, the hosted zone "", Ref the name; the AWS group's LoadBalancerNames
    get its instances after its create and after a scaling (Heat's _lb_reload): one, then two
    server lines in haproxy.cfg."""
    import openstack
    with stoker_up(home) as up:
        heat = up.heat()
        sid = heat.stacks.create(stack_name="elb", template=ELB_TEMPLATE)["stack"]["id"]
        stack = _until("the create", lambda: (s := heat.stacks.get(sid)) and
                       not s.stack_status.endswith("IN_PROGRESS") and s)
        assert stack.stack_status == "CREATE_COMPLETE", (stack.stack_status_reason,
                                                          up.log.read_text()[-3000:])
        lb_child = heat.resources.get(sid, "LB").physical_resource_id
        rows = {r.resource_name: r for r in heat.resources.list(lb_child)}
        assert {n: r.resource_type for n, r in rows.items()} == {
            "LB_instance": "AWS::EC2::Instance",
            "WaitHandle": "AWS::CloudFormation::WaitConditionHandle",
            "WaitCondition": "AWS::CloudFormation::WaitCondition",
            "latency_watcher": "AWS::CloudWatch::Alarm",
            "CfnLBUser": "AWS::IAM::User", "CfnLBAccessKey": "AWS::IAM::AccessKey"}
        assert rows["WaitCondition"].resource_status == "CREATE_COMPLETE"
        outs = {o["output_key"]: o["output_value"] for o in stack.outputs}
        lb_ip = heat.resources.get(lb_child, "LB_instance").attributes["PublicIp"]
        assert outs["dns"] == lb_ip and outs["zone"] == "" and outs["lb"] == "LB"
        cloud = openstack.connection.Connection(
            auth_url=f"http://127.0.0.1:{up.sandbox_port}/identity/v3", username="admin",
            password="sandbox", project_name="admin", user_domain_id="default",
            project_domain_id="default", region_name="RegionOne")
        image = cloud.compute.get_server(rows["LB_instance"].physical_resource_id).image
        assert cloud.image.get_image(image["id"]).name == "cirros"

        group_id = heat.resources.get(sid, "Group").physical_resource_id

        def config(n: int) -> str | None:
            if heat.stacks.get(lb_child).stack_status.endswith("IN_PROGRESS"):
                return None
            files = heat.resources.metadata(lb_child, "LB_instance")[
                "AWS::CloudFormation::Init"]["config"]["files"]
            text = str(files["/etc/haproxy/haproxy.cfg"]["content"])
            return text if text.count("    server server") == n else None

        def addresses() -> list[str]:
            members = sorted(heat.resources.list(group_id), key=lambda r: r.creation_time)
            return [next(a["addr"] for net in cloud.compute.get_server(
                m.physical_resource_id).addresses.values() for a in net) for m in members]
        # the group's create reloaded the load balancer with its one instance
        text = _until("the load balancer loaded", lambda: config(1))
        (first,) = addresses()
        assert text.endswith(f"    server server1 {first}:8080\n"), text

        assert requests.post(outs["up"], timeout=30).status_code == 200
        text = _until("the load balancer reloaded", lambda: config(2))
        ips = addresses()
        assert ips[0] == first
        assert text.endswith(f"    server server1 {ips[0]}:8080\n"
                             f"    server server2 {ips[1]}:8080\n"), text
        assert heat.resources.get(lb_child, "LB_instance").physical_resource_id == \
            rows["LB_instance"].physical_resource_id  # reconfigured in place
        heat.stacks.delete(sid)
        _until("the delete", lambda: heat.stacks.get(sid).stack_status == "DELETE_COMPLETE", 90)
