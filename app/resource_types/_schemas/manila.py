"""Heat 27's schemas of the manila resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.manila``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Manila::ShareType ---------------------------------------------------------------------
SHARE_TYPE_PROPERTIES: dict[str, Any] = {
    "driver_handles_share_servers": s.prop(
        "boolean", "Whether the backend driver manages share servers.", required=True
    ),
    "extra_specs": s.prop("map", "Extra specifications of the share type.", update_allowed=True),
    "is_public": s.prop("boolean", "Whether other projects see it.", default=True),
    "name": s.prop("string", "Name of the object in the cloud.", required=True),
    "snapshot_support": s.prop("boolean", "Whether shares of this type support snapshots.", default=True),
}
SHARE_TYPE_ATTRIBUTES: dict[str, Any] = {}
SHARE_TYPE_SUPPORT = s.support_status("5.0.0")

# ---- OS::Manila::ShareNetwork ------------------------------------------------------------------
SHARE_NETWORK_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the object in the cloud.", update_allowed=True),
    "neutron_network": s.prop(
        "string",
        "Name or ID of the Neutron network.",
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "neutron_subnet": s.prop(
        "string",
        "Name or ID of the Neutron subnet.",
        update_allowed=True,
        constraints=[s.custom_constraint("neutron.subnet")],
    ),
    "security_services": s.prop(
        "list",
        "Names or IDs of the security services.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", "A security service.")),
    ),
}
SHARE_NETWORK_ATTRIBUTES: dict[str, Any] = {
    "cidr": s.attr("CIDR of the network.", "string"),
    "ip_version": s.attr("IP version of the network.", "string"),
    "network_type": s.attr("Network type.", "string"),
    "segmentation_id": s.attr("Segmentation ID of the network.", "string"),
}
SHARE_NETWORK_SUPPORT = s.support_status("5.0.0")

# ---- OS::Manila::SecurityService ---------------------------------------------------------------
SECURITY_SERVICE_PROPERTIES: dict[str, Any] = {
    "dns_ip": s.prop("string", "DNS server address.", update_allowed=True),
    "domain": s.prop("string", "Domain of the service.", update_allowed=True),
    "name": s.prop("string", "Name of the object in the cloud.", update_allowed=True),
    "password": s.prop("string", "Password of the user.", update_allowed=True),
    "server": s.prop("string", "Address of the security service server.", update_allowed=True),
    "type": s.prop(
        "string",
        "Kind of security service.",
        required=True,
        constraints=[s.allowed_values(["ldap", "kerberos", "active_directory"])],
    ),
    "user": s.prop("string", "User name.", update_allowed=True),
}
SECURITY_SERVICE_ATTRIBUTES: dict[str, Any] = {}
SECURITY_SERVICE_SUPPORT = s.support_status("5.0.0")

# ---- OS::Manila::Share -------------------------------------------------------------------------
SHARE_PROPERTIES: dict[str, Any] = {
    "access_rules": s.prop(
        "list",
        "Access rules granted on the share.",
        default=[],
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                "One access rule.",
                schema={
                    "access_level": s.prop(
                        "string", "Read-only or read-write.", constraints=[s.allowed_values(["ro", "rw"])]
                    ),
                    "access_to": s.prop(
                        "string", "Who or what is granted access (address, user, certificate).", required=True
                    ),
                    "access_type": s.prop(
                        "string",
                        "Kind of the access rule.",
                        required=True,
                        constraints=[s.allowed_values(["ip", "user", "cert", "cephx"])],
                    ),
                },
            )
        ),
    ),
    "is_public": s.prop("boolean", "Whether other projects see it.", default=False, update_allowed=True),
    "metadata": s.prop("map", "Key/value metadata.", update_allowed=True),
    "name": s.prop("string", "Name of the object in the cloud.", update_allowed=True),
    "share_network": s.prop(
        "string",
        "Name or ID of the share network.",
        constraints=[s.custom_constraint("manila.share_network")],
    ),
    "share_protocol": s.prop(
        "string",
        "File sharing protocol.",
        required=True,
        constraints=[s.allowed_values(["NFS", "CIFS", "GlusterFS", "HDFS", "CEPHFS"])],
    ),
    "share_type": s.prop(
        "string", "Name or ID of the share type.", constraints=[s.custom_constraint("manila.share_type")]
    ),
    "size": s.prop("integer", "Size in GB.", required=True),
    "snapshot": s.prop(
        "string",
        "Name or ID of the snapshot to start from.",
        constraints=[s.custom_constraint("manila.share_snapshot")],
    ),
}
SHARE_ATTRIBUTES: dict[str, Any] = {
    "availability_zone": s.attr("Availability zone.", "string"),
    "created_at": s.attr("Creation time.", "string"),
    "export_locations": s.attr("Paths the share is exported at.", "list"),
    "host": s.attr("Backend host of the share.", "string"),
    "project_id": s.attr("Owning project.", "string"),
    "share_server_id": s.attr("ID of the share server.", "string"),
    "status": s.attr("Status of the object.", "string"),
}
SHARE_SUPPORT = s.support_status("5.0.0")
