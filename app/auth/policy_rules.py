"""Heat's policy rules: names, check strings and operations of ``heat/policies/*.py`` (the
current, scope-aware defaults; Heat keeps the pre-Wallaby ``deny_stack_user`` rules only as
deprecated fallbacks, which Stoker does not register, so the new defaults always apply).

More in docs/code/auth.md (app.auth.policy_rules).
"""
from __future__ import annotations

from oslo_policy import policy

SYSTEM_ADMIN = "role:admin and system_scope:all"
PROJECT_MEMBER = "role:member and project_id:%(project_id)s"
PROJECT_READER = "role:reader and project_id:%(project_id)s"
PROJECT_STACK_USER = "role:heat_stack_user and project_id:%(project_id)s"
PROJECT_READER_OR_STACK_USER = f"({PROJECT_READER}) or ({PROJECT_STACK_USER})"

_BASE = (
    ("context_is_admin", f"(role:admin and is_admin_project:True) OR ({SYSTEM_ADMIN})",
     "Decides what is required for the 'is_admin:True' check to succeed."),
    ("project_admin", "role:admin", "Default rule for project admin."),
    ("deny_stack_user", "not role:heat_stack_user", "Default rule for deny stack user."),
    ("deny_everybody", "!", "Default rule for deny everybody."),
    ("allow_everybody", "", "Default rule for allow everybody."),
)

_S = "/v1/{tenant_id}/stacks/{stack_name}/{stack_id}"

