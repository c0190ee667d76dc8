"""Heat 27's schemas of the nova resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.nova``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Nova::Server --------------------------------------------------------------------------
SERVER_PROPERTIES: dict[str, Any] = {
    "admin_pass": s.prop("string", "Administrator password of the server.", update_allowed=True),
    "availability_zone": s.prop("string", "Availability zone."),
    "block_device_mapping": s.prop(
        "list",
        "Block devices (legacy form).",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "delete_on_termination": s.prop("boolean", "Delete the volume with the server."),
                    "device_name": s.prop("string", "Device name in the server.", required=True),
                    "snapshot_id": s.prop(
                        "string", "ID of the snapshot.", constraints=[s.custom_constraint("cinder.snapshot")]
                    ),
                    "volume_id": s.prop(
                        "string", "ID of the volume.", constraints=[s.custom_constraint("cinder.volume")]
                    ),
                    "volume_size": s.prop("integer", "Size of the volume in GB."),
                },
            )
        ),
    ),
    "block_device_mapping_v2": s.prop(
        "list",
        "Block devices.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "boot_index": s.prop("integer", "Boot order of the device."),
                    "delete_on_termination": s.prop("boolean", "Delete the volume with the server."),
                    "device_name": s.prop("string", "Device name in the server."),
                    "device_type": s.prop(
                        "string",
                        "Device type (disk or cdrom).",
                        constraints=[s.allowed_values(["cdrom", "disk"])],
                    ),
                    "disk_bus": s.prop(
                        "string",
                        "Bus of the device.",
                        constraints=[s.allowed_values(["ide", "lame_bus", "sata", "scsi", "usb", "virtio"])],
                    ),
                    "ephemeral_format": s.prop(
                        "string",
                        "File system of the ephemeral disk.",
                        constraints=[s.allowed_values(["ext2", "ext3", "ext4", "xfs", "ntfs"])],
                    ),
                    "ephemeral_size": s.prop(
                        "integer", "Ephemeral disk size in GB.", constraints=[s.value_range(min=1)]
                    ),
                    "image": s.prop(
                        "string",
                        "Name or ID of the image.",
                        constraints=[s.custom_constraint("glance.image")],
                    ),
                    "image_id": s.prop(
                        "string",
                        "Name or ID of the image.",
                        constraints=[s.custom_constraint("glance.image")],
                    ),
                    "snapshot_id": s.prop(
                        "string", "ID of the snapshot.", constraints=[s.custom_constraint("cinder.snapshot")]
                    ),
                    "swap_size": s.prop("integer", "Swap size in MB."),
                    "volume_id": s.prop(
                        "string", "ID of the volume.", constraints=[s.custom_constraint("cinder.volume")]
                    ),
                    "volume_size": s.prop("integer", "Size of the volume in GB."),
                    "volume_type": s.prop(
                        "string",
                        "Name or ID of the volume type.",
                        constraints=[s.custom_constraint("cinder.vtype")],
                    ),
                },
            )
        ),
    ),
    "config_drive": s.prop("boolean", "Whether to attach a config drive."),
    "deployment_swift_data": s.prop(
        "map",
        "Swift container and object for deployment data.",
        default={},
        update_allowed=True,
        schema={
            "container": s.prop("string", "Swift container.", constraints=[s.length(min=1)]),
            "object": s.prop("string", "Swift object.", constraints=[s.length(min=1)]),
        },
    ),
    "diskConfig": s.prop(
        "string", "Disk partitioning (AUTO or MANUAL).", constraints=[s.allowed_values(["AUTO", "MANUAL"])]
    ),
    "flavor": s.prop(
        "string",
        "Name or ID of the flavor.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("nova.flavor")],
    ),
    "flavor_update_policy": s.prop(
        "string",
        "What a flavor change does.",
        default="RESIZE",
        update_allowed=True,
        constraints=[s.allowed_values(["RESIZE", "REPLACE"])],
    ),
    "image": s.prop(
        "string",
        "Name or ID of the image.",
        update_allowed=True,
        constraints=[s.custom_constraint("glance.image")],
    ),
    "image_update_policy": s.prop(
        "string",
        "What an image change does.",
        default="REBUILD",
        update_allowed=True,
        constraints=[s.allowed_values(["REBUILD", "REPLACE", "REBUILD_PRESERVE_EPHEMERAL"])],
    ),
    "key_name": s.prop("string", "Name of the key pair.", constraints=[s.custom_constraint("nova.keypair")]),
    "metadata": s.prop("map", "Key/value metadata.", default={}, update_allowed=True),
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        update_allowed=True,
    ),
    "networks": s.prop(
        "list",
        "Networks the server is plugged into.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "allocate_network": s.prop(
                        "string",
                        "Automatic network allocation (auto or none).",
                        update_allowed=True,
                        constraints=[s.allowed_values(["none", "auto"])],
                    ),
                    "fixed_ip": s.prop(
                        "string", "Fixed IP on the network.", constraints=[s.custom_constraint("ip_addr")]
                    ),
                    "floating_ip": s.prop("string", "ID of a floating IP to associate."),
                    "network": s.prop(
                        "string",
                        "Name or ID of the network.",
                        constraints=[s.custom_constraint("neutron.network")],
                    ),
                    "port": s.prop(
                        "string", "Name or ID of the port.", constraints=[s.custom_constraint("neutron.port")]
                    ),
                    "port_extra_properties": s.prop(
                        "map",
                        "Extra properties of the implicitly created port.",
                        update_allowed=True,
                        schema={
                            "admin_state_up": s.prop(
                                "boolean",
                                "Administrative state (true: up).",
                                default=True,
                                update_allowed=True,
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
                                                "string",
                                                "MAC address of the port.",
                                                constraints=[s.custom_constraint("mac_addr")],
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
                            "mac_address": s.prop(
                                "string",
                                "MAC address of the port.",
                                constraints=[s.custom_constraint("mac_addr")],
                            ),
                            "no_fixed_ips": s.prop(
                                "boolean",
                                "Create the port without any fixed IP.",
                                default=False,
                                update_allowed=True,
                            ),
                            "port_security_enabled": s.prop(
                                "boolean",
                                "Whether port security (and security groups) apply.",
                                update_allowed=True,
                            ),
                            "propagate_uplink_status": s.prop(
                                "boolean",
                                "Whether the uplink status is propagated to the port.",
                                update_allowed=True,
                            ),
                            "qos_policy": s.prop(
                                "string",
                                "Name or ID of the QoS policy to apply.",
                                update_allowed=True,
                                constraints=[s.custom_constraint("neutron.qos_policy")],
                            ),
                            "value_specs": s.prop(
                                "map",
                                "Extra key/value pairs passed to the API as they are.",
                                default={},
                                update_allowed=True,
                            ),
                        },
                    ),
                    "subnet": s.prop("string", "Name or ID of the subnet."),
                    "tag": s.prop("string", "Tag of the member."),
                    "uuid": s.prop(
                        "string",
                        "ID of the network (deprecated form).",
                        constraints=[s.custom_constraint("neutron.network")],
                    ),
                },
            )
        ),
    ),
    "personality": s.prop("map", "Files injected into the server.", default={}),
    "reservation_id": s.prop("string", "Reservation ID."),
    "scheduler_hints": s.prop("map", "Hints for the Nova scheduler."),
    "security_groups": s.prop("list", "Security groups (names or IDs).", default=[]),
    "software_config_transport": s.prop(
        "string",
        "How software config reaches the server.",
        default="POLL_SERVER_CFN",
        update_allowed=True,
        constraints=[
            s.allowed_values(["POLL_SERVER_CFN", "POLL_SERVER_HEAT", "POLL_TEMP_URL", "ZAQAR_MESSAGE"])
        ],
    ),
    "tags": s.prop("list", "Tags of the resource.", update_allowed=True, schema=s.list_of(s.prop("string"))),
    "user_data": s.prop("string", "User data handed to the server.", default="", update_allowed=True),
    "user_data_format": s.prop(
        "string",
        "How user data is built: HEAT_CFNTOOLS, RAW or SOFTWARE_CONFIG.",
        default="HEAT_CFNTOOLS",
        constraints=[s.allowed_values(["HEAT_CFNTOOLS", "RAW", "SOFTWARE_CONFIG"])],
    ),
    "user_data_update_policy": s.prop(
        "string",
        "What a change of user data does.",
        default="REPLACE",
        update_allowed=True,
        constraints=[s.allowed_values(["REPLACE", "IGNORE", "REBUILD"])],
    ),
}
SERVER_ATTRIBUTES: dict[str, Any] = {
    "accessIPv4": s.attr("IPv4 access address.", "string"),
    "accessIPv6": s.attr("IPv6 access address.", "string"),
    "addresses": s.attr("Addresses by network name.", "map"),
    "console_urls": s.attr("Console URLs by type.", "map"),
    "instance_name": s.attr("Instance name on the hypervisor.", "string"),
    "name": s.attr("Name of the resource.", "string"),
    "networks": s.attr("IP addresses by network name and ID.", "map"),
    "os_collect_config": s.attr("os-collect-config settings.", "map"),
    "tags": s.attr("Tags.", "list"),
}
SERVER_SUPPORT = s.support_status(None)

# ---- OS::Nova::KeyPair -------------------------------------------------------------------------
KEY_PAIR_PROPERTIES: dict[str, Any] = {
    "name": s.prop(
        "string",
        "Name of the resource in the cloud (default: a generated physical name).",
        required=True,
        constraints=[s.length(min=1, max=255)],
    ),
    "public_key": s.prop("string", "Public key to import."),
    "save_private_key": s.prop("boolean", "Keep the generated private key as an attribute.", default=False),
    "type": s.prop("string", "Type.", constraints=[s.allowed_values(["ssh", "x509"])]),
    "user": s.prop("string", "User owning the key pair.", constraints=[s.custom_constraint("keystone.user")]),
}
KEY_PAIR_ATTRIBUTES: dict[str, Any] = {
    "private_key": s.attr("Generated private key.", "string"),
    "public_key": s.attr("Public key.", "string"),
}
KEY_PAIR_SUPPORT = s.support_status("2014.1")

# ---- OS::Nova::ServerGroup ---------------------------------------------------------------------
SERVER_GROUP_PROPERTIES: dict[str, Any] = {
    "name": s.prop("string", "Name of the resource in the cloud (default: a generated physical name)."),
    "policies": s.prop(
        "list",
        "Scheduling policies of the group.",
        default=["anti-affinity"],
        constraints=[s.allowed_values(["anti-affinity", "affinity", "soft-anti-affinity", "soft-affinity"])],
        schema=s.list_of(s.prop("string")),
    ),
    "rules": s.prop(
        "map",
        "Rules of the security group.",
        schema={
            "max_server_per_host": s.prop("number", "Most servers of the group on one host (anti-affinity)."),
        },
    ),
}
SERVER_GROUP_ATTRIBUTES: dict[str, Any] = {}
SERVER_GROUP_SUPPORT = s.support_status("2014.2")

# ---- OS::Nova::Flavor --------------------------------------------------------------------------
FLAVOR_PROPERTIES: dict[str, Any] = {
    "disk": s.prop("integer", "Root disk size in GB.", default=0),
    "ephemeral": s.prop("integer", "Ephemeral disk size in GB.", default=0),
    "extra_specs": s.prop("map", "Extra specifications (key/value).", update_allowed=True),
    "flavorid": s.prop("string", "ID to give the flavor."),
    "is_public": s.prop("boolean", "Whether the resource is public.", default=True),
    "name": s.prop("string", "Name of the resource in the cloud (default: a generated physical name)."),
    "ram": s.prop("integer", "Memory in MB.", required=True),
    "rxtx_factor": s.prop("number", "RX/TX factor.", default=1.0),
    "swap": s.prop("integer", "Swap size in MB.", default=0),
    "tenants": s.prop(
        "list",
        "Projects that may use a private flavor.",
        default=[],
        update_allowed=True,
        schema=s.list_of(s.prop("string", constraints=[s.custom_constraint("keystone.project")])),
    ),
    "vcpus": s.prop("integer", "Number of virtual CPUs.", required=True),
}
FLAVOR_ATTRIBUTES: dict[str, Any] = {
    "extra_specs": s.attr("Extra specifications.", "map"),
    "is_public": s.attr("Whether it is public.", "boolean"),
}
FLAVOR_SUPPORT = s.support_status("2014.2")
