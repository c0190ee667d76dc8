"""Which Heat policy rule guards which route of the Orchestration API (keystone mode).

Keys are the Flask URL rule and the HTTP method; values are Heat's rule names, as heat-api's
controllers enforce them (the handler's name under the controller's ``REQUEST_SCOPE``). Every
``/v1/<tenant_id>/...`` route has an entry (a test walks the URL map); one without an entry is
refused, never let through.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_T = "/v1/<tenant_id>"
_S = f"{_T}/stacks/<stack_name>/<stack_id>"
_LOOKUP = {m: "stacks:lookup" for m in ("GET", "POST", "PUT", "PATCH", "DELETE")}
# the ``/stacks/{name}/{resources|events|...}`` lookup forms of stack sub-paths (Heat's lookup)
LOOKUP_SUBPATHS = frozenset({"resources", "events", "template", "actions", "environment", "files"})

RULES: Mapping[str, Mapping[str, str]] = {
    f"{_T}/stacks": {"GET": "stacks:index", "POST": "stacks:create"},
    f"{_T}/stacks/preview": {"POST": "stacks:preview"},
    f"{_T}/stacks/detail": {"GET": "stacks:detail"},
    f"{_T}/stacks/<stack_name>": _LOOKUP,
    f"{_T}/stacks/<arn:stack_arn>": _LOOKUP,
    _S: {"GET": "stacks:show", "DELETE": "stacks:delete", "PUT": "stacks:update",
         "PATCH": "stacks:update_patch", "POST": "stacks:lookup"},
    f"{_S}/template": {"GET": "stacks:template"},
    f"{_S}/environment": {"GET": "stacks:environment"},
    f"{_S}/files": {"GET": "stacks:files"},
    f"{_S}/preview": {"PUT": "stacks:preview_update", "PATCH": "stacks:preview_update_patch"},
    f"{_S}/outputs": {"GET": "stacks:list_outputs"},
    f"{_S}/outputs/<output_key>": {"GET": "stacks:show_output"},
    f"{_S}/actions": {"POST": "actions:action"},
    f"{_S}/resources": {"GET": "resource:index"},
    f"{_S}/resources/<resource_name>": {"GET": "resource:show",
                                        "PATCH": "resource:mark_unhealthy"},
    f"{_S}/resources/<resource_name>/metadata": {"GET": "resource:metadata"},
    f"{_S}/resources/<resource_name>/signal": {"POST": "resource:signal"},
    f"{_S}/events": {"GET": "events:index"},
    # the live stack page's data (app.api.live): the resources' graph and the event stream
    f"{_S}/live/graph": {"GET": "resource:index"},
    f"{_S}/live/events": {"GET": "events:index"},
    f"{_S}/resources/<resource_name>/events": {"GET": "events:index"},
    f"{_S}/resources/<resource_name>/events/<event_id>": {"GET": "events:show"},
    f"{_S}/snapshots": {"GET": "stacks:list_snapshots", "POST": "stacks:snapshot"},
    f"{_S}/snapshots/<snapshot_id>": {"GET": "stacks:show_snapshot",
                                      "DELETE": "stacks:delete_snapshot"},
    f"{_S}/snapshots/<snapshot_id>/restore": {"POST": "stacks:restore_snapshot"},
    f"{_T}/change_sets": {"POST": "stacks:create_change_set"},
    f"{_S}/change_sets": {"GET": "stacks:list_change_sets", "POST": "stacks:create_change_set"},
    f"{_S}/change_sets/<change_set>": {"GET": "stacks:show_change_set",
                                       "DELETE": "stacks:delete_change_set"},
    f"{_S}/change_sets/<change_set>/execute": {"POST": "stacks:execute_change_set"},
    f"{_S}/abandon": {"DELETE": "stacks:abandon"},
    # Stoker's guards (app.api.guards): read as a show, changed as an update
    f"{_S}/termination_protection": {"GET": "stacks:show",
                                     "PUT": "stacks:update_termination_protection"},
    f"{_S}/policy": {"GET": "stacks:get_stack_policy", "PUT": "stacks:set_stack_policy"},
    # Stoker's drift detection (app.api.drift): started as a member, read as a reader
    f"{_S}/drift": {"GET": "stacks:show_drift", "POST": "stacks:detect_drift"},
    f"{_S}/drift/<detection_id>": {"GET": "stacks:show_drift"},
    f"{_S}/drift/<detection_id>/revert": {"POST": "stacks:revert_drift"},
    f"{_S}/drift/<detection_id>/revert/preview": {"POST": "stacks:revert_drift"},
    # Stoker's operation timeline (app.api.timeline): read as the events are
    f"{_S}/timeline": {"GET": "stacks:show_timeline"},
    # Stoker's cross-stack exports (app.api.exports): read as a reader
    f"{_T}/exports": {"GET": "stacks:list_exports"},
    f"{_S}/export": {"GET": "stacks:export"},
    f"{_T}/validate": {"POST": "stacks:validate_template"},
    f"{_T}/template_versions": {"GET": "stacks:list_template_versions"},
    f"{_T}/template_versions/<template_version>/functions":
        {"GET": "stacks:list_template_functions"},
    f"{_T}/resource_types": {"GET": "stacks:list_resource_types"},
    f"{_T}/resource_types/<type_name>": {"GET": "stacks:resource_schema"},
    f"{_T}/resource_types/<type_name>/template": {"GET": "stacks:generate_template"},
    f"{_T}/build_info": {"GET": "build_info:build_info"},
    f"{_T}/services": {"GET": "service:index"},
    f"{_T}/software_configs": {"GET": "software_configs:index", "POST": "software_configs:create"},
    f"{_T}/software_configs/<config_id>": {"GET": "software_configs:show",
                                           "DELETE": "software_configs:delete"},
    f"{_T}/software_deployments": {"GET": "software_deployments:index",
                                   "POST": "software_deployments:create"},
    f"{_T}/software_deployments/<deployment_id>": {"GET": "software_deployments:show",
                                                   "PUT": "software_deployments:update",
                                                   "DELETE": "software_deployments:delete"},
    f"{_T}/software_deployments/metadata/<server_id>": {"GET": "software_deployments:metadata"},
}

GLOBAL_INDEX = "stacks:global_index"


def action_for(rule: str, method: str, view_args: Mapping[str, Any] | None,
               args: Mapping[str, str]) -> str | None:
    """Heat's rule name for a request, or None when the route has none (then it is refused).

    ``GET /stacks?global_tenant=true`` is ``stacks:global_index`` (Heat's ``index`` hands over
    to ``global_index``); the lookup forms of stack sub-paths are ``stacks:lookup``.
    """
    method = "GET" if method == "HEAD" else method
    if rule == _S and (view_args or {}).get("stack_id") in LOOKUP_SUBPATHS \
            and method in ("GET", "POST"):
        return "stacks:lookup"
    action = RULES.get(rule, {}).get(method)
    if action == "stacks:index" and str(args.get("global_tenant", "")).lower() in (
            "true", "1", "yes", "on"):
        return GLOBAL_INDEX
    if action == "software_configs:index" and str(args.get("global_tenant", "")).lower() in (
            "true", "1", "yes", "on"):
        return "software_configs:global_index"
    return action
