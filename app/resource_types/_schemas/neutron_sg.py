"""Heat 27's schemas of Neutron's security groups and their rules (SecurityGroup,
SecurityGroupRule), as ``resource_types.json`` records them (names, types, defaults, required,
update_allowed, immutable, constraints), with our own descriptions. Data only; the plugins are
in ``app.resource_types.neutron_sg``."""

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
