"""Heat 27's schemas of the magnum resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.magnum``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- OS::Magnum::ClusterTemplate ---------------------------------------------------------------
CLUSTER_TEMPLATE_PROPERTIES: dict[str, Any] = {
    "coe": s.prop(
        "string",
        "Container orchestration engine.",
        required=True,
        constraints=[s.allowed_values(["kubernetes", "swarm", "mesos"])],
    ),
    "dns_nameserver": s.prop(
        "string", "DNS server address handed to the nodes.", constraints=[s.custom_constraint("ip_addr")]
    ),
    "docker_storage_driver": s.prop(
        "string",
        "Storage driver of Docker on the nodes.",
        default="devicemapper",
        constraints=[s.allowed_values(["devicemapper", "overlay"])],
    ),
    "docker_volume_size": s.prop(
        "integer", "Size in GB of the Docker volume of each node.", constraints=[s.value_range(min=1)]
    ),
    "external_network": s.prop(
        "string",
        "Name or ID of the external network.",
        required=True,
        constraints=[s.custom_constraint("neutron.network")],
    ),
    "fixed_network": s.prop(
        "string", "Name or ID of the private network.", constraints=[s.custom_constraint("neutron.network")]
    ),
    "fixed_subnet": s.prop(
        "string", "Name or ID of the private subnet.", constraints=[s.custom_constraint("neutron.subnet")]
    ),
    "flavor": s.prop("string", "Name or ID of the flavor.", constraints=[s.custom_constraint("nova.flavor")]),
    "floating_ip_enabled": s.prop("boolean", "Whether the nodes get floating IPs.", default=True),
    "http_proxy": s.prop("string", "HTTP proxy of the nodes."),
    "https_proxy": s.prop("string", "HTTPS proxy of the nodes."),
    "image": s.prop(
        "string",
        "Name or ID of the base image.",
        required=True,
        constraints=[s.custom_constraint("glance.image")],
    ),
    "keypair": s.prop(
        "string", "Name of the Nova key pair.", constraints=[s.custom_constraint("nova.keypair")]
    ),
    "labels": s.prop("map", "Arbitrary key=value labels."),
    "master_flavor": s.prop(
        "string", "Name or ID of the flavor of the masters.", constraints=[s.custom_constraint("nova.flavor")]
    ),
    "master_lb_enabled": s.prop("boolean", "Whether the masters sit behind a load balancer.", default=True),
    "name": s.prop("string", "Name of the object in the cloud."),
    "network_driver": s.prop("string", "Driver of the container networks."),
    "no_proxy": s.prop("string", "Comma-separated addresses reached without a proxy."),
    "public": s.prop("boolean", "Whether other projects may use it.", default=False, update_allowed=True),
    "registry_enabled": s.prop("boolean", "Whether a Docker registry runs in the cluster.", default=False),
    "server_type": s.prop(
        "string",
        "Kind of server the nodes run on (virtual or bare metal).",
        default="vm",
        constraints=[s.allowed_values(["vm", "bm"])],
    ),
    "tls_disabled": s.prop("boolean", "Whether TLS is off.", default=False),
    "volume_driver": s.prop(
        "string", "Driver of the container volumes.", constraints=[s.allowed_values(["cinder", "rexray"])]
    ),
}
CLUSTER_TEMPLATE_ATTRIBUTES: dict[str, Any] = {}
CLUSTER_TEMPLATE_SUPPORT = s.support_status("9.0.0")

# ---- OS::Magnum::Cluster -----------------------------------------------------------------------
CLUSTER_PROPERTIES: dict[str, Any] = {
    "cluster_template": s.prop(
        "string",
        "Name or ID of the cluster template.",
        required=True,
        constraints=[s.custom_constraint("magnum.cluster_template")],
    ),
    "create_timeout": s.prop(
        "integer",
        "Minutes allowed for the cluster creation (0: no limit).",
        default=60,
        update_allowed=True,
        constraints=[s.value_range(min=0)],
    ),
    "discovery_url": s.prop(
        "string", "Custom discovery URL used by the nodes to find each other.", update_allowed=True
    ),
    "keypair": s.prop(
        "string", "Name of the Nova key pair.", constraints=[s.custom_constraint("nova.keypair")]
    ),
    "master_count": s.prop(
        "integer",
        "Number of master nodes.",
        default=1,
        update_allowed=True,
        constraints=[s.value_range(min=1)],
    ),
    "name": s.prop("string", "Name of the object in the cloud."),
    "node_count": s.prop(
        "integer",
        "Number of worker nodes.",
        default=1,
        update_allowed=True,
        constraints=[s.value_range(min=1)],
    ),
}
CLUSTER_ATTRIBUTES: dict[str, Any] = {
    "api_address": s.attr("Endpoint URL of the COE API.", "string"),
    "cluster_template_id": s.attr("ID of the cluster template.", "string"),
    "coe_version": s.attr("Version of the COE.", "string"),
    "container_version": s.attr("Version of the container engine.", "string"),
    "create_timeout": s.attr("Minutes allowed for the creation.", "integer"),
    "discovery_url": s.attr("Discovery URL of the nodes.", "string"),
    "keypair": s.attr("Name of the key pair.", "string"),
    "master_addresses": s.attr("Floating IPs of the masters.", "list"),
    "master_count": s.attr("Number of masters.", "integer"),
    "name": s.attr("Name of the object.", "string"),
    "node_addresses": s.attr("Floating IPs of the nodes.", "list"),
    "node_count": s.attr("Number of nodes.", "integer"),
    "stack_id": s.attr("ID of the cluster's orchestration stack.", "string"),
    "status": s.attr("Status of the object.", "string"),
    "status_reason": s.attr("Reason of the status.", "string"),
}
CLUSTER_SUPPORT = s.support_status("9.0.0")
