"""Heat 27's schemas of the Neutron service plug-ins' resource types (FWaaS v1, VPNaaS,
service function chaining, L2 gateways, network gateways, tap-as-a-service), as
``resource_types.json`` records them, with our own descriptions. Data only; the plugins are in
``app.resource_types.neutron_fw``, ``neutron_vpn`` and ``neutron_sfc``."""

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

# ---- OS::Neutron::VPNService -----------------------------------------------------------------
VPN_SERVICE_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "router": s.prop(
        "string",
        "Name or ID of the router of the VPN service.",
        required=True,
        constraints=[s.custom_constraint("neutron.router")],
    ),
    "subnet": s.prop(
        "string",
        "Name or ID of the subnet the VPN service serves.",
        required=True,
        constraints=[s.custom_constraint("neutron.subnet")],
    ),
}
VPN_SERVICE_ATTRIBUTES: dict[str, Any] = {
    "admin_state_up": s.attr("Administrative state (true: up).", "string"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "router_id": s.attr("ID of the router.", "string"),
    "status": s.attr("Status of the resource.", "string"),
    "subnet_id": s.attr("ID of the subnet.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
}
VPN_SERVICE_SUPPORT = s.support_status(None)

# ---- OS::Neutron::IKEPolicy ------------------------------------------------------------------
IKE_POLICY_PROPERTIES: dict[str, Any] = {
    "auth_algorithm": s.prop(
        "string",
        "Authentication hash algorithm.",
        default="sha1",
        update_allowed=True,
        constraints=[s.allowed_values(["sha1", "sha256", "sha384", "sha512", "aes-xcbc", "aes-cmac"])],
    ),
    "encryption_algorithm": s.prop(
        "string",
        "Encryption algorithm.",
        default="aes-128",
        update_allowed=True,
        constraints=[
            s.allowed_values(
                [
                    "3des",
                    "aes-128",
                    "aes-192",
                    "aes-256",
                    "aes-128-ccm-8",
                    "aes-192-ccm-8",
                    "aes-256-ccm-8",
                    "aes-128-ccm-12",
                    "aes-192-ccm-12",
                    "aes-256-ccm-12",
                    "aes-128-ccm-16",
                    "aes-192-ccm-16",
                    "aes-256-ccm-16",
                    "aes-128-gcm-8",
                    "aes-192-gcm-8",
                    "aes-256-gcm-8",
                    "aes-128-gcm-12",
                    "aes-192-gcm-12",
                    "aes-256-gcm-12",
                    "aes-128-gcm-16",
                    "aes-192-gcm-16",
                    "aes-256-gcm-16",
                    "aes-128-ctr",
                    "aes-192-ctr",
                    "aes-256-ctr",
                ]
            )
        ],
    ),
    "ike_version": s.prop(
        "string",
        "IKE version.",
        default="v1",
        update_allowed=True,
        constraints=[s.allowed_values(["v1", "v2"])],
    ),
    "lifetime": s.prop(
        "map",
        "Security association lifetime.",
        update_allowed=True,
        schema={
            "units": s.prop(
                "string",
                "Unit of the lifetime value.",
                default="seconds",
                constraints=[s.allowed_values(["seconds", "kilobytes"])],
            ),
            "value": s.prop("integer", "Lifetime value in the given units.", default=3600),
        },
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "pfs": s.prop(
        "string",
        "Perfect forward secrecy group.",
        default="group5",
        update_allowed=True,
        constraints=[
            s.allowed_values(
                [
                    "group2",
                    "group5",
                    "group14",
                    "group15",
                    "group16",
                    "group17",
                    "group18",
                    "group19",
                    "group20",
                    "group21",
                    "group22",
                    "group23",
                    "group24",
                    "group25",
                    "group26",
                    "group27",
                    "group28",
                    "group29",
                    "group30",
                    "group31",
                ]
            )
        ],
    ),
    "phase1_negotiation_mode": s.prop(
        "string", "IKE phase 1 negotiation mode.", default="main", constraints=[s.allowed_values(["main"])]
    ),
}
IKE_POLICY_ATTRIBUTES: dict[str, Any] = {
    "auth_algorithm": s.attr("Authentication hash algorithm.", "string"),
    "encryption_algorithm": s.attr("Encryption algorithm.", "string"),
    "ike_version": s.attr("IKE version.", "string"),
    "lifetime": s.attr("Security association lifetime.", "map"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "pfs": s.attr("Perfect forward secrecy group.", "string"),
    "phase1_negotiation_mode": s.attr("IKE phase 1 negotiation mode.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
}
IKE_POLICY_SUPPORT = s.support_status(None)

# ---- OS::Neutron::IPsecPolicy ----------------------------------------------------------------
IPSEC_POLICY_PROPERTIES: dict[str, Any] = {
    "auth_algorithm": s.prop(
        "string",
        "Authentication hash algorithm.",
        default="sha1",
        constraints=[s.allowed_values(["sha1", "sha256", "sha384", "sha512", "aes-xcbc", "aes-cmac"])],
    ),
    "encapsulation_mode": s.prop(
        "string",
        "Encapsulation mode.",
        default="tunnel",
        constraints=[s.allowed_values(["tunnel", "transport"])],
    ),
    "encryption_algorithm": s.prop(
        "string",
        "Encryption algorithm.",
        default="aes-128",
        constraints=[
            s.allowed_values(
                [
                    "3des",
                    "aes-128",
                    "aes-192",
                    "aes-256",
                    "aes-128-ccm-8",
                    "aes-192-ccm-8",
                    "aes-256-ccm-8",
                    "aes-128-ccm-12",
                    "aes-192-ccm-12",
                    "aes-256-ccm-12",
                    "aes-128-ccm-16",
                    "aes-192-ccm-16",
                    "aes-256-ccm-16",
                    "aes-128-gcm-8",
                    "aes-192-gcm-8",
                    "aes-256-gcm-8",
                    "aes-128-gcm-12",
                    "aes-192-gcm-12",
                    "aes-256-gcm-12",
                    "aes-128-gcm-16",
                    "aes-192-gcm-16",
                    "aes-256-gcm-16",
                    "aes-128-ctr",
                    "aes-192-ctr",
                    "aes-256-ctr",
                ]
            )
        ],
    ),
    "lifetime": s.prop(
        "map",
        "Security association lifetime.",
        schema={
            "units": s.prop(
                "string",
                "Unit of the lifetime value.",
                default="seconds",
                constraints=[s.allowed_values(["seconds", "kilobytes"])],
            ),
            "value": s.prop("integer", "Lifetime value in the given units.", default=3600),
        },
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "pfs": s.prop(
        "string",
        "Perfect forward secrecy group.",
        default="group5",
        constraints=[
            s.allowed_values(
                [
                    "group2",
                    "group5",
                    "group14",
                    "group15",
                    "group16",
                    "group17",
                    "group18",
                    "group19",
                    "group20",
                    "group21",
                    "group22",
                    "group23",
                    "group24",
                    "group25",
                    "group26",
                    "group27",
                    "group28",
                    "group29",
                    "group30",
                    "group31",
                ]
            )
        ],
    ),
    "transform_protocol": s.prop(
        "string",
        "Transform protocol.",
        default="esp",
        constraints=[s.allowed_values(["esp", "ah", "ah-esp"])],
    ),
}
IPSEC_POLICY_ATTRIBUTES: dict[str, Any] = {
    "auth_algorithm": s.attr("Authentication hash algorithm.", "string"),
    "encapsulation_mode": s.attr("Encapsulation mode.", "string"),
    "encryption_algorithm": s.attr("Encryption algorithm.", "string"),
    "lifetime": s.attr("Security association lifetime.", "map"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "pfs": s.attr("Perfect forward secrecy group.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
    "transform_protocol": s.attr("Transform protocol.", "string"),
}
IPSEC_POLICY_SUPPORT = s.support_status(None)

# ---- OS::Neutron::IPsecSiteConnection --------------------------------------------------------
IPSEC_SITE_CONNECTION_PROPERTIES: dict[str, Any] = {
    "admin_state_up": s.prop(
        "boolean", "Administrative state (true: up).", default=True, update_allowed=True
    ),
    "dpd": s.prop(
        "map",
        "Dead peer detection settings.",
        schema={
            "actions": s.prop(
                "string",
                "Action taken when a peer is found dead.",
                default="hold",
                constraints=[s.allowed_values(["clear", "disabled", "hold", "restart", "restart-by-peer"])],
            ),
            "interval": s.prop("integer", "Seconds between dead peer checks.", default=30),
            "timeout": s.prop("integer", "Seconds before a silent peer is declared dead.", default=120),
        },
    ),
    "ikepolicy_id": s.prop("string", "ID of the IKE policy.", required=True),
    "initiator": s.prop(
        "string",
        "Whether this side initiates the connection or only answers.",
        default="bi-directional",
        constraints=[s.allowed_values(["bi-directional", "response-only"])],
    ),
    "ipsecpolicy_id": s.prop("string", "ID of the IPsec policy.", required=True),
    "mtu": s.prop("integer", "MTU of the connection.", default=1500),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "peer_address": s.prop("string", "Public address of the peer gateway.", required=True),
    "peer_cidrs": s.prop(
        "list",
        "CIDRs of the peer's private networks.",
        required=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("net_cidr")])),
    ),
    "peer_id": s.prop("string", "Identity of the peer (address, FQDN or email).", required=True),
    "psk": s.prop("string", "Pre-shared key.", required=True),
    "vpnservice_id": s.prop("string", "ID of the VPN service.", required=True),
}
IPSEC_SITE_CONNECTION_ATTRIBUTES: dict[str, Any] = {
    "admin_state_up": s.attr("Administrative state (true: up).", "string"),
    "auth_mode": s.attr("Authentication mode.", "string"),
    "dpd": s.attr("Dead peer detection settings.", "map"),
    "ikepolicy_id": s.attr("ID of the IKE policy.", "string"),
    "initiator": s.attr("Whether this side initiates the connection or only answers.", "string"),
    "ipsecpolicy_id": s.attr("ID of the IPsec policy.", "string"),
    "mtu": s.attr("MTU of the connection.", "string"),
    "name": s.attr("Name of the resource in the cloud (default: a generated physical name).", "string"),
    "peer_address": s.attr("Public address of the peer gateway.", "string"),
    "peer_cidrs": s.attr("CIDRs of the peer's private networks.", "list"),
    "peer_id": s.attr("Identity of the peer (address, FQDN or email).", "string"),
    "psk": s.attr("Pre-shared key.", "string"),
    "route_mode": s.attr("Route mode.", "string"),
    "status": s.attr("Status of the resource.", "string"),
    "tenant_id": s.attr("Project that owns the resource (admin only).", "string"),
    "vpnservice_id": s.attr("ID of the VPN service.", "string"),
}
IPSEC_SITE_CONNECTION_SUPPORT = s.support_status(None)

# ---- OS::Neutron::FlowClassifier -------------------------------------------------------------
FLOW_CLASSIFIER_PROPERTIES: dict[str, Any] = {
    "destination_ip_prefix": s.prop(
        "string", "Destination CIDR matched.", constraints=[s.custom_constraint("net_cidr")]
    ),
    "destination_port_range_max": s.prop(
        "integer", "Highest destination port matched.", constraints=[s.value_range(max=65535, min=1)]
    ),
    "destination_port_range_min": s.prop(
        "integer", "Lowest destination port matched.", constraints=[s.value_range(max=65535, min=1)]
    ),
    "ethertype": s.prop(
        "string", "Ethertype matched.", default="IPv4", constraints=[s.allowed_values(["IPv4", "IPv6"])]
    ),
    "l7_parameters": s.prop("map", "Layer 7 match parameters."),
    "logical_destination_port": s.prop(
        "string",
        "Name or ID of the destination port of the flows.",
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "logical_source_port": s.prop(
        "string",
        "Name or ID of the source port of the flows.",
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "protocol": s.prop(
        "string", "IP protocol matched.", constraints=[s.allowed_values(["tcp", "udp", "icmp"])]
    ),
    "source_ip_prefix": s.prop(
        "string", "Source CIDR matched.", constraints=[s.custom_constraint("net_cidr")]
    ),
    "source_port_range_max": s.prop(
        "integer", "Highest source port matched.", constraints=[s.value_range(max=65535, min=1)]
    ),
    "source_port_range_min": s.prop(
        "integer", "Lowest source port matched.", constraints=[s.value_range(max=65535, min=1)]
    ),
}
FLOW_CLASSIFIER_ATTRIBUTES: dict[str, Any] = {}
FLOW_CLASSIFIER_SUPPORT = s.support_status("8.0.0", status="UNSUPPORTED")

# ---- OS::Neutron::PortPair -------------------------------------------------------------------
PORT_PAIR_PROPERTIES: dict[str, Any] = {
    "egress": s.prop(
        "string",
        "Name or ID of the port traffic leaves the service function by.",
        required=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "ingress": s.prop(
        "string",
        "Name or ID of the port traffic enters the service function by.",
        required=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "service_function_parameters": s.prop(
        "map", "Parameters of the service function.", default={"correlation": None}
    ),
}
PORT_PAIR_ATTRIBUTES: dict[str, Any] = {}
PORT_PAIR_SUPPORT = s.support_status("7.0.0", status="UNSUPPORTED")

# ---- OS::Neutron::PortPairGroup --------------------------------------------------------------
PORT_PAIR_GROUP_PROPERTIES: dict[str, Any] = {
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "port_pairs": s.prop(
        "list",
        "Names or IDs of the port pairs of the group.",
        required=True,
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("neutron.port_pair")])),
    ),
}
PORT_PAIR_GROUP_ATTRIBUTES: dict[str, Any] = {}
PORT_PAIR_GROUP_SUPPORT = s.support_status("8.0.0", status="UNSUPPORTED")

# ---- OS::Neutron::PortChain ------------------------------------------------------------------
PORT_CHAIN_PROPERTIES: dict[str, Any] = {
    "chain_parameters": s.prop("map", "Parameters of the chain.", default={"correlation": "mpls"}),
    "flow_classifiers": s.prop(
        "list",
        "Names or IDs of the flow classifiers of the chain.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("neutron.flow_classifier")])),
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "port_pair_groups": s.prop(
        "list",
        "Names or IDs of the port pair groups, in chain order.",
        required=True,
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("neutron.port_pair_group")])),
    ),
}
PORT_CHAIN_ATTRIBUTES: dict[str, Any] = {}
PORT_CHAIN_SUPPORT = s.support_status("8.0.0", status="UNSUPPORTED")

# ---- OS::Neutron::L2Gateway ------------------------------------------------------------------
L2_GATEWAY_PROPERTIES: dict[str, Any] = {
    "devices": s.prop(
        "list",
        "Gateway devices.",
        required=True,
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "device_name": s.prop("string", "Name of the gateway device.", required=True),
                    "interfaces": s.prop(
                        "list",
                        "Interfaces of the device.",
                        required=True,
                        schema=s.list_of(
                            s.prop(
                                "map",
                                schema={
                                    "name": s.prop(
                                        "string", "Name of the interface on the device.", required=True
                                    ),
                                    "segmentation_id": s.prop("list", "Segmentation IDs of the interface."),
                                },
                            )
                        ),
                    ),
                },
            )
        ),
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        required=True,
        update_allowed=True,
    ),
}
L2_GATEWAY_ATTRIBUTES: dict[str, Any] = {}
L2_GATEWAY_SUPPORT = s.support_status("12.0.0")

# ---- OS::Neutron::L2GatewayConnection --------------------------------------------------------
L2_GATEWAY_CONNECTION_PROPERTIES: dict[str, Any] = {
    "l2_gateway_id": s.prop("string", "ID of the L2 gateway.", required=True),
    "network_id": s.prop(
        "string",
        "Name or ID of the network connected.",
        required=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "segmentation_id": s.prop("string", "Segmentation ID of the connection."),
}
L2_GATEWAY_CONNECTION_ATTRIBUTES: dict[str, Any] = {}
L2_GATEWAY_CONNECTION_SUPPORT = s.support_status("12.0.0")

# ---- OS::Neutron::NetworkGateway -------------------------------------------------------------
NETWORK_GATEWAY_PROPERTIES: dict[str, Any] = {
    "connections": s.prop(
        "list",
        "Networks connected through the gateway.",
        default={},
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "network": s.prop(
                        "string",
                        "Name or ID of the network connected.",
                        required=True,
                        constraints=[s.custom_constraint("neutron.network")],
                    ),
                    "network_id": s.prop(
                        "string", "ID of the network.", constraints=[s.custom_constraint("neutron.network")]
                    ),
                    "segmentation_id": s.prop(
                        "integer",
                        "Segmentation ID (VLAN tag or tunnel key).",
                        constraints=[s.value_range(max=4094, min=0)],
                    ),
                    "segmentation_type": s.prop(
                        "string",
                        "Segmentation type.",
                        default="flat",
                        constraints=[s.allowed_values(["flat", "vlan"])],
                    ),
                },
            )
        ),
    ),
    "devices": s.prop(
        "list",
        "Gateway devices.",
        required=True,
        update_allowed=True,
        constraints=[s.length(min=1)],
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "id": s.prop("string", "ID of the device.", required=True),
                    "interface_name": s.prop(
                        "string", "Interface of the device the gateway uses.", required=True
                    ),
                },
            )
        ),
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
}
NETWORK_GATEWAY_ATTRIBUTES: dict[str, Any] = {
    "default": s.attr("Whether this is the default gateway.", "string"),
}
NETWORK_GATEWAY_SUPPORT = s.support_status("2014.1")

