"""Heat 27's schemas of the Zun resource types, as ``resource_types.json`` records them,
with our own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Zun::Container ----------------------------------------
CONTAINER_PROPERTIES: dict[str, Any] = {
    "command": s.prop("string", "Command."),
    "cpu": s.prop("number", "Cpu.", update_allowed=True),
    "environment": s.prop("map", "Environment."),
    "hints": s.prop("map", "Hints."),
    "hostname": s.prop("string", "Hostname."),
    "image": s.prop("string", "Image.", required=True),
    "image_driver": s.prop("string", "Image driver.", constraints=[s.allowed_values(["docker", "glance"])]),
    "image_pull_policy": s.prop(
        "string", "Image pull policy.", constraints=[s.allowed_values(["ifnotpresent", "always", "never"])]
    ),
    "interactive": s.prop("boolean", "Interactive."),
    "labels": s.prop("map", "Labels."),
    "memory": s.prop("integer", "Memory.", update_allowed=True),
    "mounts": s.prop(
        "list",
        "Mounts.",
        schema=s.list_of(
            s.prop(
                "map",
                "Item.",
                schema={
                    "mount_path": s.prop("string", "Mount path.", required=True),
                    "volume_id": s.prop(
                        "string", "Volume id.", constraints=[s.custom_constraint("cinder.volume")]
                    ),
                    "volume_size": s.prop("integer", "Volume size."),
                },
            )
        ),
    ),
    "name": s.prop("string", "Name.", update_allowed=True),
    "networks": s.prop(
        "list",
        "Networks.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                "Item.",
                schema={
                    "fixed_ip": s.prop("string", "Fixed ip.", constraints=[s.custom_constraint("ip_addr")]),
                    "network": s.prop(
                        "string", "Network.", constraints=[s.custom_constraint("neutron.network")]
                    ),
                    "port": s.prop("string", "Port.", constraints=[s.custom_constraint("neutron.port")]),
                },
            )
        ),
    ),
    "restart_policy": s.prop("string", "Restart policy."),
    "security_groups": s.prop("list", "Security groups.", default=[]),
    "tty": s.prop("boolean", "Tty."),
    "workdir": s.prop("string", "Workdir."),
}
CONTAINER_ATTRIBUTES: dict[str, Any] = {
    "addresses": s.attr("Addresses.", "map"),
    "name": s.attr("Name.", "string"),
}
CONTAINER_SUPPORT = s.support_status("9.0.0")
