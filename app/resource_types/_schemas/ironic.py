"""Heat 27's schemas of the Ironic resource types, as ``resource_types.json`` records them,
with our own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Ironic::Port ----------------------------------------
PORT_PROPERTIES: dict[str, Any] = {
    "address": s.prop("string", "Address.", required=True, update_allowed=True),
    "extra": s.prop("map", "Extra.", update_allowed=True),
    "is_smartnic": s.prop("boolean", "Is smartnic.", update_allowed=True),
    "local_link_connection": s.prop("map", "Local link connection.", update_allowed=True),
    "node": s.prop(
        "string",
        "Node.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("ironic.node")],
    ),
    "physical_network": s.prop("string", "Physical network.", update_allowed=True),
    "portgroup": s.prop(
        "string", "Portgroup.", update_allowed=True, constraints=[s.custom_constraint("ironic.portgroup")]
    ),
    "pxe_enabled": s.prop("boolean", "Pxe enabled.", update_allowed=True),
}
PORT_ATTRIBUTES: dict[str, Any] = {
    "address": s.attr("Address.", "string"),
    "extra": s.attr("Extra.", "map"),
    "internal_info": s.attr("Internal info.", "map"),
    "is_smartnic": s.attr("Is smartnic.", "boolean"),
    "local_link_connection": s.attr("Local link connection.", "map"),
    "node_uuid": s.attr("Node uuid.", "string"),
    "physical_network": s.attr("Physical network.", "string"),
    "portgroup_uuid": s.attr("Portgroup uuid.", "string"),
    "pxe_enabled": s.attr("Pxe enabled.", "boolean"),
}
PORT_SUPPORT = s.support_status("13.0.0")
