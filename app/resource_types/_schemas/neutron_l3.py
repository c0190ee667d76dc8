"""Heat 27's schemas of Neutron's L3 resource types (Router, RouterInterface, FloatingIP,
FloatingIPAssociation), as ``resource_types.json`` records them (names, types, defaults,
required, update_allowed, immutable, constraints), with our own descriptions. Data only; the
plugins are in ``app.resource_types.neutron_l3``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Neutron::Router -----------------------------------------------------------------------
ROUTER_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "availability_zone_hints": s.prop(
        "list", "Availability zones preferred for scheduling.", update_allowed=True
    ),
    "distributed": s.prop("boolean", "Whether the router is distributed (DVR)."),
    "external_gateway_info": s.prop(
        "map",
        "The router's external gateway.",
        update_allowed=True,
        schema={
            "enable_snat": s.prop("boolean", "Whether SNAT is enabled on the gateway.", update_allowed=True),
            "external_fixed_ips": s.prop(
                "list",
                "Fixed IPs of the gateway port.",
                update_allowed=True,
                schema=s.list_of(
                    s.prop(
                        "map",
                        schema={
                            "ip_address": s.prop(
                                "string", "An IP address.", constraints=[s.custom_constraint("ip_addr")]
                            ),
                            "subnet": s.prop(
                                "string",
                                "Name or ID of the subnet.",
                                constraints=[s.custom_constraint("neutron.subnet")],
                            ),
                        },
                    )
                ),
            ),
            "network": s.prop("string", "Name or ID of the network.", required=True, update_allowed=True),
        },
    ),
    "ha": s.prop("boolean", "Whether the router is highly available."),
    "l3_agent_ids": s.prop(
        "list",
        "L3 agents to schedule the router on (admin only).",
        update_allowed=True,
        schema=s.list_of(s.prop("string")),
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
    "value_specs": s.prop(
        "map", "Extra key/value pairs passed to the API as they are.", default={}, update_allowed=True
    ),
}
ROUTER_ATTRIBUTES: dict[str, Any] = {
    "admin_state_up": s.attr("Administrative state.", "string"),
    "external_gateway_info": s.attr("External gateway.", "map"),
    "name": s.attr("Name of the resource.", "string"),
    "status": s.attr("Status of the resource.", "string"),
    "tenant_id": s.attr("Project that owns the resource.", "string"),
}
ROUTER_SUPPORT = s.support_status(None)

# ---- OS::Neutron::RouterInterface --------------------------------------------------------------
ROUTER_INTERFACE_PROPERTIES: dict[str, Any] = {
    "port": s.prop("string", "Name or ID of the port.", constraints=[s.custom_constraint("neutron.port")]),
    "router": s.prop(
        "string",
        "Name or ID of the router.",
        required=True,
        constraints=[s.custom_constraint("neutron.router")],
    ),
    "subnet": s.prop(
        "string", "Name or ID of the subnet.", constraints=[s.custom_constraint("neutron.subnet")]
    ),
}
ROUTER_INTERFACE_ATTRIBUTES: dict[str, Any] = {}
ROUTER_INTERFACE_SUPPORT = s.support_status(None)

# ---- OS::Neutron::FloatingIP -------------------------------------------------------------------
FLOATING_IP_PROPERTIES: dict[str, Any] = {
    "dns_domain": s.prop(
        "string",
        "DNS domain of the network.",
        update_allowed=True,
        constraints=[s.custom_constraint("dns_domain")],
    ),
    "dns_name": s.prop(
        "string",
        "DNS name of the port or floating IP.",
        update_allowed=True,
        constraints=[s.custom_constraint("rel_dns_name")],
    ),
    "fixed_ip_address": s.prop(
        "string",
        "Fixed IP the floating IP maps to.",
        update_allowed=True,
        constraints=[s.custom_constraint("ip_addr")],
    ),
    "floating_ip_address": s.prop(
        "string", "The floating IP address to request.", constraints=[s.custom_constraint("ip_addr")]
    ),
    "floating_network": s.prop(
        "string",
        "Name or ID of the external network to allocate from.",
        required=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "floating_subnet": s.prop(
        "string",
        "Name or ID of the external subnet to allocate from.",
        constraints=[s.custom_constraint("neutron.subnet")],
    ),
    "port_id": s.prop(
        "string", "ID of the port.", update_allowed=True, constraints=[s.custom_constraint("neutron.port")]
    ),
    "value_specs": s.prop("map", "Extra key/value pairs passed to the API as they are.", default={}),
}
FLOATING_IP_ATTRIBUTES: dict[str, Any] = {
    "fixed_ip_address": s.attr("Fixed IP the floating IP maps to.", "string"),
    "floating_ip_address": s.attr("The floating IP address.", "string"),
    "floating_network_id": s.attr("External network ID.", "string"),
    "port_id": s.attr("ID of the port.", "string"),
    "router_id": s.attr("ID of the router.", "string"),
    "tenant_id": s.attr("Project that owns the resource.", "string"),
}
FLOATING_IP_SUPPORT = s.support_status(None)

# ---- OS::Neutron::FloatingIPAssociation --------------------------------------------------------
FLOATING_IP_ASSOCIATION_PROPERTIES: dict[str, Any] = {
    "fixed_ip_address": s.prop(
        "string",
        "Fixed IP the floating IP maps to.",
        update_allowed=True,
        constraints=[s.custom_constraint("ip_addr")],
    ),
    "floatingip_id": s.prop("string", "ID of the floating IP.", required=True, update_allowed=True),
    "port_id": s.prop(
        "string",
        "ID of the port.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
}
FLOATING_IP_ASSOCIATION_ATTRIBUTES: dict[str, Any] = {}
FLOATING_IP_ASSOCIATION_SUPPORT = s.support_status(None)
