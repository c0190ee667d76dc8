"""AWS::ElasticLoadBalancing::LoadBalancer, as Heat's heat/engine/resources/aws/lb/loadbalancer.py
realises it: a nested stack of an HAProxy ``AWS::EC2::Instance`` listing the ``Instances``'
addresses, a wait condition its user data signals once HAProxy runs, and a latency alarm.
An update of ``Instances`` updates the child; ``DNSName`` is the instance's ``PublicIp``, the
other attributes ``""`` (Heat's), the reference id the resource's name.

More in docs/code/resource_types.md (app.resource_types.aws_elb).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types import schema as s
from app.resource_types.base import Resource

TYPE = "AWS::ElasticLoadBalancing::LoadBalancer"
#: parameters of the parent stack that reach the child (Heat's ``child_params``)
MAGIC_PARAMS = ("KeyName", "LbFlavor", "LBTimeout", "LbImageId")
ATTRIBUTES = ("CanonicalHostedZoneName", "CanonicalHostedZoneNameID", "DNSName",
              "SourceSecurityGroup.GroupName", "SourceSecurityGroup.OwnerAlias")


def _int(text: str, required: bool = True) -> dict[str, Any]:
    return s.prop("integer", text, required=required)


_HEALTH = {
    "HealthyThreshold": _int("Consecutive successes before an instance is healthy."),
    "Interval": _int("Seconds between the checks of one instance."),
    "Target": s.prop("string", "The port being checked.", required=True),
    "Timeout": _int("Health probe timeout, in seconds."),
    "UnhealthyThreshold": _int("Consecutive failures before an instance is unhealthy."),
}
_LISTENER = {
    "InstancePort": _int("The instances' TCP port."),
    "LoadBalancerPort": _int("The load balancer's external port."),
    "Protocol": s.prop("string", "The transport protocol.", required=True,
                       constraints=[s.allowed_values(["TCP", "HTTP"])]),
    "SSLCertificateId": s.prop("string", "Not implemented (as Heat's)."),
    "PolicyNames": s.prop("list", "Not implemented (as Heat's)."),
}


def haproxy_config(props: Mapping[str, Any], addresses: list[str]) -> str:
    """The ``haproxy.cfg`` Heat writes (``_haproxy_config``): one frontend on the first
    listener's port, a round-robin backend of ``addresses`` on its instance port, with the
    health check's ``timeout check`` / ``check inter .. fall .. rise ..`` when given."""
    listener = props["Listeners"][0]
    check = props.get("HealthCheck")
    out = ["", "global", "    daemon", "    maxconn 256", "    stats socket /tmp/.haproxy-stats",
           "", "defaults", "    mode http", "    timeout connect 5000ms",
           "    timeout client 50000ms", "    timeout server 50000ms", "",
           "frontend http", f"    bind *:{listener['LoadBalancerPort']}",
           "    default_backend servers", "", "backend servers", "    balance roundrobin",
           "    option http-server-close", "    option forwardfor", "    option httpchk"]
    out.append(f"    timeout check {int(check['Timeout'])}s" if check else "")
    rule = (f" check inter {check['Interval']}s fall {check['UnhealthyThreshold']} rise "
            f"{check['HealthyThreshold']}") if check else ""
    servers = [f"    server server{n} {ip}:{listener['InstancePort']}{rule}"
               for n, ip in enumerate(addresses, 1)]
    return "\n".join(out) + "\n" + "\n".join(servers) + "\n"


#: the image of the HAProxy instance when the parent's stack passes no ``LbImageId``
DEFAULT_LB_IMAGE = "Fedora-Cloud-Base-20141203-21.x86_64"


def _root_file(parts: list[Any], mode: str = "000400") -> dict[str, Any]:
    return {"content": {"Fn::Join": ["", parts]}, "mode": mode, "owner": "root",
            "group": "root"}


