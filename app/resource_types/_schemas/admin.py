"""Heat 27's schemas of the Nova and Cinder admin types (host aggregates, quotas, QoS specs),
as ``resource_types.json`` records them (names, types, defaults, required, update_allowed, immutable, constraints), with our own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Nova::HostAggregate -------------------------------------------------------------------
HOST_AGGREGATE_PROPERTIES: dict[str, Any] = {
    "availability_zone": s.prop("string", "Availability zone.", update_allowed=True),
    "hosts": s.prop(
        "list",
        "Hosts in the aggregate.",
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("nova.host")])),
    ),
    "metadata": s.prop("map", "Key/value metadata.", default={}, update_allowed=True),
    "name": s.prop("string", "Name of the resource in the cloud.", required=True, update_allowed=True),
}
HOST_AGGREGATE_ATTRIBUTES: dict[str, Any] = {}
HOST_AGGREGATE_SUPPORT = s.support_status("6.0.0")

# ---- OS::Nova::Quota ---------------------------------------------------------------------------
NOVA_QUOTA_PROPERTIES: dict[str, Any] = {
    "cores": s.prop("integer", "Cores.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "fixed_ips": s.prop("integer", "Fixed ips.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "floating_ips": s.prop(
        "integer", "Floating ips.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "injected_file_content_bytes": s.prop(
        "integer", "Injected file content bytes.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "injected_file_path_bytes": s.prop(
        "integer", "Injected file path bytes.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "injected_files": s.prop(
        "integer", "Injected files.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "instances": s.prop("integer", "Instances.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "key_pairs": s.prop("integer", "Key pairs.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "metadata_items": s.prop(
        "integer", "Metadata items.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "project": s.prop(
        "string",
        "Name or ID of the project.",
        required=True,
        constraints=[s.custom_constraint("keystone.project")],
    ),
    "ram": s.prop("integer", "Ram.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "security_group_rules": s.prop(
        "integer", "Security group rules.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "security_groups": s.prop(
        "integer", "Security groups.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "server_group_members": s.prop(
        "integer", "Server group members.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "server_groups": s.prop(
        "integer", "Server groups.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
}
NOVA_QUOTA_ATTRIBUTES: dict[str, Any] = {}
NOVA_QUOTA_SUPPORT = s.support_status("8.0.0")

# ---- OS::Cinder::Quota -------------------------------------------------------------------------
CINDER_QUOTA_PROPERTIES: dict[str, Any] = {
    "backup_gigabytes": s.prop(
        "integer", "Backup gigabytes.", update_allowed=True, constraints=[s.value_range(min=-1)]
    ),
    "backups": s.prop("integer", "Backups.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "gigabytes": s.prop("integer", "Gigabytes.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "project": s.prop(
        "string",
        "Name or ID of the project.",
        required=True,
        constraints=[s.custom_constraint("keystone.project")],
    ),
    "snapshots": s.prop("integer", "Snapshots.", update_allowed=True, constraints=[s.value_range(min=-1)]),
    "volumes": s.prop("integer", "Volumes.", update_allowed=True, constraints=[s.value_range(min=-1)]),
}
CINDER_QUOTA_ATTRIBUTES: dict[str, Any] = {}
CINDER_QUOTA_SUPPORT = s.support_status("7.0.0")

# ---- OS::Cinder::QoSSpecs ----------------------------------------------------------------------
QOS_SPECS_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the resource in the cloud."),
    "specs": s.prop("map", "QoS specification key/value pairs.", required=True, update_allowed=True),
}
QOS_SPECS_ATTRIBUTES: dict[str, Any] = {}
QOS_SPECS_SUPPORT = s.support_status("7.0.0")

# ---- OS::Cinder::QoSAssociation ----------------------------------------------------------------
QOS_ASSOCIATION_PROPERTIES: dict[str, Any] = {
    "qos_specs": s.prop(
        "string",
        "Name or ID of the QoS specs.",
        required=True,
        constraints=[s.custom_constraint("cinder.qos_specs")],
    ),
    "volume_types": s.prop(
        "list",
        "Names or IDs of the volume types.",
        required=True,
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("cinder.vtype")])),
    ),
}
QOS_ASSOCIATION_ATTRIBUTES: dict[str, Any] = {}
QOS_ASSOCIATION_SUPPORT = s.support_status("8.0.0")
