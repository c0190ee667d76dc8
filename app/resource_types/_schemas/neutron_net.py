"""Heat 27's schemas of the Neutron networking extensions' resource types (trunks, subnet
pools, address scopes, segments, RBAC, quotas, extra routes, port forwarding, metering), as
``resource_types.json`` records them, with our own descriptions. Data only; the plugins are in
``app.resource_types.neutron_net`` and ``neutron_qos``; the QoS types' are in ``neutron_qos``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Neutron::Trunk ----------------------------------------------------------------------
TRUNK_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop("boolean", "Administrative state (true: up).", update_allowed=True),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "port": s.prop(
        "string",
        "Name or ID of the trunk's parent port.",
        required=True,
        immutable=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "sub_ports": s.prop(
        "list",
        "Subports of the trunk: a port, its segmentation type and ID.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "port": s.prop(
                        "string",
                        "Name or ID of the subport's port.",
                        required=True,
                        constraints=[s.custom_constraint("neutron.port")],
                    ),
                    "segmentation_id": s.prop(
                        "integer",
                        "Segmentation ID the subport's traffic is presented with.",
                        required=True,
                        constraints=[s.value_range(max=4094, min=1)],
                    ),
                    "segmentation_type": s.prop(
                        "string",
                        "Segmentation type the subport's traffic is presented with.",
                        required=True,
                        constraints=[s.allowed_values(["vlan"])],
                    ),
                },
            )
        ),
    ),
}
TRUNK_ATTRIBUTES: dict[str, Any] = {
    "port_id": s.attr("ID of the trunk's parent port.", "string"),
}
TRUNK_SUPPORT = s.support_status("9.0.0")

# ---- OS::Neutron::SubnetPool -----------------------------------------------------------------
SUBNET_POOL_PROPERTIES: dict[str, Any] = {
    "address_scope": s.prop(
        "string",
        "Name or ID of the address scope of the pool.",
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.address_scope")],
    ),
    "default_prefixlen": s.prop(
        "integer",
        "Prefix length of a subnet allocated without one.",
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "default_quota": s.prop(
        "integer",
        "Per-project limit of addresses allocated from the pool.",
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "is_default": s.prop("boolean", "Whether this is the default pool.", default=False, update_allowed=True),
    "max_prefixlen": s.prop(
        "integer",
        "Largest prefix length a subnet may have.",
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "min_prefixlen": s.prop(
        "integer",
        "Smallest prefix length a subnet may have.",
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "prefixes": s.prop(
        "list",
        "CIDRs the pool allocates subnets from.",
        required=True,
        update_allowed=True,
        constraints=[s.length(min=1)],
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("net_cidr")])),
    ),
    "shared": s.prop("boolean", "Whether other projects may use it.", default=False),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
SUBNET_POOL_ATTRIBUTES: dict[str, Any] = {}
SUBNET_POOL_SUPPORT = s.support_status("6.0.0")

# ---- OS::Neutron::AddressScope ---------------------------------------------------------------
ADDRESS_SCOPE_PROPERTIES: dict[str, Any] = {
    "ip_version": s.prop(
        "integer", "IP version (4 or 6).", default=4, constraints=[s.allowed_values([4, 6])]
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "shared": s.prop("boolean", "Whether other projects may use it.", default=False, update_allowed=True),
    "tenant_id": s.prop(
        "string",
        "Project that owns the resource (admin only).",
        constraints=[s.custom_constraint("keystone.project")],
    ),
}
ADDRESS_SCOPE_ATTRIBUTES: dict[str, Any] = {}
ADDRESS_SCOPE_SUPPORT = s.support_status("6.0.0")

# ---- OS::Neutron::Segment --------------------------------------------------------------------
SEGMENT_PROPERTIES: dict[str, Any] = {
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "network": s.prop(
        "string",
        "Name or ID of the network the segment belongs to.",
        required=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "network_type": s.prop(
        "string",
        "Type of the segment's network.",
        required=True,
        constraints=[s.allowed_values(["local", "vlan", "vxlan", "gre", "geneve", "flat"])],
    ),
    "physical_network": s.prop("string", "Physical network of the segment."),
    "segmentation_id": s.prop(
        "integer", "Segmentation ID of the segment.", constraints=[s.value_range(min=1)]
    ),
}
SEGMENT_ATTRIBUTES: dict[str, Any] = {}
SEGMENT_SUPPORT = s.support_status("9.0.0")

# ---- OS::Neutron::RBACPolicy -----------------------------------------------------------------
RBAC_POLICY_PROPERTIES: dict[str, Any] = {
    "action": s.prop(
        "string",
        "Access granted.",
        required=True,
        constraints=[s.allowed_values(["access_as_shared", "access_as_external"])],
    ),
    "object_id": s.prop("string", "Name or ID of the object shared.", required=True),
    "object_type": s.prop(
        "string",
        "Kind of object the policy shares.",
        required=True,
        constraints=[
            s.allowed_values(["network", "qos_policy", "security_group", "address_scope", "subnetpool"])
        ],
    ),
    "target_tenant": s.prop(
        "string", "Project given access ('*' for every project).", required=True, update_allowed=True
    ),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
RBAC_POLICY_ATTRIBUTES: dict[str, Any] = {}
RBAC_POLICY_SUPPORT = s.support_status("6.0.0")

# ---- OS::Neutron::Quota ----------------------------------------------------------------------
QUOTA_PROPERTIES: dict[str, Any] = {
    "floatingip": s.prop(
        "integer",
        "Floating IPs allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "network": s.prop(
        "integer",
        "Networks allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "port": s.prop(
        "integer", "Ports allowed (-1: unlimited).", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "project": s.prop(
        "string",
        "Name or ID of the project the quota applies to.",
        required=True,
        constraints=[s.custom_constraint("keystone.project")],
    ),
    "rbac_policy": s.prop(
        "integer",
        "RBAC policies allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "router": s.prop(
        "integer",
        "Routers allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "security_group": s.prop(
        "integer",
        "Security groups allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "security_group_rule": s.prop(
        "integer",
        "Security group rules allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "subnet": s.prop(
        "integer",
        "Subnets allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
    "subnetpool": s.prop(
        "integer",
        "Subnet pools allowed (-1: unlimited).",
        update_allowed=True,
        constraints=[s.value_range(min=-1)],
    ),
}
QUOTA_ATTRIBUTES: dict[str, Any] = {}
QUOTA_SUPPORT = s.support_status("8.0.0")

# ---- OS::Neutron::ExtraRoute -----------------------------------------------------------------
EXTRA_ROUTE_PROPERTIES: dict[str, Any] = {
    "destination": s.prop("string", "Destination CIDR of the route.", required=True),
    "nexthop": s.prop("string", "Next hop address of the route.", required=True),
    "router_id": s.prop(
        "string", "ID of the router.", required=True, constraints=[s.custom_constraint("neutron.router")]
    ),
}
EXTRA_ROUTE_ATTRIBUTES: dict[str, Any] = {}
EXTRA_ROUTE_SUPPORT = s.support_status(
    None, status="UNSUPPORTED", message="Use this resource at your own risk."
)

# ---- OS::Neutron::ExtraRouteSet --------------------------------------------------------------
EXTRA_ROUTE_SET_PROPERTIES: dict[str, Any] = {
    "router": s.prop(
        "string",
        "Name or ID of the router.",
        required=True,
        constraints=[s.custom_constraint("neutron.router")],
    ),
    "routes": s.prop(
        "list",
        "Extra routes of the router.",
        default=[],
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "destination": s.prop(
                        "string",
                        "Destination CIDR of the route.",
                        required=True,
                        constraints=[s.custom_constraint("net_cidr")],
                    ),
                    "nexthop": s.prop(
                        "string",
                        "Next hop address of the route.",
                        required=True,
                        constraints=[s.custom_constraint("ip_addr")],
                    ),
                },
            )
        ),
    ),
}
EXTRA_ROUTE_SET_ATTRIBUTES: dict[str, Any] = {}
EXTRA_ROUTE_SET_SUPPORT = s.support_status("14.0.0")

# ---- OS::Neutron::FloatingIPPortForward ------------------------------------------------------
FLOATING_IP_PORT_FORWARD_PROPERTIES: dict[str, Any] = {
    "external_port": s.prop(
        "integer",
        "Port number on the floating IP.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(max=65535, min=1)],
    ),
    "floating_ip": s.prop("string", "ID of the floating IP.", required=True),
    "internal_ip_address": s.prop(
        "string",
        "Fixed IP of the internal port traffic is forwarded to.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("ip_addr")],
    ),
    "internal_port": s.prop(
        "string",
        "Name or ID of the internal port.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "internal_port_number": s.prop(
        "integer",
        "Port number traffic is forwarded to.",
        update_allowed=True,
        constraints=[s.value_range(max=65535, min=1)],
    ),
    "protocol": s.prop(
        "string",
        "IP protocol forwarded.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["tcp", "udp", "icmp", "icmp6", "sctp", "dccp"])],
    ),
}
FLOATING_IP_PORT_FORWARD_ATTRIBUTES: dict[str, Any] = {}
FLOATING_IP_PORT_FORWARD_SUPPORT = s.support_status("19.0.0")

# ---- OS::Neutron::MeteringLabel --------------------------------------------------------------
METERING_LABEL_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the resource in the cloud (default: a generated physical name)."),
    "shared": s.prop("boolean", "Whether other projects may use it.", default=False),
}
METERING_LABEL_ATTRIBUTES: dict[str, Any] = {
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "shared": s.attr("Whether other projects may use it.", "string"),
}
METERING_LABEL_SUPPORT = s.support_status("2014.1")

# ---- OS::Neutron::MeteringRule ---------------------------------------------------------------
METERING_RULE_PROPERTIES: dict[str, Any] = {
    "direction": s.prop(
        "string",
        "Direction of the traffic the rule applies to.",
        default="ingress",
        constraints=[s.allowed_values(["ingress", "egress"])],
    ),
    "excluded": s.prop("boolean", "Whether the prefix is excluded from the count.", default="False"),
    "metering_label_id": s.prop("string", "ID of the metering label.", required=True),
    "remote_ip_prefix": s.prop("string", "CIDR the traffic counted comes from or goes to.", required=True),
}
METERING_RULE_ATTRIBUTES: dict[str, Any] = {
    "direction": s.attr("Direction of the traffic the rule applies to.", "string"),
    "excluded": s.attr("Whether the prefix is excluded from the count.", "string"),
    "metering_label_id": s.attr("ID of the metering label.", "string"),
    "remote_ip_prefix": s.attr("CIDR the traffic counted comes from or goes to.", "string"),
}
METERING_RULE_SUPPORT = s.support_status("2014.1")