def _cfn_files() -> dict[str, Any]:
    """The instance's cfn-hup files of Heat's ``lb_template_default``: the credentials of
    ``CfnLBAccessKey`` (``AWSAccessKeyId`` its reference, ``AWSSecretKey`` its
    ``SecretAccessKey``), cfn-hup's configuration and hooks (cfn-init and an HAProxy reload on
    ``post.update`` of the instance's metadata) and the crontab running cfn-hup and
    cfn-push-stats on ``latency_watcher``."""
    stack, region = {"Ref": "AWS::StackId"}, {"Ref": "AWS::Region"}
    hook = "triggers=post.update\npath=Resources.LB_instance.Metadata\n"
    return {
        "/etc/cfn/cfn-credentials": _root_file([
            "AWSAccessKeyId=", {"Ref": "CfnLBAccessKey"}, "\n",
            "AWSSecretKey=", {"Fn::GetAtt": ["CfnLBAccessKey", "SecretAccessKey"]}, "\n"]),
        "/etc/cfn/cfn-hup.conf": _root_file([
            "[main]\n", "stack=", stack, "\n",
            "credential-file=/etc/cfn/cfn-credentials\n", "region=", region, "\n",
            "interval=60\n"]),
        "/etc/cfn/hooks.conf": _root_file([
            "[cfn-init]\n", hook, "action=/opt/aws/bin/cfn-init -s ", stack,
            "    -r LB_instance ", "    --region ", region, "\n", "runas=root\n", "\n",
            "[reload]\n", hook, "action=systemctl reload-or-restart haproxy.service\n",
            "runas=root\n"]),
        "/tmp/cfn-hup-crontab.txt": _root_file([
            "MAIL=\"\"\n", "\n", "* * * * * /opt/aws/bin/cfn-hup -f\n",
            "* * * * * /opt/aws/bin/cfn-push-stats ", " --watch ",
            {"Ref": "latency_watcher"}, " --haproxy\n"], mode="000600"),
    }


def child_template(props: Mapping[str, Any], parent_params: Mapping[str, Any],
                   addresses: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(template, parameters)`` of the load balancer's child stack (see module doc);
    ``addresses``: the ``Instances``' IP addresses, in order."""
    text: dict[str, Any] = {"Type": "String"}
    tmpl: dict[str, Any] = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": "The HAProxy instance of an AWS::ElasticLoadBalancing::LoadBalancer.",
        "Parameters": {
            "KeyName": dict(text),
            "LbImageId": {**text, "Default": DEFAULT_LB_IMAGE},
            "LbFlavor": {**text, "Default": "m1.small"},
            "LBTimeout": {**text, "Default": "600"},
            "SecurityGroups": {"Type": "CommaDelimitedList", "Default": []}},
        "Resources": {
            "latency_watcher": {"Type": "AWS::CloudWatch::Alarm", "Properties": {
                "MetricName": "Latency", "Namespace": "AWS/ELB", "Statistic": "Average",
                "Period": "60", "EvaluationPeriods": "1", "Threshold": "2",
                "AlarmActions": [], "ComparisonOperator": "GreaterThanThreshold"}},
            "CfnLBUser": {"Type": "AWS::IAM::User"},
            "CfnLBAccessKey": {"Type": "AWS::IAM::AccessKey",
                               "Properties": {"UserName": {"Ref": "CfnLBUser"}}},
            "LB_instance": {
                "Type": "AWS::EC2::Instance",
                "Metadata": {"AWS::CloudFormation::Init": {"config": {
                    "packages": {"yum": {"haproxy": [], "socat": []}},
                    "services": {"systemd": {"crond": {"enabled": "true",
                                                       "ensureRunning": "true"}}},
                    "files": {**_cfn_files(), "/etc/haproxy/haproxy.cfg": {
                        "content": haproxy_config(props, addresses) if props.get("Instances")
                        else "", "mode": "000644", "owner": "root", "group": "root"}}}}},
                "Properties": {
                    "ImageId": {"Ref": "LbImageId"}, "InstanceType": {"Ref": "LbFlavor"},
                    "KeyName": {"Ref": "KeyName"}, "SecurityGroups": {"Ref": "SecurityGroups"},
                    "UserData": {"Fn::Base64": {"Fn::Join": ["", [
                        "#!/bin/bash -v\n",
                        "function error_exit\n{\n  /opt/aws/bin/cfn-signal -e 1 -r \"$1\" '",
                        {"Ref": "WaitHandle"}, "'\n  exit 1\n}\n",
                        "/opt/aws/bin/cfn-init -s ", {"Ref": "AWS::StackId"},
                        " -r LB_instance --region ", {"Ref": "AWS::Region"},
                        " || error_exit 'Failed to run cfn-init'\n",
                        "systemctl reload-or-restart haproxy.service\n",
                        "/opt/aws/bin/cfn-signal -e 0 -r \"LB server setup complete\" '",
                        {"Ref": "WaitHandle"}, "'\n"]]}}}},
            "WaitHandle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
            "WaitCondition": {"Type": "AWS::CloudFormation::WaitCondition",
                              "DependsOn": "LB_instance",
                              "Properties": {"Handle": {"Ref": "WaitHandle"},
                                             "Timeout": {"Ref": "LBTimeout"}}}},
        "Outputs": {"PublicIp": {"Value": {"Fn::GetAtt": ["LB_instance", "PublicIp"]},
                                 "Description": "instance IP"}},
    }
    if "KeyName" not in parent_params:  # Heat: no key unless the parent stack has one
        del tmpl["Resources"]["LB_instance"]["Properties"]["KeyName"]
        del tmpl["Parameters"]["KeyName"]
    params: dict[str, Any] = {"SecurityGroups": list(props.get("SecurityGroups") or [])}
    params.update({k: parent_params[k] for k in MAGIC_PARAMS if k in parent_params})
    return tmpl, params


