"""Heat 27's schemas of Neutron's core resource types (Net, Subnet, Port, ProviderNet), as
``resource_types.json`` records them (names, types, defaults, required, update_allowed,
immutable, constraints), with our own descriptions. Data only; the plugins are in
``app.resource_types.neutron``. The L3 types' are in ``neutron_l3``, the security groups' in
``neutron_sg``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

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