# (name, check string, description, [(method, path)]), as heat/policies/{stacks,actions,
# resource,events,build_info,service}.py.
_DOCUMENTED: tuple[tuple[str, str, str, list[tuple[str, str]]], ...] = (
    ("stacks:abandon", PROJECT_MEMBER, "Abandon stack.", [("DELETE", f"{_S}/abandon")]),
    ("stacks:create", PROJECT_MEMBER, "Create stack.", [("POST", "/v1/{tenant_id}/stacks")]),
    ("stacks:delete", PROJECT_MEMBER, "Delete stack.", [("DELETE", _S)]),
    ("stacks:detail", PROJECT_READER, "List stacks in detail.",
     [("GET", "/v1/{tenant_id}/stacks/detail")]),
    ("stacks:export", PROJECT_MEMBER, "Export stack.", [("GET", f"{_S}/export")]),
    ("stacks:generate_template", PROJECT_MEMBER, "Generate stack template.",
     [("GET", f"{_S}/template")]),
    ("stacks:global_index", "rule:context_is_admin", "List stacks globally.",
     [("GET", "/v1/{tenant_id}/stacks")]),
    ("stacks:index", PROJECT_READER, "List stacks.", [("GET", "/v1/{tenant_id}/stacks")]),
    ("stacks:list_resource_types", PROJECT_READER, "List resource types.",
     [("GET", "/v1/{tenant_id}/resource_types")]),
    ("stacks:list_template_versions", PROJECT_READER, "List template versions.",
     [("GET", "/v1/{tenant_id}/template_versions")]),
    ("stacks:list_template_functions", PROJECT_READER, "List template functions.",
     [("GET", "/v1/{tenant_id}/template_versions/{template_version}/functions")]),
    ("stacks:lookup", PROJECT_READER_OR_STACK_USER, "Find stack.",
     [("GET", "/v1/{tenant_id}/stacks/{stack_identity}")]),
    ("stacks:preview", PROJECT_READER, "Preview stack.",
     [("POST", "/v1/{tenant_id}/stacks/preview")]),
    ("stacks:resource_schema", PROJECT_READER, "Show resource type schema.",
     [("GET", "/v1/{tenant_id}/resource_types/{type_name}")]),
    ("stacks:show", PROJECT_READER, "Show stack.",
     [("GET", "/v1/{tenant_id}/stacks/{stack_identity}")]),
    ("stacks:template", PROJECT_READER, "Get stack template.", [("GET", f"{_S}/template")]),
    ("stacks:environment", PROJECT_READER, "Get stack environment.",
     [("GET", f"{_S}/environment")]),
    ("stacks:files", PROJECT_READER, "Get stack files.", [("GET", f"{_S}/files")]),
    ("stacks:update", PROJECT_MEMBER, "Update stack.", [("PUT", _S)]),
    ("stacks:update_patch", PROJECT_MEMBER, "Update stack (PATCH).", [("PATCH", _S)]),
    ("stacks:update_termination_protection", PROJECT_MEMBER,
     "Enable or disable termination protection (Stoker's).",
     [("PUT", f"{_S}/termination_protection")]),
    ("stacks:get_stack_policy", PROJECT_READER, "Show the stack policy (Stoker's).",
     [("GET", f"{_S}/policy")]),
    ("stacks:set_stack_policy", PROJECT_MEMBER, "Set the stack policy (Stoker's).",
     [("PUT", f"{_S}/policy")]),
    ("stacks:update_no_change", "rule:stacks:update_patch",
     "Update stack (PATCH) with no changes.", [("PATCH", _S)]),
    ("stacks:preview_update", PROJECT_MEMBER, "Preview update stack.",
     [("PUT", f"{_S}/preview")]),
    ("stacks:preview_update_patch", PROJECT_MEMBER, "Preview update stack (PATCH).",
     [("PATCH", f"{_S}/preview")]),
    ("stacks:validate_template", PROJECT_MEMBER, "Validate template.",
     [("POST", "/v1/{tenant_id}/validate")]),
    ("stacks:snapshot", PROJECT_MEMBER, "Snapshot Stack.", [("POST", f"{_S}/snapshots")]),
    ("stacks:show_snapshot", PROJECT_READER, "Show snapshot.",
     [("GET", f"{_S}/snapshots/{{snapshot_id}}")]),
    ("stacks:delete_snapshot", PROJECT_MEMBER, "Delete snapshot.",
     [("DELETE", f"{_S}/snapshots/{{snapshot_id}}")]),
    ("stacks:list_snapshots", PROJECT_READER, "List snapshots.", [("GET", f"{_S}/snapshots")]),
    ("stacks:restore_snapshot", PROJECT_MEMBER, "Restore snapshot.",
     [("POST", f"{_S}/snapshots/{{snapshot_id}}/restore")]),
    ("stacks:list_outputs", PROJECT_READER, "List outputs.", [("GET", f"{_S}/outputs")]),
    ("stacks:show_output", PROJECT_READER, "Show outputs.",
     [("GET", f"{_S}/outputs/{{output_key}}")]),
    ("actions:action", PROJECT_MEMBER, "Performs non-lifecycle operations on the stack.",
     [("POST", f"{_S}/actions")]),
    ("actions:snapshot", PROJECT_MEMBER, "Create stack snapshot", [("POST", f"{_S}/actions")]),
    ("actions:suspend", PROJECT_MEMBER, "Suspend a stack.", [("POST", f"{_S}/actions")]),
    ("actions:resume", PROJECT_MEMBER, "Resume a suspended stack.", [("POST", f"{_S}/actions")]),
    ("actions:check", PROJECT_READER, "Check stack resources.", [("POST", f"{_S}/actions")]),
    ("actions:cancel_update", PROJECT_MEMBER, "Cancel stack operation and roll back.",
     [("POST", f"{_S}/actions")]),
    ("actions:cancel_without_rollback", PROJECT_MEMBER,
     "Cancel stack operation without rolling back.", [("POST", f"{_S}/actions")]),
    ("actions:retry", PROJECT_MEMBER, "Retry a failed create or update (Stoker).",
     [("POST", f"{_S}/actions")]),
    ("actions:rollback", PROJECT_MEMBER, "Roll a failed stack back (Stoker).",
     [("POST", f"{_S}/actions")]),
    ("actions:continue_rollback", PROJECT_MEMBER, "Continue a failed rollback (Stoker).",
     [("POST", f"{_S}/actions")]),
    ("stacks:create_change_set", PROJECT_MEMBER, "Create a change set (Stoker).",
     [("POST", f"{_S}/change_sets"), ("POST", "/v1/{tenant_id}/change_sets")]),
    ("stacks:list_change_sets", PROJECT_READER, "List change sets (Stoker).",
     [("GET", f"{_S}/change_sets")]),
    ("stacks:show_change_set", PROJECT_READER, "Show a change set (Stoker).",
     [("GET", f"{_S}/change_sets/{{change_set}}")]),
    ("stacks:delete_change_set", PROJECT_MEMBER, "Delete a change set (Stoker).",
     [("DELETE", f"{_S}/change_sets/{{change_set}}")]),
    ("stacks:execute_change_set", PROJECT_MEMBER, "Execute a change set (Stoker).",
     [("POST", f"{_S}/change_sets/{{change_set}}/execute")]),
    ("stacks:detect_drift", PROJECT_MEMBER, "Start a drift detection (Stoker).",
     [("POST", f"{_S}/drift")]),
    ("stacks:show_drift", PROJECT_READER, "Show a drift detection (Stoker).",
     [("GET", f"{_S}/drift"), ("GET", f"{_S}/drift/{{detection_id}}")]),
    ("stacks:revert_drift", PROJECT_MEMBER,
     "Preview or start the update that reverts a drift (Stoker).",
     [("POST", f"{_S}/drift/{{detection_id}}/revert"),
      ("POST", f"{_S}/drift/{{detection_id}}/revert/preview")]),
    ("stacks:show_timeline", PROJECT_READER, "Show an operation's timeline (Stoker).",
     [("GET", f"{_S}/timeline")]),
    ("stacks:list_exports", PROJECT_READER, "List the project's cross-stack exports (Stoker).",
     [("GET", "/v1/{tenant_id}/exports")]),
    ("resource:index", PROJECT_READER, "List resources.", [("GET", f"{_S}/resources")]),
    ("resource:metadata", PROJECT_READER_OR_STACK_USER, "Show resource metadata.",
     [("GET", f"{_S}/resources/{{resource_name}}/metadata")]),
    ("resource:signal", PROJECT_READER_OR_STACK_USER, "Signal resource.",
     [("POST", f"{_S}/resources/{{resource_name}}/signal")]),
    ("resource:mark_unhealthy", PROJECT_MEMBER, "Mark resource as unhealthy.",
     [("PATCH", f"{_S}/resources/{{resource_name_or_physical_id}}")]),
    ("resource:show", PROJECT_READER, "Show resource.",
     [("GET", f"{_S}/resources/{{resource_name}}")]),
    ("events:index", PROJECT_READER, "List events.", [("GET", f"{_S}/events")]),
    ("events:show", PROJECT_READER, "Show event.",
     [("GET", f"{_S}/resources/{{resource_name}}/events/{{event_id}}")]),
    ("build_info:build_info", PROJECT_READER, "Show build information.",
     [("GET", "/v1/{tenant_id}/build_info")]),
    ("service:index", SYSTEM_ADMIN, "Show engine service.", [("GET", "/v1/{tenant_id}/services")]),
    # heat/policies/software_configs.py, software_deployments.py
    ("software_configs:global_index", "!", "List configs globally.",
     [("GET", "/v1/{tenant_id}/software_configs")]),
    ("software_configs:index", PROJECT_READER, "List configs.",
     [("GET", "/v1/{tenant_id}/software_configs")]),
    ("software_configs:create", PROJECT_MEMBER, "Create config.",
     [("POST", "/v1/{tenant_id}/software_configs")]),
    ("software_configs:show", PROJECT_READER, "Show config details.",
     [("GET", "/v1/{tenant_id}/software_configs/{config_id}")]),
    ("software_configs:delete", PROJECT_MEMBER, "Delete config.",
     [("DELETE", "/v1/{tenant_id}/software_configs/{config_id}")]),
    ("software_deployments:index", PROJECT_READER, "List deployments.",
     [("GET", "/v1/{tenant_id}/software_deployments")]),
    ("software_deployments:create", PROJECT_MEMBER, "Create deployment.",
     [("POST", "/v1/{tenant_id}/software_deployments")]),
    ("software_deployments:show", PROJECT_READER, "Show deployment details.",
     [("GET", "/v1/{tenant_id}/software_deployments/{deployment_id}")]),
    ("software_deployments:update", PROJECT_MEMBER, "Update deployment.",
     [("PUT", "/v1/{tenant_id}/software_deployments/{deployment_id}")]),
    ("software_deployments:delete", PROJECT_MEMBER, "Delete deployment.",
     [("DELETE", "/v1/{tenant_id}/software_deployments/{deployment_id}")]),
    ("software_deployments:metadata", PROJECT_READER_OR_STACK_USER,
     "Show server configuration metadata.",
     [("GET", "/v1/{tenant_id}/software_deployments/metadata/{server_id}")]),
)

