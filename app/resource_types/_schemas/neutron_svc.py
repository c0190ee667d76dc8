"""Heat 27's schemas of the Neutron service plug-ins' resource types (service function chaining,
L2 gateways, network gateways, tap-as-a-service), as ``resource_types.json`` records them, with
our own descriptions. Data only; the plugins are in ``app.resource_types.neutron_sfc``. FWaaS's
are in ``neutron_fw``, VPNaaS's in ``neutron_vpn``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

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
