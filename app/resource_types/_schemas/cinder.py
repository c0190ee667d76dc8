"""Heat 27's schemas of the cinder resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.cinder``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Cinder::Volume ------------------------------------------------------------------------
VOLUME_PROPERTIES: dict[str, Any] = {
    "availability_zone": s.prop("string", "Availability zone."),
    "backup_id": s.prop(
        "string",
        "ID of a backup to restore from.",
        update_allowed=True,
        constraints=[s.custom_constraint("cinder.backup")],
    ),
    "image": s.prop("string", "Name or ID of the image.", constraints=[s.custom_constraint("glance.image")]),
    "metadata": s.prop("map", "Key/value metadata.", default={}, update_allowed=True),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "read_only": s.prop("boolean", "Whether the volume is read only.", update_allowed=True),
    "scheduler_hints": s.prop("map", "Hints for the Nova scheduler."),
    "size": s.prop("integer", "Size in GB.", update_allowed=True, constraints=[s.value_range(min=1)]),
    "snapshot_id": s.prop(
        "string", "ID of the snapshot.", constraints=[s.custom_constraint("cinder.snapshot")]
    ),
    "source_volid": s.prop(
        "string", "ID of a volume to clone.", constraints=[s.custom_constraint("cinder.volume")]
    ),
    "volume_type": s.prop(
        "string",
        "Name or ID of the volume type.",
        update_allowed=True,
        constraints=[s.custom_constraint("cinder.vtype")],
    ),
}
VOLUME_ATTRIBUTES: dict[str, Any] = {
    "attachments": s.attr("Attachments (JSON text).", "string"),
    "attachments_list": s.attr("Attachments.", "list"),
    "availability_zone": s.attr("Availability zone.", "string"),
    "bootable": s.attr("Whether the volume is bootable.", "string"),
    "created_at": s.attr("Creation time.", "string"),
    "display_description": s.attr("Description.", "string"),
    "display_name": s.attr("Name.", "string"),
    "encrypted": s.attr("Whether the volume is encrypted.", "string"),
    "metadata": s.attr("Metadata.", "string"),
    "metadata_values": s.attr("Metadata (map).", "map"),
    "multiattach": s.attr("Whether the volume may be attached to several servers.", "boolean"),
    "size": s.attr("Size in GB.", "string"),
    "snapshot_id": s.attr("Snapshot the volume came from.", "string"),
    "source_volid": s.attr("Volume the volume was cloned from.", "string"),
    "status": s.attr("Status of the resource.", "string"),
    "volume_type": s.attr("Volume type.", "string"),
}
VOLUME_SUPPORT = s.support_status(None)

# ---- OS::Cinder::VolumeAttachment --------------------------------------------------------------
VOLUME_ATTACHMENT_PROPERTIES: dict[str, Any] = {
    "instance_uuid": s.prop("string", "ID of the server.", required=True, update_allowed=True),
    "mountpoint": s.prop("string", "Device the volume appears as.", update_allowed=True),
    "volume_id": s.prop(
        "string",
        "ID of the volume.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("cinder.volume")],
    ),
}
VOLUME_ATTACHMENT_ATTRIBUTES: dict[str, Any] = {}
VOLUME_ATTACHMENT_SUPPORT = s.support_status(None)

# ---- OS::Cinder::VolumeType --------------------------------------------------------------------
VOLUME_TYPE_PROPERTIES: dict[str, Any] = {
    "is_public": s.prop("boolean", "Whether the resource is public.", default=True, update_allowed=True),
    "metadata": s.prop("map", "Key/value metadata.", update_allowed=True),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        required=True,
        update_allowed=True,
    ),
    "projects": s.prop(
        "list",
        "Projects that may use a private volume type.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("keystone.project")])),
    ),
}
VOLUME_TYPE_ATTRIBUTES: dict[str, Any] = {}
VOLUME_TYPE_SUPPORT = s.support_status("2015.1")

# ---- OS::Cinder::EncryptedVolumeType -----------------------------------------------------------
ENCRYPTED_VOLUME_TYPE_PROPERTIES: dict[str, Any] = {
    "cipher": s.prop(
        "string",
        "Encryption cipher.",
        update_allowed=True,
        constraints=[s.allowed_values(["aes-xts-plain64", "aes-cbc-essiv"])],
    ),
    "control_location": s.prop(
        "string",
        "Where encryption happens (front-end or back-end).",
        default="front-end",
        update_allowed=True,
        constraints=[s.allowed_values(["front-end", "back-end"])],
    ),
    "key_size": s.prop("integer", "Encryption key size in bits.", update_allowed=True),
    "provider": s.prop("string", "Encryption provider class.", required=True, update_allowed=True),
    "volume_type": s.prop(
        "string",
        "Name or ID of the volume type.",
        required=True,
        constraints=[s.custom_constraint("cinder.vtype")],
    ),
}
ENCRYPTED_VOLUME_TYPE_ATTRIBUTES: dict[str, Any] = {}
ENCRYPTED_VOLUME_TYPE_SUPPORT = s.support_status("5.0.0")
