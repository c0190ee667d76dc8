"""Heat 27's schemas of Neutron's VPNaaS resource types (VPNService, IKEPolicy, IPsecPolicy,
IPsecSiteConnection), as ``resource_types.json`` records them, with our own descriptions. Data
only; the plugins are in ``app.resource_types.neutron_fw``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

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