# heat/policies/cloudformation.py: ``cloudformation:<Action>`` of heat-api-cfn (no URL paths, so
# plain ``RuleDefault``s), project-scoped.
_CLOUDFORMATION: tuple[tuple[str, str], ...] = (
    ("ListStacks", PROJECT_READER),
    ("CreateStack", PROJECT_MEMBER),
    ("DescribeStacks", PROJECT_READER),
    ("DeleteStack", PROJECT_MEMBER),
    ("UpdateStack", PROJECT_MEMBER),
    ("CancelUpdateStack", PROJECT_MEMBER),
    ("DescribeStackEvents", PROJECT_READER),
    ("ValidateTemplate", PROJECT_READER),
    ("GetTemplate", PROJECT_READER),
    ("EstimateTemplateCost", PROJECT_READER),
    ("DescribeStackResource", PROJECT_READER_OR_STACK_USER),
    ("DescribeStackResources", PROJECT_READER),
    ("ListStackResources", PROJECT_READER),
    # Stoker's beyond Heat: AWS's change set and recovery actions
    ("CreateChangeSet", PROJECT_MEMBER),
    ("DescribeChangeSet", PROJECT_READER),
    ("ExecuteChangeSet", PROJECT_MEMBER),
    ("DeleteChangeSet", PROJECT_MEMBER),
    ("ListChangeSets", PROJECT_READER),
    ("RollbackStack", PROJECT_MEMBER),
    ("ContinueUpdateRollback", PROJECT_MEMBER),
    ("UpdateTerminationProtection", PROJECT_MEMBER),
    ("SetStackPolicy", PROJECT_MEMBER),
    ("GetStackPolicy", PROJECT_READER),
    ("DetectStackDrift", PROJECT_MEMBER),
    ("DetectStackResourceDrift", PROJECT_MEMBER),
    ("DescribeStackDriftDetectionStatus", PROJECT_READER),
    ("DescribeStackResourceDrifts", PROJECT_READER),
    ("ListExports", PROJECT_READER),
    ("ListImports", PROJECT_READER),
)


def defaults() -> list[policy.RuleDefault]:
    """Every rule Stoker registers, in Heat's order: the base rules, the cloudformation ones, then
    the documented ones (``DocumentedRuleDefault``, project-scoped except ``service:index`` and
    ``stacks:global_index``)."""
    rules: list[policy.RuleDefault] = [policy.RuleDefault(name=n, check_str=c, description=d)
                                       for n, c, d in _BASE]
    rules.extend(policy.RuleDefault(name=f"cloudformation:{action}", check_str=check,
                                    scope_types=["project"]) for action, check in _CLOUDFORMATION)
    for name, check, description, operations in _DOCUMENTED:
        scope: list[str] | None = ["system"] if name == "service:index" else ["project"]
        if name == "stacks:global_index":
            scope = None  # as Heat: no scope types
        rules.append(policy.DocumentedRuleDefault(
            name=name, check_str=check, description=description, scope_types=scope,
            operations=[{"path": path, "method": method} for method, path in operations]))
    return rules
