"""Heat 27's schemas of the neutron resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.neutron``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

#: Neutron's security group rule protocols (names and numbers), as Heat allows them.
PROTOCOLS: list[int | str] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
    26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
    50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73,
    74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97,
    98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116,
    117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135,
    136, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153, 154,
    155, 156, 157, 158, 159, 160, 161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173,
    174, 175, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 187, 188, 189, 190, 191, 192,
    193, 194, 195, 196, 197, 198, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211,
    212, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229, 230,
    231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248, 249,
    250, 251, 252, 253, 254, 255, "ah", "dccp", "egp", "esp", "gre", "icmp", "icmpv6", "igmp",
    "ipv6-encap", "ipv6-frag", "ipv6-icmp", "ipv6-nonxt", "ipv6-opts", "ipv6-route", "ospf", "pgm",
    "rsvp", "sctp", "tcp", "udp", "udplite", "vrrp",
]

# ---- OS::Neutron::Net --------------------------------------------------------------------------
NET_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "availability_zone_hints": s.prop("list", "Availability zones preferred for scheduling."),
    "dhcp_agent_ids": s.prop(
        "list", "DHCP agents to schedule the network on (admin only).", update_allowed=True
    ),
    "dns_domain": s.prop(
        "string",
        "DNS domain of the network.",
        update_allowed=True,
        constraints=[s.custom_constraint("dns_domain")],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "port_security_enabled": s.prop(
        "boolean", "Whether port security (and security groups) apply.", update_allowed=True
    ),
    "qos_policy": s.prop(
        "string",
        "Name or ID of the QoS policy to apply.",
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.qos_policy")],
    ),
    "shared": s.prop("boolean", "Whether all projects may use it.", default=False, update_allowed=True),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
    "value_specs": s.prop(
        "map", "Extra key/value pairs passed to the API as they are.", default={}, update_allowed=True
    ),
}
NET_ATTRIBUTES: dict[str, Any] = {
    "admin_state_up": s.attr("Administrative state.", "string"),
    "l2_adjacency": s.attr("Whether L2 connectivity is available across the network.", "boolean"),
    "mtu": s.attr("MTU of the network.", "integer"),
    "name": s.attr("Name of the resource.", "string"),
    "port_security_enabled": s.attr("Port security setting.", "boolean"),
    "qos_policy_id": s.attr("QoS policy ID.", "string"),
    "segments": s.attr("Segments of the network.", "list"),
    "status": s.attr("Status of the resource.", "string"),
    "subnets": s.attr("Subnets of the network.", "list"),
    "tenant_id": s.attr("Project that owns the resource.", "string"),
}
NET_SUPPORT = s.support_status(None)

# ---- OS::Neutron::Subnet -----------------------------------------------------------------------
SUBNET_PROPERTIES: dict[str, Any] = {
    "allocation_pools": s.prop(
        "list",
        "IP ranges addresses are allocated from.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "end": s.prop(
                        "string",
                        "Last address of the range.",
                        required=True,
                        constraints=[s.custom_constraint("ip_addr")],
                    ),
                    "start": s.prop(
                        "string",
                        "First address of the range.",
                        required=True,
                        constraints=[s.custom_constraint("ip_addr")],
                    ),
                },
            )
        ),
    ),
    "cidr": s.prop("string", "The subnet's CIDR.", constraints=[s.custom_constraint("net_cidr")]),
    "dns_nameservers": s.prop("list", "DNS servers handed out by DHCP.", default=[], update_allowed=True),
    "enable_dhcp": s.prop("boolean", "Whether DHCP serves the subnet.", default=True, update_allowed=True),
    "gateway_ip": s.prop("string", "Gateway IP; empty string for none.", update_allowed=True),
    "host_routes": s.prop(
        "list",
        "Routes handed out by DHCP.",
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
                        "Next hop of the route.",
                        required=True,
                        constraints=[s.custom_constraint("ip_addr")],
                    ),
                },
            )
        ),
    ),
    "ip_version": s.prop(
        "integer", "IP version (4 or 6).", default=4, constraints=[s.allowed_values([4, 6])]
    ),
    "ipv6_address_mode": s.prop(
        "string",
        "IPv6 address mode.",
        constraints=[s.allowed_values(["dhcpv6-stateful", "dhcpv6-stateless", "slaac"])],
    ),
    "ipv6_ra_mode": s.prop(
        "string",
        "IPv6 router advertisement mode.",
        constraints=[s.allowed_values(["dhcpv6-stateful", "dhcpv6-stateless", "slaac"])],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "network": s.prop(
        "string",
        "Name or ID of the network.",
        required=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "prefixlen": s.prop(
        "integer", "Prefix length when allocating from a subnet pool.", constraints=[s.value_range(min=0)]
    ),
    "segment": s.prop(
        "string",
        "Name or ID of the network segment.",
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.segment")],
    ),
    "subnetpool": s.prop(
        "string", "Name or ID of the subnet pool.", constraints=[s.custom_constraint("neutron.subnetpool")]
    ),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
    "value_specs": s.prop(
        "map", "Extra key/value pairs passed to the API as they are.", default={}, update_allowed=True
    ),
}
SUBNET_ATTRIBUTES: dict[str, Any] = {
    "allocation_pools": s.attr("Allocation pools.", "list"),
    "cidr": s.attr("CIDR.", "string"),
    "dns_nameservers": s.attr("DNS servers.", "list"),
    "enable_dhcp": s.attr("DHCP enabled.", "string"),
    "gateway_ip": s.attr("Gateway IP.", "string"),
    "host_routes": s.attr("Host routes.", "list"),
    "ip_version": s.attr("IP version.", "string"),
    "name": s.attr("Name of the resource.", "string"),
    "network_id": s.attr("ID of the network.", "string"),
    "tenant_id": s.attr("Project that owns the resource.", "string"),
}
SUBNET_SUPPORT = s.support_status(None)

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

# ---- OS::Neutron::Port -------------------------------------------------------------------------
PORT_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "allowed_address_pairs": s.prop(
        "list",
        "Extra addresses allowed through port security.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "ip_address": s.prop(
                        "string",
                        "An IP address.",
                        required=True,
                        constraints=[s.custom_constraint("ip_or_cidr")],
                    ),
                    "mac_address": s.prop(
                        "string", "MAC address of the port.", constraints=[s.custom_constraint("mac_addr")]
                    ),
                },
            )
        ),
    ),
    "binding:vnic_type": s.prop(
        "string",
        "VNIC type of the port binding.",
        default="normal",
        update_allowed=True,
        constraints=[
            s.allowed_values(
                [
                    "normal",
                    "direct",
                    "macvtap",
                    "direct-physical",
                    "baremetal",
                    "virtio-forwarder",
                    "smart-nic",
                ]
            )
        ],
    ),
    "device_id": s.prop("string", "ID of the device using the port.", default="", update_allowed=True),
    "device_owner": s.prop("string", "Owner of the device using the port.", default="", update_allowed=True),
    "dns_name": s.prop(
        "string",
        "DNS name of the port or floating IP.",
        update_allowed=True,
        constraints=[s.custom_constraint("dns_name")],
    ),
    "fixed_ips": s.prop(
        "list",
        "Fixed IPs of the port.",
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
                    "subnet_id": s.prop(
                        "string", "ID of the subnet.", constraints=[s.custom_constraint("neutron.subnet")]
                    ),
                },
            )
        ),
    ),
    "mac_address": s.prop(
        "string", "MAC address of the port.", constraints=[s.custom_constraint("mac_addr")]
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "network": s.prop(
        "string",
        "Name or ID of the network.",
        required=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "no_fixed_ips": s.prop(
        "boolean", "Create the port without any fixed IP.", default=False, update_allowed=True
    ),
    "port_security_enabled": s.prop(
        "boolean", "Whether port security (and security groups) apply.", update_allowed=True
    ),
    "propagate_uplink_status": s.prop(
        "boolean", "Whether the uplink status is propagated to the port.", update_allowed=True
    ),
    "qos_policy": s.prop(
        "string",
        "Name or ID of the QoS policy to apply.",
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.qos_policy")],
    ),
    "security_groups": s.prop("list", "Security groups (names or IDs).", update_allowed=True),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "value_specs": s.prop(
        "map", "Extra key/value pairs passed to the API as they are.", default={}, update_allowed=True
    ),
}
PORT_ATTRIBUTES: dict[str, Any] = {
    "admin_state_up": s.attr("Administrative state.", "string"),
    "allowed_address_pairs": s.attr("Allowed address pairs.", "list"),
    "device_id": s.attr("Device using the port.", "string"),
    "device_owner": s.attr("Owner of the device.", "string"),
    "dns_assignment": s.attr("DNS assignment of the port.", "map"),
    "fixed_ips": s.attr("Fixed IPs.", "list"),
    "mac_address": s.attr("MAC address.", "string"),
    "name": s.attr("Name of the resource.", "string"),
    "network": s.attr("The network (details).", "map"),
    "network_id": s.attr("ID of the network.", "string"),
    "port_security_enabled": s.attr("Port security setting.", "boolean"),
    "propagate_uplink_status": s.attr("Uplink status propagation.", "boolean"),
    "qos_policy_id": s.attr("QoS policy ID.", "string"),
    "security_groups": s.attr("Security groups.", "list"),
    "status": s.attr("Status of the resource.", "string"),
    "subnets": s.attr("Subnets of the network.", "list"),
    "tenant_id": s.attr("Project that owns the resource.", "string"),
}
PORT_SUPPORT = s.support_status(None)

# ---- OS::Neutron::SecurityGroup ----------------------------------------------------------------
SECURITY_GROUP_PROPERTIES: dict[str, Any] = {
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "rules": s.prop(
        "list",
        "Rules of the security group.",
        default=[],
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "direction": s.prop(
                        "string",
                        "Traffic direction (ingress or egress).",
                        default="ingress",
                        constraints=[s.allowed_values(["ingress", "egress"])],
                    ),
                    "ethertype": s.prop(
                        "string",
                        "IPv4 or IPv6.",
                        default="IPv4",
                        constraints=[s.allowed_values(["IPv4", "IPv6"])],
                    ),
                    "port_range_max": s.prop(
                        "integer", "Highest port of the range.", constraints=[s.value_range(min=0, max=65535)]
                    ),
                    "port_range_min": s.prop(
                        "integer", "Lowest port of the range.", constraints=[s.value_range(min=0, max=65535)]
                    ),
                    "protocol": s.prop(
                        "string",
                        "Protocol (name or number).",
                        constraints=[
                            s.allowed_values(PROTOCOLS)
                        ],
                    ),
                    "remote_group_id": s.prop(
                        "string",
                        "Remote security group ID.",
                        constraints=[s.custom_constraint("neutron.security_group")],
                    ),
                    "remote_ip_prefix": s.prop(
                        "string", "Remote CIDR.", constraints=[s.custom_constraint("net_cidr")]
                    ),
                    "remote_mode": s.prop(
                        "string",
                        "Whether the remote is an IP prefix or a group.",
                        default="remote_ip_prefix",
                        constraints=[s.allowed_values(["remote_ip_prefix", "remote_group_id"])],
                    ),
                },
            )
        ),
    ),
    "stateful": s.prop(
        "boolean", "Whether the group is stateful (connection tracking).", update_allowed=True
    ),
}
SECURITY_GROUP_ATTRIBUTES: dict[str, Any] = {}
SECURITY_GROUP_SUPPORT = s.support_status("2014.1")

# ---- OS::Neutron::SecurityGroupRule ------------------------------------------------------------
SECURITY_GROUP_RULE_PROPERTIES: dict[str, Any] = {
    "direction": s.prop(
        "string",
        "Traffic direction (ingress or egress).",
        default="ingress",
        constraints=[s.allowed_values(["ingress", "egress"])],
    ),
    "ethertype": s.prop(
        "string", "IPv4 or IPv6.", default="IPv4", constraints=[s.allowed_values(["IPv4", "IPv6"])]
    ),
    "port_range_max": s.prop(
        "integer", "Highest port of the range.", constraints=[s.value_range(min=0, max=65535)]
    ),
    "port_range_min": s.prop(
        "integer", "Lowest port of the range.", constraints=[s.value_range(min=0, max=65535)]
    ),
    "protocol": s.prop(
        "string",
        "Protocol (name or number).",
        default="tcp",
        constraints=[
            s.allowed_values(PROTOCOLS)
        ],
    ),
    "remote_group": s.prop(
        "string",
        "Name or ID of the remote security group.",
        constraints=[s.custom_constraint("neutron.security_group")],
    ),
    "remote_ip_prefix": s.prop("string", "Remote CIDR.", constraints=[s.custom_constraint("net_cidr")]),
    "security_group": s.prop(
        "string",
        "Name or ID of the security group.",
        required=True,
        constraints=[s.custom_constraint("neutron.security_group")],
    ),
}
SECURITY_GROUP_RULE_ATTRIBUTES: dict[str, Any] = {}
SECURITY_GROUP_RULE_SUPPORT = s.support_status("7.0.0")

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

# ---- OS::Neutron::ProviderNet ------------------------------------------------------------------
PROVIDER_NET_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "availability_zone_hints": s.prop(
        "list", "Availability zones preferred for scheduling.", update_allowed=True
    ),
    "dns_domain": s.prop(
        "string",
        "DNS domain of the network.",
        update_allowed=True,
        constraints=[s.custom_constraint("dns_domain")],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "network_type": s.prop(
        "string",
        "Provider network type.",
        required=True,
        update_allowed=True,
        constraints=[s.allowed_values(["local", "vlan", "vxlan", "gre", "geneve", "flat"])],
    ),
    "physical_network": s.prop("string", "Physical network of the provider network.", update_allowed=True),
    "port_security_enabled": s.prop(
        "boolean", "Whether port security (and security groups) apply.", update_allowed=True
    ),
    "router_external": s.prop(
        "boolean", "Whether the network is external.", default=False, update_allowed=True
    ),
    "segmentation_id": s.prop("string", "Segmentation ID (VLAN, VNI...).", update_allowed=True),
    "shared": s.prop("boolean", "Whether all projects may use it.", default=True, update_allowed=True),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "tenant_id": s.prop("string", "Project that owns the resource (admin only)."),
}
PROVIDER_NET_ATTRIBUTES: dict[str, Any] = {
    "segments": s.attr("Segments of the network.", "list"),
    "status": s.attr("Status of the resource.", "string"),
    "subnets": s.attr("Subnets of the network.", "list"),
}
PROVIDER_NET_SUPPORT = s.support_status("2014.1")
