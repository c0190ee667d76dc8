"""Heat 27's schemas of the aodh resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.aodh``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Aodh::Alarm ---------------------------------------------------------------------------
ALARM_PROPERTIES: dict[str, Any] = {
    "alarm_actions": s.prop("list", "URLs to call when the alarm fires.", update_allowed=True),
    "alarm_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm fires.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "comparison_operator": s.prop(
        "string",
        "Operator comparing the statistic with the threshold.",
        update_allowed=True,
        constraints=[s.allowed_values(["le", "ge", "eq", "lt", "gt", "ne"])],
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "evaluation_periods": s.prop("integer", "Periods to evaluate.", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "matching_metadata": s.prop("map", "Metadata the samples must match.", default={}, update_allowed=True),
    "meter_name": s.prop("string", "Meter to watch.", required=True),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": s.prop(
        "list",
        "Zaqar queues notified on ok.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "period": s.prop("integer", "Period in seconds.", update_allowed=True),
    "query": s.prop(
        "list",
        "Query filtering the samples or resources.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "field": s.prop("string", "Field to filter on."),
                    "op": s.prop(
                        "string",
                        "Comparison operator.",
                        constraints=[s.allowed_values(["le", "ge", "eq", "lt", "gt", "ne"])],
                    ),
                    "type": s.prop(
                        "string",
                        "Type.",
                        default="string",
                        constraints=[s.allowed_values(["integer", "float", "string", "boolean", "datetime"])],
                    ),
                    "value": s.prop("string", "Value."),
                },
            )
        ),
    ),
    "repeat_actions": s.prop(
        "boolean", "Repeat actions while the state holds.", default="true", update_allowed=True
    ),
    "severity": s.prop(
        "string",
        "Severity of the alarm.",
        default="low",
        update_allowed=True,
        constraints=[s.allowed_values(["low", "moderate", "critical"])],
    ),
    "statistic": s.prop(
        "string",
        "Statistic to evaluate.",
        update_allowed=True,
        constraints=[s.allowed_values(["count", "avg", "sum", "min", "max"])],
    ),
    "threshold": s.prop("number", "Threshold to compare with.", required=True, update_allowed=True),
    "time_constraints": s.prop(
        "list",
        "When the alarm is evaluated.",
        default=[],
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "duration": s.prop(
                        "integer", "Duration in seconds.", required=True, constraints=[s.value_range(min=0)]
                    ),
                    "name": s.prop(
                        "string",
                        "Name of the resource in the cloud (default: a generated physical name).",
                        required=True,
                    ),
                    "start": s.prop(
                        "string",
                        "First address of the range.",
                        required=True,
                        constraints=[s.custom_constraint("cron_expression")],
                    ),
                    "timezone": s.prop(
                        "string",
                        "Time zone of the constraint.",
                        constraints=[s.custom_constraint("timezone")],
                    ),
                },
            )
        ),
    ),
}
ALARM_ATTRIBUTES: dict[str, Any] = {}
ALARM_SUPPORT = s.support_status(
    "10.0.0",
    "DEPRECATED",
    message="Theshold alarm relies on ceilometer-api and has been deprecated in aodh since Ocata. Use OS::Aodh::GnocchiAggregationByResourcesAlarm instead.",
    previous_status=s.support_status("2014.1"),
)

# ---- OS::Aodh::GnocchiAggregationByResourcesAlarm ----------------------------------------------
GNOCCHI_AGGREGATION_BY_RESOURCES_ALARM_PROPERTIES: dict[str, Any] = {
    "aggregation_method": s.prop("string", "Aggregation method.", update_allowed=True),
    "alarm_actions": s.prop("list", "URLs to call when the alarm fires.", update_allowed=True),
    "alarm_queues": ALARM_PROPERTIES["alarm_queues"],  # the same property as the threshold alarm
    "comparison_operator": s.prop(
        "string",
        "Operator comparing the statistic with the threshold.",
        update_allowed=True,
        constraints=[s.allowed_values(["le", "ge", "eq", "lt", "gt", "ne"])],
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "evaluation_periods": s.prop("integer", "Periods to evaluate.", update_allowed=True),
    "granularity": s.prop("integer", "Granularity in seconds.", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": ALARM_PROPERTIES["insufficient_data_queues"],  # the same property as the threshold alarm
    "metric": s.prop("string", "Metric to watch.", required=True, update_allowed=True),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": ALARM_PROPERTIES["ok_queues"],  # the same property as the threshold alarm
    "query": s.prop(
        "string", "Query filtering the samples or resources.", required=True, update_allowed=True
    ),
    "repeat_actions": s.prop(
        "boolean", "Repeat actions while the state holds.", default="true", update_allowed=True
    ),
    "resource_type": s.prop("string", "Gnocchi resource type.", required=True, update_allowed=True),
    "severity": s.prop(
        "string",
        "Severity of the alarm.",
        default="low",
        update_allowed=True,
        constraints=[s.allowed_values(["low", "moderate", "critical"])],
    ),
    "threshold": s.prop("number", "Threshold to compare with.", required=True, update_allowed=True),
    "time_constraints": ALARM_PROPERTIES["time_constraints"],  # the same property as the threshold alarm
}
GNOCCHI_AGGREGATION_BY_RESOURCES_ALARM_ATTRIBUTES: dict[str, Any] = {}
GNOCCHI_AGGREGATION_BY_RESOURCES_ALARM_SUPPORT = s.support_status("2015.1")
