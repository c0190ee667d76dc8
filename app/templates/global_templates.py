"""The provider templates of Heat's global environment (``etc/heat/environment.d/default.yaml``
maps ``AWS::CloudWatch::Alarm`` to ``file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml``, and
``AWS::RDS::DBInstance`` to ``.../AWS_RDS_DBInstance.yaml``):
Heat fetches them from its own disk; Stoker holds them here, keyed by the same URLs, below a
stack's ``files`` map (a stack that supplies the URL itself wins, as Heat reads ``files`` first).

``AWS::CloudWatch::Alarm`` is a template resource whose child stack has one ``OS::Aodh::Alarm``,
``__alarm__`` (Heat's name): ``ComparisonOperator`` and ``Statistic`` are mapped to Aodh's
(``GreaterThanThreshold`` -> ``gt``, ``Average`` -> ``avg``...), ``repeat_actions`` is true,
``Dimensions`` (``[{Name, Value}]``, passed to the child as Heat's ``.member.N.Name=...`` list)
become ``matching_metadata``. Its properties are the template's parameters (all strings, the
actions and dimensions comma-delimited lists), as Heat's TemplateResource makes them.
"""
from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

CLOUDWATCH_ALARM_URL = "file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml"

_UNITS = ["Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes",
          "Gigabytes", "Terabytes", "Bits", "Kilobits", "Megabits", "Gigabits", "Terabits",
          "Percent", "Count", "Bytes/Second", "Kilobytes/Second", "Megabytes/Second",
          "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second",
          "Megabits/Second", "Gigabits/Second", "Terabits/Second", "Count/Second", "None"]
_OPERATORS = {"GreaterThanOrEqualToThreshold": "ge", "GreaterThanThreshold": "gt",
              "LessThanThreshold": "lt", "LessThanOrEqualToThreshold": "le"}
_STATISTICS = {"SampleCount": "count", "Average": "avg", "Sum": "sum", "Minimum": "min",
               "Maximum": "max"}


def _cloudwatch_alarm() -> dict[str, Any]:
    def text(default: str | None = None, allowed: list[str] | None = None) -> dict[str, Any]:
        p: dict[str, Any] = {"Type": "String"}
        if default is not None:
            p["Default"] = default
        if allowed is not None:
            p["AllowedValues"] = allowed
        return p

    def actions() -> dict[str, Any]:
        return {"Type": "CommaDelimitedList", "Default": ""}

    return {
        "HeatTemplateFormatVersion": "2012-12-12",
        "Description": "AWS::CloudWatch::Alarm as an Aodh alarm.",
        "Parameters": {
            "AlarmDescription": text("An alarm"), "EvaluationPeriods": text(),
            "MetricName": text(), "Namespace": text("system/linux"), "Period": text(),
            "ComparisonOperator": text(allowed=list(_OPERATORS)),
            "Statistic": text(allowed=list(_STATISTICS)), "Threshold": text(),
            "Units": text("None", _UNITS), "AlarmActions": actions(), "OKActions": actions(),
            "InsufficientDataActions": actions(), "Dimensions": actions()},
        "Mappings": {
            "ComparisonOperatorMap": {k: {"Aodh": v} for k, v in _OPERATORS.items()},
            "StatisticMap": {k: {"Aodh": v} for k, v in _STATISTICS.items()}},
        "Resources": {"__alarm__": {"Type": "OS::Aodh::Alarm", "Properties": {
            "description": {"Ref": "AlarmDescription"},
            "meter_name": {"Ref": "MetricName"},
            "period": {"Ref": "Period"},
            "evaluation_periods": {"Ref": "EvaluationPeriods"},
            "repeat_actions": True,
            "threshold": {"Ref": "Threshold"},
            "alarm_actions": {"Ref": "AlarmActions"},
            "ok_actions": {"Ref": "OKActions"},
            "insufficient_data_actions": {"Ref": "InsufficientDataActions"},
            "statistic": {"Fn::FindInMap": ["StatisticMap", {"Ref": "Statistic"}, "Aodh"]},
            "comparison_operator": {"Fn::FindInMap": ["ComparisonOperatorMap",
                                                      {"Ref": "ComparisonOperator"}, "Aodh"]},
            "matching_metadata": {"Fn::MemberListToMap": ["Name", "Value",
                                                          {"Ref": "Dimensions"}]}}}},
    }


RDS_DBINSTANCE_URL = "file:///etc/heat/templates/AWS_RDS_DBInstance.yaml"
#: RDS instance class -> the Nova flavor of its server (Heat's DBInstanceToInstance mapping)
_DB_CLASSES = {"db.m1.small": "m1.small", "db.m1.large": "m1.large",
               "db.m1.xlarge": "m1.xlarge", "db.m2.xlarge": "m2.xlarge",
               "db.m2.2xlarge": "m2.2xlarge", "db.m2.4xlarge": "m2.4xlarge"}
#: the server's boot script: cfn-init writes the SQL file, MySQL gets its root password and the
#: database, and the wait condition is told (a failure signals it with exit code 1)
_DB_SCRIPT = """#!/bin/bash -v
fail() {
  /opt/aws/bin/cfn-signal -e 1 -r "$1" 'WaitHandle'
  exit 1
}
/opt/aws/bin/cfn-init -s AWS::StackName -r DatabaseInstance --region AWS::Region || fail 'cfn-init failed'
mysqladmin -u root password 'MasterUserPassword'
mysql -u root --password='MasterUserPassword' < /tmp/db_setup.sql || fail 'database setup failed'
/opt/aws/bin/cfn-signal -e 0 -r "MySQL server setup complete" 'WaitHandle'
"""
_DB_SQL = """CREATE DATABASE DBName;
GRANT ALL PRIVILEGES ON DBName.* TO "MasterUsername"@"%" IDENTIFIED BY "MasterUserPassword";
FLUSH PRIVILEGES;
EXIT
"""


