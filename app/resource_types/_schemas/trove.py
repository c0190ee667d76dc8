"""Heat 27's schemas of the trove resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.trove``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Trove::Instance -----------------------------------------------------------------------
INSTANCE_PROPERTIES: dict[str, Any] = {
    "availability_zone": s.prop("string", "Availability zone."),
    "databases": s.prop(
        "list",
        "Databases of the instance.",
        default=[],
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                "One database.",
                schema={
                    "character_set": s.prop("string", "Character set.", default="utf8"),
                    "collate": s.prop("string", "Collation.", default="utf8_general_ci"),
                    "name": s.prop(
                        "string",
                        "Name of the object in the cloud.",
                        required=True,
                        constraints=[
                            s.length(max=64),
                            s.allowed_pattern("[a-zA-Z0-9_\\-]+[a-zA-Z0-9_@?#\\s\\-]*[a-zA-Z0-9_\\-]+"),
                        ],
                    ),
                },
            )
        ),
    ),
    "datastore_type": s.prop("string", "Datastore kind (e.g. mysql).", constraints=[s.length(max=255)]),
    "datastore_version": s.prop("string", "Version of the datastore.", constraints=[s.length(max=255)]),
    "flavor": s.prop(
        "string",
        "Name or ID of the flavor.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("trove.flavor")],
    ),
    "name": s.prop(
        "string", "Name of the object in the cloud.", update_allowed=True, constraints=[s.length(max=255)]
    ),
    "networks": s.prop(
        "list",
        "Networks to attach.",
        default=[],
        schema=s.list_of(
            s.prop(
                "map",
                "One network.",
                schema={
                    "fixed_ip": s.prop(
                        "string", "Fixed IPv4 address.", constraints=[s.custom_constraint("ip_addr")]
                    ),
                    "network": s.prop(
                        "string",
                        "Name or ID of the network.",
                        constraints=[s.custom_constraint("neutron.network")],
                    ),
                    "port": s.prop(
                        "string", "Name or ID of the port.", constraints=[s.custom_constraint("neutron.port")]
                    ),
                },
            )
        ),
    ),
    "replica_count": s.prop("integer", "Number of replicas to create."),
    "replica_of": s.prop("string", "ID or name of the instance to replicate."),
    "restore_point": s.prop("string", "ID of the backup to restore from."),
    "size": s.prop(
        "integer",
        "Size in GB.",
        required=True,
        update_allowed=True,
        constraints=[s.value_range(max=150, min=1)],
    ),
    "users": s.prop(
        "list",
        "Users of the instance.",
        default=[],
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                "One user.",
                schema={
                    "databases": s.prop(
                        "list",
                        "Databases of the instance.",
                        required=True,
                        update_allowed=True,
                        constraints=[s.length(min=1)],
                        schema=s.list_of(s.prop("string", "One item.")),
                    ),
                    "host": s.prop(
                        "string", "Host the user may connect from.", default="%", update_allowed=True
                    ),
                    "name": s.prop(
                        "string",
                        "Name of the object in the cloud.",
                        required=True,
                        update_allowed=True,
                        constraints=[
                            s.length(max=16),
                            s.allowed_pattern("[a-zA-Z0-9_]+[a-zA-Z0-9_@?#\\s]*[a-zA-Z0-9_]+"),
                        ],
                    ),
                    "password": s.prop(
                        "string",
                        "Password of the user.",
                        required=True,
                        update_allowed=True,
                        constraints=[s.allowed_pattern("[a-zA-Z0-9_]+[a-zA-Z0-9_@?#\\s]*[a-zA-Z0-9_]+")],
                    ),
                },
            )
        ),
    ),
}
INSTANCE_ATTRIBUTES: dict[str, Any] = {
    "hostname": s.attr("Host name of the instance.", "string"),
    "href": s.attr("API URL of the instance.", "string"),
}
INSTANCE_SUPPORT = s.support_status("2014.1")

# ---- OS::Trove::Cluster ------------------------------------------------------------------------
CLUSTER_PROPERTIES: dict[str, Any] = {
    "datastore_type": s.prop(
        "string", "Datastore kind (e.g. mysql).", required=True, constraints=[s.length(max=255)]
    ),
    "datastore_version": s.prop(
        "string", "Version of the datastore.", required=True, constraints=[s.length(max=255)]
    ),
    "instances": s.prop(
        "list",
        "Members of the cluster.",
        required=True,
        schema=s.list_of(
            s.prop(
                "map",
                "One member.",
                schema={
                    "availability_zone": s.prop("string", "Availability zone."),
                    "flavor": s.prop(
                        "string",
                        "Name or ID of the flavor.",
                        required=True,
                        constraints=[s.custom_constraint("trove.flavor")],
                    ),
                    "networks": s.prop(
                        "list",
                        "Networks to attach.",
                        default=[],
                        schema=s.list_of(
                            s.prop(
                                "map",
                                "One item.",
                                schema={
                                    "fixed_ip": s.prop(
                                        "string",
                                        "Fixed IPv4 address.",
                                        constraints=[s.custom_constraint("ip_addr")],
                                    ),
                                    "network": s.prop(
                                        "string",
                                        "Name or ID of the network.",
                                        constraints=[s.custom_constraint("neutron.network")],
                                    ),
                                    "port": s.prop(
                                        "string",
                                        "Name or ID of the port.",
                                        constraints=[s.custom_constraint("neutron.port")],
                                    ),
                                },
                            )
                        ),
                    ),
                    "volume_size": s.prop(
                        "integer",
                        "Size in GB of the data volume.",
                        required=True,
                        constraints=[s.value_range(max=150, min=1)],
                    ),
                },
            )
        ),
    ),
    "name": s.prop("string", "Name of the object in the cloud.", constraints=[s.length(max=255)]),
}
CLUSTER_ATTRIBUTES: dict[str, Any] = {
    "instances": s.attr("IDs of the member instances.", "list"),
    "ip": s.attr("IP addresses of the cluster.", "list"),
}
CLUSTER_SUPPORT = s.support_status("2015.1")
