"""Heat 27's schemas of the octavia resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.octavia``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Octavia::LoadBalancer -----------------------------------------------------------------
LOAD_BALANCER_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "availability_zone": s.prop(
        "string", "Availability zone.", constraints=[s.custom_constraint("octavia.availabilityzone")]
    ),
    "flavor": s.prop(
        "string", "Name or ID of the flavor.", constraints=[s.custom_constraint("octavia.flavor")]
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "provider": s.prop("string", "Encryption provider class."),
    "tenant_id": s.prop(
        "string",
        "Project that owns the resource (admin only).",
        constraints=[s.custom_constraint("keystone.project")],
    ),
    "vip_address": s.prop("string", "Virtual IP address.", constraints=[s.custom_constraint("ip_addr")]),
    "vip_subnet": s.prop(
        "string",
        "Name or ID of the VIP subnet.",
        required=True,
        constraints=[s.custom_constraint("neutron.subnet")],
    ),
}
LOAD_BALANCER_ATTRIBUTES: dict[str, Any] = {
    "flavor_id": s.attr("ID of the flavor.", "string"),
    "pools": s.attr("Pools.", "list"),
    "vip_address": s.attr("VIP address.", "string"),
    "vip_port_id": s.attr("VIP port ID.", "string"),
    "vip_subnet_id": s.attr("VIP subnet ID.", "string"),
}
LOAD_BALANCER_SUPPORT = s.support_status("10.0.0")

# ---- OS::Octavia::Listener ---------------------------------------------------------------------
LISTENER_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "allowed_cidrs": s.prop(
        "list",
        "CIDRs allowed to connect.",
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("net_cidr")])),
    ),
    "connection_limit": s.prop(
        "integer",
        "Maximum connections (-1: unlimited).",
        default=-1,
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "default_pool": s.prop(
        "string",
        "Name or ID of the default pool.",
        update_allowed=True,
        constraints=[s.custom_constraint("octavia.pool")],
    ),
    "default_tls_container_ref": s.prop("string", "TLS container for TERMINATED_HTTPS.", update_allowed=True),
    "loadbalancer": s.prop(
        "string",
        "Name or ID of the load balancer.",
        required=True,
        constraints=[s.custom_constraint("octavia.loadbalancer")],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "protocol": s.prop(
        "string",
        "Protocol (name or number).",
        required=True,
        constraints=[s.allowed_values(["TCP", "HTTP", "HTTPS", "TERMINATED_HTTPS", "PROXY", "UDP"])],
    ),
    "protocol_port": s.prop(
        "integer", "Port number.", required=True, constraints=[s.value_range(min=1, max=65535)]
    ),
    "sni_container_refs": s.prop("list", "TLS containers for SNI.", update_allowed=True),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
LISTENER_ATTRIBUTES: dict[str, Any] = {
    "default_pool_id": s.attr("Default pool ID.", "string"),
    "loadbalancers": s.attr("Load balancers.", "list"),
}
LISTENER_SUPPORT = s.support_status("10.0.0")

# ---- OS::Octavia::Pool -------------------------------------------------------------------------
POOL_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "lb_algorithm": s.prop(
        "string",
        "Load balancing algorithm.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT"])],
    ),
    "listener": s.prop(
        "string", "Name or ID of the listener.", constraints=[s.custom_constraint("octavia.listener")]
    ),
    "loadbalancer": s.prop(
        "string",
        "Name or ID of the load balancer.",
        constraints=[s.custom_constraint("octavia.loadbalancer")],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "protocol": s.prop(
        "string",
        "Protocol (name or number).",
        required=True,
        constraints=[s.allowed_values(["TCP", "HTTP", "HTTPS", "TERMINATED_HTTPS", "PROXY", "UDP"])],
    ),
    "session_persistence": s.prop(
        "map",
        "Session persistence.",
        update_allowed=True,
        schema={
            "cookie_name": s.prop("string", "Cookie name for APP_COOKIE persistence."),
            "type": s.prop(
                "string",
                "Type.",
                required=True,
                constraints=[s.allowed_values(["SOURCE_IP", "HTTP_COOKIE", "APP_COOKIE"])],
            ),
        },
    ),
    "tls_enabled": s.prop(
        "boolean", "Whether members are reached over TLS.", default=False, update_allowed=True
    ),
}
POOL_ATTRIBUTES: dict[str, Any] = {
    "healthmonitor_id": s.attr("Health monitor ID.", "string"),
    "listeners": s.attr("Listeners.", "string"),
    "members": s.attr("Members.", "list"),
}
POOL_SUPPORT = s.support_status("10.0.0")

# ---- OS::Octavia::PoolMember -------------------------------------------------------------------
POOL_MEMBER_PROPERTIES: dict[str, Any] = {
    "address": s.prop(
        "string", "IP address of the member.", required=True, constraints=[s.custom_constraint("ip_addr")]
    ),
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "monitor_address": s.prop(
        "string", "Address health checks go to.", constraints=[s.custom_constraint("ip_addr")]
    ),
    "monitor_port": s.prop(
        "integer", "Port health checks go to.", constraints=[s.value_range(min=1, max=65535)]
    ),
    "pool": s.prop(
        "string", "Name or ID of the pool.", required=True, constraints=[s.custom_constraint("octavia.pool")]
    ),
    "protocol_port": s.prop(
        "integer", "Port number.", required=True, constraints=[s.value_range(min=1, max=65535)]
    ),
    "subnet": s.prop(
        "string", "Name or ID of the subnet.", constraints=[s.custom_constraint("neutron.subnet")]
    ),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True),
    "weight": s.prop(
        "integer",
        "Weight of the member.",
        default=1,
        update_allowed=True,
        constraints=[s.value_range(min=0, max=256)],
    ),
}
POOL_MEMBER_ATTRIBUTES: dict[str, Any] = {}
POOL_MEMBER_SUPPORT = s.support_status("10.0.0")

# ---- OS::Octavia::HealthMonitor ----------------------------------------------------------------
HEALTH_MONITOR_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "delay": s.prop(
        "integer",
        "Seconds between checks.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "expected_codes": s.prop("string", "HTTP codes that mean healthy.", update_allowed=True),
    "http_method": s.prop(
        "string",
        "HTTP method of the check.",
        update_allowed=True,
        constraints=[
            s.allowed_values(["GET", "HEAD", "POST", "PUT", "DELETE", "TRACE", "OPTIONS", "CONNECT", "PATCH"])
        ],
    ),
    "max_retries": s.prop(
        "integer",
        "Failures before a member is down.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(min=1, max=10)],
    ),
    "pool": s.prop(
        "string", "Name or ID of the pool.", required=True, constraints=[s.custom_constraint("octavia.pool")]
    ),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
    "timeout": s.prop(
        "integer",
        "Timeout in seconds.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "type": s.prop(
        "string",
        "Type.",
        required=True,
        constraints=[s.allowed_values(["PING", "TCP", "HTTP", "HTTPS", "UDP-CONNECT"])],
    ),
    "url_path": s.prop("string", "HTTP path of the check.", update_allowed=True),
}
HEALTH_MONITOR_ATTRIBUTES: dict[str, Any] = {
    "pools": s.attr("Pools.", "list"),
}
HEALTH_MONITOR_SUPPORT = s.support_status("10.0.0")
