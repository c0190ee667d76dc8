"""The provider templates of Heat's global environment (``etc/heat/environment.d/default.yaml``
maps ``AWS::CloudWatch::Alarm`` to ``file:///etc/heat/templates/AWS_CloudWatch_Alarm.yaml``):
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


#: global type -> the provider template's URL (Heat's global resource_registry entries)
ENTRIES: Mapping[str, str] = MappingProxyType({"AWS::CloudWatch::Alarm": CLOUDWATCH_ALARM_URL})
#: URL -> the template (a mapping, as a files-map entry that was parsed)
TEMPLATES: Mapping[str, Any] = MappingProxyType({CLOUDWATCH_ALARM_URL: _cloudwatch_alarm()})


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
