"""Heat 27's schemas of the Gnocchi alarm types (GnocchiResourcesAlarm, GnocchiAggregationByMetricsAlarm),
as ``resource_types.json`` records them (names, types, defaults, required, update_allowed,
immutable, constraints), with our own descriptions. Data only; the plugins are in
``app.resource_types.aodh_more``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Aodh::GnocchiResourcesAlarm -----------------------------------------------------------
GNOCCHI_RESOURCES_ALARM_PROPERTIES: dict[str, Any] = {
    "aggregation_method": s.prop("string", "Aggregation method of the metric values.", update_allowed=True),
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
        "Operator comparing the value with the threshold.",
        update_allowed=True,
        constraints=[s.allowed_values(["le", "ge", "eq", "lt", "gt", "ne"])],
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "evaluation_periods": s.prop("integer", "Number of periods evaluated.", update_allowed=True),
    "granularity": s.prop("integer", "Period of the aggregated values, in seconds.", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "metric": s.prop("string", "Metric evaluated.", required=True, update_allowed=True),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm returns to ok.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "repeat_actions": s.prop(
        "boolean",
        "Repeat the actions while the alarm stays in its state.",
        default="true",
        update_allowed=True,
    ),
    "resource_id": s.prop("string", "ID of the Gnocchi resource.", required=True, update_allowed=True),
    "resource_type": s.prop("string", "Gnocchi resource type.", required=True, update_allowed=True),
    "severity": s.prop(
        "string",
        "Severity of the alarm.",
        default="low",
        update_allowed=True,
        constraints=[s.allowed_values(["low", "moderate", "critical"])],
    ),
    "threshold": s.prop(
        "number", "Threshold the value is compared with.", required=True, update_allowed=True
    ),
    "time_constraints": s.prop(
        "list",
        "Times when the alarm is evaluated.",
        default=[],
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "duration": s.prop(
                        "integer", "Duration.", required=True, constraints=[s.value_range(min=0)]
                    ),
                    "name": s.prop("string", "Name of the resource in the cloud.", required=True),
                    "start": s.prop(
                        "string",
                        "Start.",
                        required=True,
                        constraints=[s.custom_constraint("cron_expression")],
                    ),
                    "timezone": s.prop("string", "Timezone.", constraints=[s.custom_constraint("timezone")]),
                },
            )
        ),
    ),
}
GNOCCHI_RESOURCES_ALARM_ATTRIBUTES: dict[str, Any] = {}
GNOCCHI_RESOURCES_ALARM_SUPPORT = s.support_status("2015.1")

# ---- OS::Aodh::GnocchiAggregationByMetricsAlarm ------------------------------------------------
GNOCCHI_AGGREGATION_BY_METRICS_ALARM_PROPERTIES: dict[str, Any] = {
    "aggregation_method": s.prop("string", "Aggregation method of the metric values.", update_allowed=True),
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
        "Operator comparing the value with the threshold.",
        update_allowed=True,
        constraints=[s.allowed_values(["le", "ge", "eq", "lt", "gt", "ne"])],
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "evaluation_periods": s.prop("integer", "Number of periods evaluated.", update_allowed=True),
    "granularity": s.prop("integer", "Period of the aggregated values, in seconds.", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "metrics": s.prop("list", "IDs of the metrics evaluated.", required=True, update_allowed=True),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm returns to ok.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "repeat_actions": s.prop(
        "boolean",
        "Repeat the actions while the alarm stays in its state.",
        default="true",
        update_allowed=True,
    ),
    "severity": s.prop(
        "string",
        "Severity of the alarm.",
        default="low",
        update_allowed=True,
        constraints=[s.allowed_values(["low", "moderate", "critical"])],
    ),
    "threshold": s.prop(
        "number", "Threshold the value is compared with.", required=True, update_allowed=True
    ),
    "time_constraints": s.prop(
        "list",
        "Times when the alarm is evaluated.",
        default=[],
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "duration": s.prop(
                        "integer", "Duration.", required=True, constraints=[s.value_range(min=0)]
                    ),
                    "name": s.prop("string", "Name of the resource in the cloud.", required=True),
                    "start": s.prop(
                        "string",
                        "Start.",
                        required=True,
                        constraints=[s.custom_constraint("cron_expression")],
                    ),
                    "timezone": s.prop("string", "Timezone.", constraints=[s.custom_constraint("timezone")]),
                },
            )
        ),
    ),
}
GNOCCHI_AGGREGATION_BY_METRICS_ALARM_ATTRIBUTES: dict[str, Any] = {}
GNOCCHI_AGGREGATION_BY_METRICS_ALARM_SUPPORT = s.support_status("2015.1")
