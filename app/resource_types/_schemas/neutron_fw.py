"""Heat 27's schemas of Neutron's FWaaS v1 resource types (Firewall, FirewallPolicy,
FirewallRule), as ``resource_types.json`` records them, with our own descriptions. Data only;
the plugins are in ``app.resource_types.neutron_fw``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Neutron::Firewall -------------------------------------------------------------------
FIREWALL_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "firewall_policy_id": s.prop("string", "ID of the firewall policy.", required=True, update_allowed=True),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "shared": s.prop("boolean", "Whether other projects may use it.", update_allowed=True),
    "value_specs": s.prop(
        "map", "Extra key/value pairs passed to the API as they are.", default={}, update_allowed=True
    ),
}
FIREWALL_ATTRIBUTES: dict[str, Any] = {
    "admin_state_up": s.attr("Administrative state (true: up).", "string"),
    "firewall_policy_id": s.attr("ID of the firewall policy.", "string"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "shared": s.attr("Whether other projects may use it.", "string"),
    "status": s.attr("Status of the resource.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
}
FIREWALL_SUPPORT = s.support_status(None)

# ---- OS::Neutron::FirewallPolicy -------------------------------------------------------------
FIREWALL_POLICY_PROPERTIES: dict[str, Any] = {
    "audited": s.prop("boolean", "Whether the policy has been audited.", default=False, update_allowed=True),
    "firewall_rules": s.prop("list", "IDs of the firewall rules, in order.", update_allowed=True),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "shared": s.prop("boolean", "Whether other projects may use it.", default=False, update_allowed=True),
}
FIREWALL_POLICY_ATTRIBUTES: dict[str, Any] = {
    "audited": s.attr("Whether the policy has been audited.", "string"),
    "firewall_rules": s.attr("IDs of the firewall rules, in order.", "list"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "shared": s.attr("Whether other projects may use it.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
}
FIREWALL_POLICY_SUPPORT = s.support_status(None)

# ---- OS::Neutron::FirewallRule ---------------------------------------------------------------
FIREWALL_RULE_PROPERTIES: dict[str, Any] = {
    "action": s.prop(
        "string",
        "What happens to matching traffic.",
        default="deny",
        update_allowed=True,
        constraints=[s.allowed_values(["allow", "deny"])],
    ),
    "destination_ip_address": s.prop(
        "string",
        "Destination address or CIDR matched.",
        update_allowed=True,
        constraints=[s.custom_constraint("net_cidr")],
    ),
    "destination_port": s.prop("string", "Destination port or range (a:b) matched.", update_allowed=True),
    "enabled": s.prop("boolean", "Whether the rule is enforced.", default=True, update_allowed=True),
    "ip_version": s.prop(
        "string",
        "IP version (4 or 6).",
        default="4",
        update_allowed=True,
        constraints=[s.allowed_values(["4", "6"])],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "protocol": s.prop(
        "string",
        "IP protocol matched.",
        default="any",
        update_allowed=True,
        constraints=[s.allowed_values(["tcp", "udp", "icmp", "any"])],
    ),
    "shared": s.prop("boolean", "Whether other projects may use it.", default=False, update_allowed=True),
    "source_ip_address": s.prop(
        "string",
        "Source address or CIDR matched.",
        update_allowed=True,
        constraints=[s.custom_constraint("net_cidr")],
    ),
    "source_port": s.prop("string", "Source port or range (a:b) matched.", update_allowed=True),
}
FIREWALL_RULE_ATTRIBUTES: dict[str, Any] = {
    "action": s.attr("What happens to matching traffic.", "string"),
    "destination_ip_address": s.attr("Destination address or CIDR matched.", "string"),
    "destination_port": s.attr("Destination port or range (a:b) matched.", "string"),
    "enabled": s.attr("Whether the rule is enforced.", "string"),
    "firewall_policy_id": s.attr("ID of the firewall policy.", "string"),
    "ip_version": s.attr("IP version (4 or 6).", "string"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "position": s.attr("Position of the rule in its policy.", "string"),
    "protocol": s.attr("IP protocol matched.", "string"),
    "shared": s.attr("Whether other projects may use it.", "string"),
    "source_ip_address": s.attr("Source address or CIDR matched.", "string"),
    "source_port": s.attr("Source port or range (a:b) matched.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
}
FIREWALL_RULE_SUPPORT = s.support_status(None)
