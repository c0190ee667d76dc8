"""Heat 27's schemas of the composite, event, load-balancer member health and Prometheus alarm
types, as ``resource_types.json`` records them (names, types, defaults, required, update_allowed,
immutable, constraints), with our own descriptions. Data only; the Gnocchi alarms' are in
``aodh_gnocchi``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Aodh::CompositeAlarm ------------------------------------------------------------------
COMPOSITE_ALARM_PROPERTIES: dict[str, Any] = {
    "alarm_actions": s.prop("list", "URLs to call when the alarm fires.", update_allowed=True),
    "alarm_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm fires.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "composite_rule": s.prop(
        "map",
        "Nested and/or combination of alarm rules.",
        required=True,
        update_allowed=True,
        schema={
            "operator": s.prop(
                "string",
                "Operator.",
                required=True,
                update_allowed=True,
                constraints=[s.allowed_values(["or", "and"])],
            ),
            "rules": s.prop(
                "list", "Rules.", required=True, update_allowed=True, constraints=[s.length(min=2)]
            ),
        },
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
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
COMPOSITE_ALARM_ATTRIBUTES: dict[str, Any] = {}
COMPOSITE_ALARM_SUPPORT = s.support_status("8.0.0")

# ---- OS::Aodh::EventAlarm ----------------------------------------------------------------------
EVENT_ALARM_PROPERTIES: dict[str, Any] = {
    "alarm_actions": s.prop("list", "URLs to call when the alarm fires.", update_allowed=True),
    "alarm_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm fires.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "event_type": s.prop("string", "Event type the alarm watches.", default="*", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm returns to ok.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "query": s.prop(
        "list",
        "Query selecting what is evaluated.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "field": s.prop("string", "Field."),
                    "op": s.prop(
                        "string", "Op.", constraints=[s.allowed_values(["le", "ge", "eq", "lt", "gt", "ne"])]
                    ),
                    "type": s.prop(
                        "string",
                        "Type of the rule.",
                        default="string",
                        constraints=[s.allowed_values(["integer", "float", "string", "boolean", "datetime"])],
                    ),
                    "value": s.prop("string", "Value compared."),
                },
            )
        ),
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
EVENT_ALARM_ATTRIBUTES: dict[str, Any] = {}
EVENT_ALARM_SUPPORT = s.support_status("8.0.0")

# ---- OS::Aodh::LBMemberHealthAlarm -------------------------------------------------------------
LB_MEMBER_HEALTH_ALARM_PROPERTIES: dict[str, Any] = {
    "alarm_actions": s.prop("list", "URLs to call when the alarm fires.", update_allowed=True),
    "alarm_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm fires.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "autoscaling_group_id": s.prop(
        "string", "ID of the autoscaling group whose members are watched.", required=True, update_allowed=True
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default="true", update_allowed=True),
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm returns to ok.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "pool": s.prop("string", "Name or ID of the pool.", required=True, update_allowed=True),
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
    "stack": s.prop("string", "Name or ID of the stack holding the members.", required=True),
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
LB_MEMBER_HEALTH_ALARM_ATTRIBUTES: dict[str, Any] = {}
LB_MEMBER_HEALTH_ALARM_SUPPORT = s.support_status("13.0.0")

# ---- OS::Aodh::PrometheusAlarm -----------------------------------------------------------------
PROMETHEUS_ALARM_PROPERTIES: dict[str, Any] = {
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
    "insufficient_data_actions": s.prop("list", "URLs to call on insufficient data.", update_allowed=True),
    "insufficient_data_queues": s.prop(
        "list",
        "Zaqar queues notified on insufficient data.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "ok_actions": s.prop("list", "URLs to call when the alarm returns to ok.", update_allowed=True),
    "ok_queues": s.prop(
        "list",
        "Zaqar queues notified when the alarm returns to ok.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("zaqar.queue")])),
    ),
    "query": s.prop("string", "Query selecting what is evaluated.", required=True, update_allowed=True),
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
PROMETHEUS_ALARM_ATTRIBUTES: dict[str, Any] = {}
PROMETHEUS_ALARM_SUPPORT = s.support_status("22.0.0")
