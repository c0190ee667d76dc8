"""Heat 27's schemas of the Octavia admin, L7 and quota resource types, as ``resource_types.json``
records them (names, types, defaults, required, update_allowed, immutable, constraints), with our
own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Octavia::L7Policy ---------------------------------------------------------------------
L7POLICY_PROPERTIES: dict[str, Any] = {
    "action": s.prop(
        "string",
        "What the policy does with a matching request.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["REJECT", "REDIRECT_TO_POOL", "REDIRECT_TO_URL"])],
    ),
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "listener": s.prop(
        "string",
        "Name or ID of the listener.",
        required=True,
        constraints=[s.custom_constraint("octavia.listener")],
    ),
    "name": s.prop("string", "Name of the resource in the cloud.", update_allowed=True),
    "position": s.prop(
        "number",
        "Position of the policy in the listener's list.",
        update_allowed=True,
        constraints=[s.value_range(min=1)],
    ),
    "redirect_pool": s.prop(
        "string",
        "Pool a REDIRECT_TO_POOL policy sends to.",
        update_allowed=True,
        constraints=[s.custom_constraint("octavia.pool")],
    ),
    "redirect_url": s.prop("string", "URL a REDIRECT_TO_URL policy sends to.", update_allowed=True),
}
L7POLICY_ATTRIBUTES: dict[str, Any] = {
    "rules": s.attr("Rules.", "list"),
}
L7POLICY_SUPPORT = s.support_status("10.0.0")

# ---- OS::Octavia::L7Rule -----------------------------------------------------------------------
L7RULE_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "compare_type": s.prop(
        "string",
        "How the value is compared.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["REGEX", "STARTS_WITH", "ENDS_WITH", "CONTAINS", "EQUAL_TO"])],
    ),
    "invert": s.prop("boolean", "Whether the comparison is inverted.", default=False, update_allowed=True),
    "key": s.prop("string", "Key compared (header or cookie name).", update_allowed=True),
    "l7policy": s.prop(
        "string",
        "Name or ID of the L7 policy.",
        required=True,
        constraints=[s.custom_constraint("octavia.l7policy")],
    ),
    "type": s.prop(
        "string",
        "Type of the rule.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["HOST_NAME", "PATH", "FILE_TYPE", "HEADER", "COOKIE"])],
    ),
    "value": s.prop("string", "Value compared.", required=True, update_allowed=True),
}
L7RULE_ATTRIBUTES: dict[str, Any] = {}
L7RULE_SUPPORT = s.support_status("10.0.0")

# ---- OS::Octavia::Flavor -----------------------------------------------------------------------
FLAVOR_PROPERTIES: dict[str, Any] = {
    "enabled": s.prop("boolean", "Whether it is enabled.", default=True, update_allowed=True),
    "flavor_profile": s.prop(
        "string",
        "Name or ID of the flavor profile.",
        required=True,
        constraints=[s.custom_constraint("octavia.flavorprofile")],
    ),
    "name": s.prop("string", "Name of the resource in the cloud.", update_allowed=True),
}
FLAVOR_ATTRIBUTES: dict[str, Any] = {
    "flavor_profile_id": s.attr("Flavor profile id.", "string"),
}
FLAVOR_SUPPORT = s.support_status("14.0.0")

# ---- OS::Octavia::FlavorProfile ----------------------------------------------------------------
FLAVOR_PROFILE_PROPERTIES: dict[str, Any] = {
    "flavor_data": s.prop(
        "string",
        "Provider flavor metadata (a JSON string).",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("json_string")],
    ),
    "name": s.prop("string", "Name of the resource in the cloud.", update_allowed=True),
    "provider_name": s.prop("string", "Provider driver's name.", update_allowed=True),
}
FLAVOR_PROFILE_ATTRIBUTES: dict[str, Any] = {}
FLAVOR_PROFILE_SUPPORT = s.support_status("14.0.0")

# ---- OS::Octavia::AvailabilityZone -------------------------------------------------------------
AVAILABILITY_ZONE_PROPERTIES: dict[str, Any] = {
    "availability_zone_profile": s.prop(
        "string",
        "Name or ID of the availability zone profile.",
        required=True,
        constraints=[s.custom_constraint("octavia.availabilityzoneprofile")],
    ),
    "enabled": s.prop("boolean", "Whether it is enabled.", default=True, update_allowed=True),
    "name": s.prop("string", "Name of the resource in the cloud.", update_allowed=True),
}
AVAILABILITY_ZONE_ATTRIBUTES: dict[str, Any] = {
    "availability_zone_profile_id": s.attr("Availability zone profile id.", "string"),
}
AVAILABILITY_ZONE_SUPPORT = s.support_status("24.0.0")

# ---- OS::Octavia::AvailabilityZoneProfile ------------------------------------------------------
AVAILABILITY_ZONE_PROFILE_PROPERTIES: dict[str, Any] = {
    "availability_zone_data": s.prop(
        "string",
        "Provider availability zone metadata (a JSON string).",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("json_string")],
    ),
    "name": s.prop("string", "Name of the resource in the cloud.", update_allowed=True),
    "provider_name": s.prop("string", "Provider driver's name.", update_allowed=True),
}
AVAILABILITY_ZONE_PROFILE_ATTRIBUTES: dict[str, Any] = {}
AVAILABILITY_ZONE_PROFILE_SUPPORT = s.support_status("24.0.0")

# ---- OS::Octavia::Quota ------------------------------------------------------------------------
QUOTA_PROPERTIES: dict[str, Any] = {
    "healthmonitor": s.prop(
        "integer",
        "Maximum health monitors (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "listener": s.prop(
        "integer", "Maximum listeners (-1: unlimited).", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "loadbalancer": s.prop(
        "integer",
        "Maximum load balancers (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "member": s.prop(
        "integer",
        "Maximum members (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "pool": s.prop(
        "integer", "Maximum pools (-1: unlimited).", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "project": s.prop(
        "string",
        "Name or ID of the project whose quota is set.",
        required=True,
        constraints=[s.custom_constraint("keystone.project")],
    ),
}
QUOTA_ATTRIBUTES: dict[str, Any] = {}
QUOTA_SUPPORT = s.support_status("14.0.0")