# ---- OS::Neutron::TaaS::TapService -----------------------------------------------------------
TAP_SERVICE_PROPERTIES: dict[str, Any] = {
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        default="",
        update_allowed=True,
    ),
    "port": s.prop(
        "string",
        "Name or ID of the port mirrored traffic goes to.",
        required=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
}
TAP_SERVICE_ATTRIBUTES: dict[str, Any] = {}
TAP_SERVICE_SUPPORT = s.support_status("12.0.0")

# ---- OS::Neutron::TaaS::TapFlow --------------------------------------------------------------
TAP_FLOW_PROPERTIES: dict[str, Any] = {
    "direction": s.prop(
        "string",
        "Direction of the traffic mirrored.",
        default="BOTH",
        constraints=[s.allowed_values(["IN", "OUT", "BOTH"])],
    ),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        default="",
        update_allowed=True,
    ),
    "port": s.prop(
        "string",
        "Name or ID of the port whose traffic is mirrored.",
        required=True,
        constraints=[s.custom_constraint("neutron.port")],
    ),
    "tap_service": s.prop(
        "string",
        "Name or ID of the tap service.",
        required=True,
        constraints=[s.custom_constraint("neutron.taas.tap_service")],
    ),
    "vlan_filter": s.prop(
        "string",
        "VLAN IDs mirrored (e.g. 9,18,27-36).",
        constraints=[s.allowed_pattern("^([0-9]+(-[0-9]+)?)(,([0-9]+(-[0-9]+)?))*$")],
    ),
}
TAP_FLOW_ATTRIBUTES: dict[str, Any] = {}
TAP_FLOW_SUPPORT = s.support_status("12.0.0")