def _rds_dbinstance() -> dict[str, Any]:
    """AWS::RDS::DBInstance as Heat's global template builds it: a security group (ICMP, SSH and
    the database port), an AWS::EC2::Instance of the class's flavor whose boot script sets MySQL
    up with cfn-init and signals a wait condition (600 s), outputs ``Endpoint.Address`` (the
    instance's PublicIp) and ``Endpoint.Port``. Properties are the template's parameters."""
    def text(**extra: Any) -> dict[str, Any]:
        return {"Type": "String", **extra}

    def port(start: Any) -> dict[str, Any]:
        return {"IpProtocol": "tcp", "FromPort": start, "ToPort": start, "CidrIp": "0.0.0.0/0"}

    user = {"Ref": "MasterUsername"}
    password = {"Ref": "MasterUserPassword"}
    return {
        "HeatTemplateFormatVersion": "2012-12-12",
        "Description": "AWS::RDS::DBInstance as a MySQL server.",
        "Parameters": {
            "AllocatedStorage": text(), "DBInstanceClass": text(), "DBName": text(),
            "DBSecurityGroups": {"Type": "CommaDelimitedList", "Default": ""},
            "Engine": text(AllowedValues=["MySQL"]), "MasterUsername": text(),
            "MasterUserPassword": text(), "Port": text(Default="3306"),
            "KeyName": text(Default="")},
        "Mappings": {"DBInstanceToInstance": {k: {"Instance": v}
                                              for k, v in _DB_CLASSES.items()}},
        "Resources": {
            "ServerSecurityGroup": {"Type": "AWS::EC2::SecurityGroup", "Properties": {
                "GroupDescription": "Enable SSH access",
                "SecurityGroupIngress": [
                    {"IpProtocol": "icmp", "FromPort": "-1", "ToPort": "-1",
                     "CidrIp": "0.0.0.0/0"},
                    port("22"), port({"Ref": "Port"})]}},
            "DatabaseInstance": {
                "Type": "AWS::EC2::Instance",
                "Metadata": {"AWS::CloudFormation::Init": {"config": {
                    "files": {"/tmp/db_setup.sql": {
                        "content": {"Fn::Replace": [
                            {"DBName": {"Ref": "DBName"}, "MasterUserPassword": password,
                             "MasterUsername": user}, _DB_SQL]},
                        "mode": "000644", "owner": "root", "group": "root"}},
                    "packages": {"yum": {"mariadb": [], "mariadb-server": []}},
                    "services": {"systemd": {"mysqld": {"enabled": True,
                                                        "ensureRunning": True}}}}}},
                "Properties": {
                    "ImageId": "F19-x86_64-cfntools",
                    "InstanceType": {"Fn::FindInMap": ["DBInstanceToInstance",
                                                       {"Ref": "DBInstanceClass"}, "Instance"]},
                    "KeyName": {"Ref": "KeyName"},
                    "SecurityGroups": [{"Ref": "ServerSecurityGroup"}],
                    "UserData": {"Fn::Base64": {"Fn::Replace": [
                        {"AWS::StackName": {"Ref": "AWS::StackName"},
                         "AWS::Region": {"Ref": "AWS::Region"},
                         "MasterUserPassword": password, "WaitHandle": {"Ref": "WaitHandle"}},
                        _DB_SCRIPT]}}}},
            "WaitHandle": {"Type": "AWS::CloudFormation::WaitConditionHandle"},
            "WaitCondition": {"Type": "AWS::CloudFormation::WaitCondition",
                              "DependsOn": "DatabaseInstance",
                              "Properties": {"Handle": {"Ref": "WaitHandle"}, "Timeout": "600"}}},
        "Outputs": {
            "Endpoint.Address": {"Value": {"Fn::GetAtt": ["DatabaseInstance", "PublicIp"]}},
            "Endpoint.Port": {"Value": {"Ref": "Port"}}},
    }


#: global type -> the provider template's URL (Heat's global resource_registry entries)
ENTRIES: Mapping[str, str] = MappingProxyType({"AWS::CloudWatch::Alarm": CLOUDWATCH_ALARM_URL,
                                               "AWS::RDS::DBInstance": RDS_DBINSTANCE_URL})
#: URL -> the template (a mapping, as a files-map entry that was parsed)
TEMPLATES: Mapping[str, Any] = MappingProxyType({CLOUDWATCH_ALARM_URL: _cloudwatch_alarm(),
                                                 RDS_DBINSTANCE_URL: _rds_dbinstance()})


def provider(files: Mapping[str, Any], key: str) -> Any:
    """The provider template ``key``: the stack's ``files`` entry, else the global one.

    :raises KeyError: neither has it."""
    if key in files:
        return files[key]
    return TEMPLATES[key]


def has(files: Mapping[str, Any], key: str) -> bool:
    """Whether :func:`provider` finds ``key``."""
    return key in files or key in TEMPLATES


def child_params(props: Mapping[str, Any]) -> dict[str, Any]:
    """A template resource's properties as its child stack's parameters, as Heat's
    ``TemplateResource.child_params``: a list of maps becomes the comma-joined
    ``.member.<i>.<key>=<value>`` strings (what ``Fn::MemberListToMap`` reads); everything
    else is passed unchanged."""
    out: dict[str, Any] = {}
    for name, value in props.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            out[name] = ",".join(f".member.{i}.{k}={v}" for i, item in enumerate(value)
                                 for k, v in item.items())
        else:
            out[name] = value
    return out
