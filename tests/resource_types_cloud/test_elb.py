"""AWS::ElasticLoadBalancing::LoadBalancer's checks, HAProxy configuration and stack user, as
Heat's loadbalancer.py (the nested stack with its group on a running system:
tests/integration/test_up_autoscaling.py). The stack here runs in-process with the CFN API
served on a free port, where the sandbox agent sends the HAProxy instance's cfn-signal."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from werkzeug.serving import make_server

from app import clients, config, errors
from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.resource_types import aws_elb
from app.services import signals, stacks

CTX = RequestContext(tenant_id="admin")


def template(instances: list[str], check: dict[str, Any] | None = None) -> dict[str, Any]:
    lb: dict[str, Any] = {"AvailabilityZones": ["nova"], "Instances": instances,
                          "Listeners": [{"LoadBalancerPort": 80, "InstancePort": 8080,
                                         "Protocol": "HTTP"}]}
    if check is not None:
        lb["HealthCheck"] = check
    return {"AWSTemplateFormatVersion": "2010-09-09",
            "Parameters": {"LbImageId": {"Type": "String", "Default": "cirros"},
                           "LbFlavor": {"Type": "String", "Default": "m1.tiny"}},
            "Resources": {
                "web0": {"Type": "AWS::EC2::Instance", "Properties": {
                    "ImageId": "cirros", "InstanceType": "m1.tiny"}},
                "web1": {"Type": "AWS::EC2::Instance", "Properties": {
                    "ImageId": "cirros", "InstanceType": "m1.tiny"}},
                "LB": {"Type": aws_elb.TYPE, "Properties": lb}},
            "Outputs": {"dns": {"Value": {"Fn::GetAtt": ["LB", "DNSName"]}},
                        "zone": {"Value": {"Fn::GetAtt": ["LB", "CanonicalHostedZoneName"]}},
                        "ref": {"Value": {"Ref": "LB"}}}}


def test_health_check_interval_below_timeout_is_refused(db: Any, cloud_settings: Any) -> None:
    check = {"HealthyThreshold": 3, "Interval": 5, "Target": "HTTP:80/", "Timeout": 10,
             "UnhealthyThreshold": 5}
    with pytest.raises(errors.ValidationError) as err:
        stacks.create_stack(CTX, stack_name="elb-bad", template=template([], check))
    assert "Interval must be larger than Timeout" in err.value.message


def test_haproxy_config_with_a_health_check_is_heats():
    props = {"Listeners": [{"LoadBalancerPort": 80, "InstancePort": 8080, "Protocol": "HTTP"}],
             "HealthCheck": {"HealthyThreshold": 3, "Interval": 30, "Target": "HTTP:80/",
                             "Timeout": 5, "UnhealthyThreshold": 5}}
    assert aws_elb.haproxy_config(props, ["10.0.0.3", "0.0.0.0"]) == (
        "\nglobal\n    daemon\n    maxconn 256\n    stats socket /tmp/.haproxy-stats\n\n"
        "defaults\n    mode http\n    timeout connect 5000ms\n    timeout client 50000ms\n"
        "    timeout server 50000ms\n\nfrontend http\n    bind *:80\n"
        "    default_backend servers\n\nbackend servers\n    balance roundrobin\n"
        "    option http-server-close\n    option forwardfor\n    option httpchk\n"
        "    timeout check 5s\n"
        "    server server1 10.0.0.3:8080 check inter 30s fall 5 rise 3\n"
        "    server server2 0.0.0.0:8080 check inter 30s fall 5 rise 3\n")


@pytest.fixture()
def with_cfn(cloud_settings: config.Settings) -> Iterator[config.Settings]:
    """``cloud_settings`` with the CFN API served on a free port (the wait handle's URL)."""
    from app import cfn
    server = make_server("127.0.0.1", 0, None, threaded=True)  # type: ignore[arg-type]
    s = cloud_settings.replace(cfn_port=server.server_port)
    server.app = cfn.create_app(s)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    config.set_current(s)
    clients.reset_cache()
    yield s
    server.shutdown()


def _rows(stack_id: str) -> dict[str, Resource]:
    with read_session() as s:
        return {r.name: r for r in s.execute(select(Resource).where(
            Resource.stack_id == stack_id)).scalars()}


def test_the_lb_stack_user_and_its_key_live_and_go_with_the_lb(
        db: Any, with_cfn: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Heat's lb_template_default: ``CfnLBUser`` (AWS::IAM::User) and ``CfnLBAccessKey`` (its
    AWS::IAM::AccessKey) beside the HAProxy instance, whose ``/etc/cfn/cfn-credentials`` holds
    the key's id and secret; deleting the stack deletes the keypair and the user (noauth's
    stack users: the calls Keystone would get), both rows DELETE_COMPLETE."""
    from app.clients.stack_users import LocalStackUsers
    deleted: list[tuple[str, ...]] = []
    monkeypatch.setattr(LocalStackUsers, "delete_keypair",
                        lambda self, user, project, cred: deleted.append(("key", user, cred)))
    monkeypatch.setattr(LocalStackUsers, "delete_user",
                        lambda self, user, project: deleted.append(("user", user)))
    st = stacks.create_stack(CTX, stack_name="elb-user", template=template([]))
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    child_id = _rows(st.id)["LB"].physical_resource_id
    rows = _rows(child_id)
    assert {n: r.type for n, r in rows.items()} == {
        "CfnLBUser": "AWS::IAM::User", "CfnLBAccessKey": "AWS::IAM::AccessKey",
        "LB_instance": "AWS::EC2::Instance", "latency_watcher": "AWS::CloudWatch::Alarm",
        "WaitHandle": "AWS::CloudFormation::WaitConditionHandle",
        "WaitCondition": "AWS::CloudFormation::WaitCondition"}
    assert {(r.action, r.status) for r in rows.values()} == {("CREATE", "COMPLETE")}
    user, key = rows["CfnLBUser"], rows["CfnLBAccessKey"]
    user_id = user.physical_resource_id
    assert user_id and user.rsrc_data["user_id"] == user_id
    assert key.rsrc_data["user_id"] == user_id
    access, secret = key.rsrc_data["access_key"], key.rsrc_data["secret_key"]
    assert key.physical_resource_id == access and secret and secret != "000-000-000"
    with read_session() as s:
        child = s.get(Stack, child_id)
    assert child is not None
    files = signals.metadata(CTX, child, "LB_instance")[
        "AWS::CloudFormation::Init"]["config"]["files"]
    assert files["/etc/cfn/cfn-credentials"] == {
        "content": f"AWSAccessKeyId={access}\nAWSSecretKey={secret}\n",
        "mode": "000400", "owner": "root", "group": "root"}
    hup = files["/etc/cfn/cfn-hup.conf"]["content"]
    assert hup == (f"[main]\nstack=arn:openstack:heat::admin:stacks/{child.name}/{child_id}\n"
                   "credential-file=/etc/cfn/cfn-credentials\nregion=ap-southeast-1\n"
                   "interval=60\n")  # AWS::Region: Heat's ap-southeast-1
    with read_session() as s:  # a template resource's reference: its child stack's ARN
        alarm = s.get(Stack, rows["latency_watcher"].physical_resource_id)
    assert alarm is not None
    assert files["/tmp/cfn-hup-crontab.txt"]["content"] == (
        'MAIL=""\n\n* * * * * /opt/aws/bin/cfn-hup -f\n* * * * * /opt/aws/bin/cfn-push-stats '
        f" --watch arn:openstack:heat::admin:stacks/{alarm.name}/{alarm.id} --haproxy\n")

    stacks.delete_stack(CTX, st.name, st.id)
    assert ("key", user_id, key.rsrc_data["credential_id"]) in deleted
    assert ("user", user_id) in deleted
    after = _rows(child_id)
    assert {(after[n].action, after[n].status) for n in ("CfnLBUser", "CfnLBAccessKey")} == \
        {("DELETE", "COMPLETE")}
    assert not {"access_key", "secret_key", "credential_id"} & set(after["CfnLBAccessKey"].rsrc_data)

