"""Heat 27's schemas of the glance resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.glance``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Glance::WebImage ----------------------------------------------------------------------
WEB_IMAGE_PROPERTIES: dict[str, Any] = {
    "active": s.prop("boolean", "Whether the image is active.", default=True, update_allowed=True),
    "architecture": s.prop("string", "CPU architecture.", update_allowed=True),
    "container_format": s.prop(
        "string",
        "Container format of the image.",
        required=True,
        constraints=[s.allowed_values(["ami", "ari", "aki", "bare", "ovf", "ova", "docker"])],
    ),
    "disk_format": s.prop(
        "string",
        "Disk format of the image.",
        required=True,
        constraints=[
            s.allowed_values(
                ["ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso", "ploop"]
            )
        ],
    ),
    "extra_properties": s.prop("map", "Extra image properties.", default={}, update_allowed=True),
    "id": s.prop("string", "ID to give the image."),
    "kernel_id": s.prop(
        "string",
        "ID of the kernel image.",
        update_allowed=True,
        constraints=[
            s.allowed_pattern(
                "^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"
            )
        ],
    ),
    "location": s.prop("string", "URL of the image data.", required=True),
    "members": s.prop(
        "list", "Members of the pool.", update_allowed=True, schema=s.list_of(s.prop("string"))
    ),
    "min_disk": s.prop("integer", "Minimum disk size in GB.", default=0, constraints=[s.value_range(min=0)]),
    "min_ram": s.prop("integer", "Minimum memory in MB.", default=0, constraints=[s.value_range(min=0)]),
    "name": s.prop("string", "Name of the resource in the cloud (default: a generated physical name)."),
    "os_distro": s.prop("string", "Operating system distribution.", update_allowed=True),
    "os_version": s.prop("string", "Operating system version.", update_allowed=True),
    "owner": s.prop("string", "Owner of the image.", update_allowed=True),
    "protected": s.prop("boolean", "Whether the image may be deleted.", default=False, update_allowed=True),
    "ramdisk_id": s.prop(
        "string",
        "ID of the ramdisk image.",
        update_allowed=True,
        constraints=[
            s.allowed_pattern(
                "^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-([0-9a-fA-F]){12}$"
            )
        ],
    ),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True),
    "visibility": s.prop(
        "string",
        "Visibility of the image.",
        default="private",
        update_allowed=True,
        constraints=[s.allowed_values(["public", "private", "community", "shared"])],
    ),
}
WEB_IMAGE_ATTRIBUTES: dict[str, Any] = {}
WEB_IMAGE_SUPPORT = s.support_status("12.0.0")
