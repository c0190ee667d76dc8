"""Heat 27's schemas of the Mistral resource types, as ``resource_types.json`` records them,
with our own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Mistral::Workflow ----------------------------------------
WORKFLOW_PROPERTIES: dict[str, Any] = {
    "input": s.prop("map", "Input.", update_allowed=True),
    "name": s.prop("string", "Name."),
    "output": s.prop("map", "Output.", update_allowed=True),
    "params": s.prop("map", "Params.", update_allowed=True),
    "tags": s.prop("list", "Tags.", update_allowed=True),
    "task_defaults": s.prop(
        "map",
        "Task defaults.",
        update_allowed=True,
        schema={
            "concurrency": s.prop("integer", "Concurrency."),
            "on_complete": s.prop("list", "On complete."),
            "on_error": s.prop("list", "On error."),
            "on_success": s.prop("list", "On success."),
            "pause_before": s.prop("boolean", "Pause before."),
            "requires": s.prop("list", "Requires."),
            "retry": s.prop("map", "Retry."),
            "timeout": s.prop("integer", "Timeout."),
            "wait_after": s.prop("integer", "Wait after."),
            "wait_before": s.prop("integer", "Wait before."),
        },
    ),
    "tasks": s.prop(
        "list",
        "Tasks.",
        required=True,
        update_allowed=True,
        constraints=[s.length(min=1)],
        schema=s.list_of(
            s.prop(
                "map",
                "Item.",
                schema={
                    "action": s.prop("string", "Action."),
                    "concurrency": s.prop("integer", "Concurrency."),
                    "input": s.prop("map", "Input."),
                    "join": s.prop("string", "Join."),
                    "keep_result": s.prop("boolean", "Keep result."),
                    "name": s.prop("string", "Name.", required=True),
                    "on_complete": s.prop("list", "On complete."),
                    "on_error": s.prop("list", "On error."),
                    "on_success": s.prop("list", "On success."),
                    "pause_before": s.prop("boolean", "Pause before."),
                    "policies": s.prop("map", "Policies."),
                    "publish": s.prop("map", "Publish."),
                    "requires": s.prop("list", "Requires."),
                    "retry": s.prop("map", "Retry."),
                    "target": s.prop("string", "Target."),
                    "timeout": s.prop("integer", "Timeout."),
                    "wait_after": s.prop("integer", "Wait after."),
                    "wait_before": s.prop("integer", "Wait before."),
                    "with_items": s.prop("string", "With items."),
                    "workflow": s.prop(
                        "string", "Workflow.", constraints=[s.custom_constraint("mistral.workflow")]
                    ),
                },
            )
        ),
    ),
    "type": s.prop(
        "string",
        "Type.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["direct", "reverse"])],
    ),
    "use_request_body_as_input": s.prop("boolean", "Use request body as input.", update_allowed=True),
}
WORKFLOW_ATTRIBUTES: dict[str, Any] = {
    "alarm_url": s.attr("Alarm url.", "string"),
    "data": s.attr("Data.", "map"),
    "executions": s.attr("Executions.", "list"),
}
WORKFLOW_SUPPORT = s.support_status("2015.1")

# ---- OS::Mistral::CronTrigger ----------------------------------------
CRON_TRIGGER_PROPERTIES: dict[str, Any] = {
    "count": s.prop("integer", "Count."),
    "first_time": s.prop("string", "First time."),
    "name": s.prop("string", "Name."),
    "pattern": s.prop("string", "Pattern.", constraints=[s.custom_constraint("cron_expression")]),
    "workflow": s.prop(
        "map",
        "Workflow.",
        required=True,
        schema={
            "input": s.prop("map", "Input."),
            "name": s.prop(
                "string", "Name.", required=True, constraints=[s.custom_constraint("mistral.workflow")]
            ),
        },
    ),
}
CRON_TRIGGER_ATTRIBUTES: dict[str, Any] = {
    "next_execution_time": s.attr("Next execution time.", "string"),
    "remaining_executions": s.attr("Remaining executions.", "integer"),
}
CRON_TRIGGER_SUPPORT = s.support_status("5.0.0")

# ---- OS::Mistral::ExternalResource ----------------------------------------
EXTERNAL_RESOURCE_PROPERTIES: dict[str, Any] = {
    "actions": s.prop(
        "map",
        "Actions.",
        required=True,
        schema={
            "CREATE": s.prop(
                "map",
                "Create.",
                schema={
                    "params": s.prop("map", "Params.", default={}),
                    "workflow": s.prop(
                        "string",
                        "Workflow.",
                        required=True,
                        constraints=[s.custom_constraint("mistral.workflow")],
                    ),
                },
            ),
            "DELETE": s.prop(
                "map",
                "Delete.",
                schema={
                    "params": s.prop("map", "Params.", default={}),
                    "workflow": s.prop(
                        "string",
                        "Workflow.",
                        required=True,
                        constraints=[s.custom_constraint("mistral.workflow")],
                    ),
                },
            ),
            "RESUME": s.prop(
                "map",
                "Resume.",
                schema={
                    "params": s.prop("map", "Params.", default={}),
                    "workflow": s.prop(
                        "string",
                        "Workflow.",
                        required=True,
                        constraints=[s.custom_constraint("mistral.workflow")],
                    ),
                },
            ),
            "SUSPEND": s.prop(
                "map",
                "Suspend.",
                schema={
                    "params": s.prop("map", "Params.", default={}),
                    "workflow": s.prop(
                        "string",
                        "Workflow.",
                        required=True,
                        constraints=[s.custom_constraint("mistral.workflow")],
                    ),
                },
            ),
            "UPDATE": s.prop(
                "map",
                "Update.",
                schema={
                    "params": s.prop("map", "Params.", default={}),
                    "workflow": s.prop(
                        "string",
                        "Workflow.",
                        required=True,
                        constraints=[s.custom_constraint("mistral.workflow")],
                    ),
                },
            ),
        },
    ),
    "always_update": s.prop("boolean", "Always update.", default=False),
    "input": s.prop("map", "Input.", default={}, update_allowed=True),
    "replace_on_change_inputs": s.prop("list", "Replace on change inputs.", default=[]),
}
EXTERNAL_RESOURCE_ATTRIBUTES: dict[str, Any] = {
    "output": s.attr("Output.", "map"),
}
EXTERNAL_RESOURCE_SUPPORT = s.support_status("9.0.0")
