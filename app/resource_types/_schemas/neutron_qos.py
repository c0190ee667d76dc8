"""Heat 27's schemas of the Neutron QoS resource types (QoSPolicy and its bandwidth limit, DSCP
marking, minimum bandwidth and minimum packet rate rules), as ``resource_types.json`` records
them, with our own descriptions. Data only; the plugins are in ``app.resource_types.neutron_qos``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Neutron::QoSPolicy ------------------------------------------------------------------
QOS_POLICY_PROPERTIES: dict[str, Any] = {
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "shared": s.prop("boolean", "Whether other projects may use it.", default=False, update_allowed=True),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
QOS_POLICY_ATTRIBUTES: dict[str, Any] = {
    "rules": s.attr("Rules of the policy.", "list"),
}
QOS_POLICY_SUPPORT = s.support_status("6.0.0")

# ---- OS::Neutron::QoSBandwidthLimitRule ------------------------------------------------------
QOS_BANDWIDTH_LIMIT_RULE_PROPERTIES: dict[str, Any] = {
    "direction": s.prop(
        "string",
        "Direction of the traffic the rule applies to.",
        default="egress",
        update_allowed=True,
        constraints=[s.allowed_values(["egress", "ingress"])],
    ),
    "max_burst_kbps": s.prop(
        "integer",
        "Burst size in kilobits.",
        default=0,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "max_kbps": s.prop(
        "integer",
        "Maximum bandwidth in kbps.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "policy": s.prop(
        "string",
        "Name or ID of the QoS policy the rule belongs to.",
        required=True,
        constraints=[s.custom_constraint("neutron.qos_policy")],
    ),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
QOS_BANDWIDTH_LIMIT_RULE_ATTRIBUTES: dict[str, Any] = {}
QOS_BANDWIDTH_LIMIT_RULE_SUPPORT = s.support_status("6.0.0")

# ---- OS::Neutron::QoSDscpMarkingRule ---------------------------------------------------------
QOS_DSCP_MARKING_RULE_PROPERTIES: dict[str, Any] = {
    "dscp_mark": s.prop(
        "integer",
        "DSCP mark set on the traffic.",
        required=True,
        update_allowed=True,
        constraints=[
            s.allowed_values(
                [0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 46, 48, 56]
            )
        ],
    ),
    "policy": s.prop(
        "string",
        "Name or ID of the QoS policy the rule belongs to.",
        required=True,
        constraints=[s.custom_constraint("neutron.qos_policy")],
    ),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
QOS_DSCP_MARKING_RULE_ATTRIBUTES: dict[str, Any] = {}
QOS_DSCP_MARKING_RULE_SUPPORT = s.support_status("7.0.0")

# ---- OS::Neutron::QoSMinimumBandwidthRule ----------------------------------------------------
QOS_MINIMUM_BANDWIDTH_RULE_PROPERTIES: dict[str, Any] = {
    "direction": s.prop(
        "string",
        "Direction of the traffic the rule applies to.",
        default="egress",
        update_allowed=True,
        constraints=[s.allowed_values(["egress", "ingress"])],
    ),
    "min_kbps": s.prop(
        "integer",
        "Guaranteed bandwidth in kbps.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "policy": s.prop(
        "string",
        "Name or ID of the QoS policy the rule belongs to.",
        required=True,
        constraints=[s.custom_constraint("neutron.qos_policy")],
    ),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
QOS_MINIMUM_BANDWIDTH_RULE_ATTRIBUTES: dict[str, Any] = {}
QOS_MINIMUM_BANDWIDTH_RULE_SUPPORT = s.support_status("14.0.0")

# ---- OS::Neutron::QoSMinimumPacketRateRule ---------------------------------------------------
QOS_MINIMUM_PACKET_RATE_RULE_PROPERTIES: dict[str, Any] = {
    "direction": s.prop(
        "string",
        "Direction of the traffic the rule applies to.",
        default="egress",
        update_allowed=True,
        constraints=[s.allowed_values(["any", "egress", "ingress"])],
    ),
    "min_kpps": s.prop(
        "integer",
        "Guaranteed packet rate in kpps.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "policy": s.prop(
        "string",
        "Name or ID of the QoS policy the rule belongs to.",
        required=True,
        constraints=[s.custom_constraint("neutron.qos_policy")],
    ),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
QOS_MINIMUM_PACKET_RATE_RULE_ATTRIBUTES: dict[str, Any] = {}
QOS_MINIMUM_PACKET_RATE_RULE_SUPPORT = s.support_status("19.0.0")