def attribute(name: str, outputs: Mapping[str, Any]) -> Any:
    """Heat's ``_resolve_attribute``: ``DNSName`` the child's ``PublicIp`` output, the
    others ``""``. :raises errors.ValidationError: an unknown attribute."""
    if name == "DNSName":
        return outputs.get("PublicIp")
    if name in ATTRIBUTES:
        return ""
    raise errors.ValidationError(f"The Referenced Attribute ({TYPE} {name}) is incorrect.")


class LoadBalancer(Resource):
    """Heat's ``AWS::ElasticLoadBalancing::LoadBalancer`` (see module doc)."""

    type_name = TYPE
    nested_kind = "stack"
    nested_stack: ClassVar[bool] = True
    support_status = s.support_status(None)
    properties_schema = {
        "AvailabilityZones": s.prop("list", "The Availability Zones of the load balancer.",
                                    required=True),
        "HealthCheck": s.prop("map", "An application health check for the instances.",
                              schema=_HEALTH),
        "Instances": s.prop("list", "The ids of the instances load balanced.",
                            update_allowed=True),
        "Listeners": s.prop("list", "One or more listeners.", required=True,
                            schema=s.list_of(s.prop("map", "A listener.", schema=_LISTENER))),
        "SecurityGroups": s.prop("list", "Security groups of the load balancer.",
                                 update_allowed=True),
    }
    attributes_schema = {name: s.attr(f"The load balancer's {name}.", "string")
                         for name in ATTRIBUTES}

    def validate(self) -> None:
        """Heat's ``LoadBalancer.validate``.

        :raises errors.ValidationError: the health check's ``Interval`` below its
            ``Timeout`` (Heat's ``{'Error': 'Interval must be larger than Timeout'}``)."""
        check = self.properties.get("HealthCheck")
        if isinstance(check, dict) and isinstance(check.get("Interval"), (int, float)) and \
                isinstance(check.get("Timeout"), (int, float)) and \
                float(check["Interval"]) < float(check["Timeout"]):
            raise errors.ValidationError("{'Error': 'Interval must be larger than Timeout'}")

    def addresses(self) -> list[str]:
        """The ``Instances``' first IP addresses (``0.0.0.0`` for one without, as Heat's
        ``server_to_ipaddress`` fallback). :raises errors.CloudError: the cloud failed."""
        out = []
        for server_id in self.properties.get("Instances") or []:
            server = self.clients.cloud().compute.get_server(server_id)
            ips = [a.get("addr") for net in (server.addresses or {}).values() for a in net]
            out.append(str(ips[0]) if ips and ips[0] else "0.0.0.0")
        return out

    def child_source(self, parent_params: Mapping[str, Any]
                     ) -> tuple[dict[str, Any], dict[str, Any], int | None]:
        """``(template, parameters, timeout_mins)`` of the child stack, the addresses read
        from the cloud. :raises errors.CloudError: as :meth:`addresses`."""
        tmpl, params = child_template(self.properties, parent_params,
                                      self.addresses() if self.properties.get("Instances")
                                      else [])
        return copy.deepcopy(tmpl), params, None

    def get_reference_id(self) -> str:
        return str(self.name)


def resource_mapping() -> dict[str, type[Resource]]:
    return {TYPE: LoadBalancer}
