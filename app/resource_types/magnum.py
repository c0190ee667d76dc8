"""Magnum resource types: OS::Magnum::ClusterTemplate and OS::Magnum::Cluster (Heat 27,
``heat/engine/resources/openstack/magnum/``), and Heat's HIDDEN OS::Magnum::Bay (a placeholder:
Heat 27 makes it a ``NoneResource``) and OS::Magnum::BayModel (a ClusterTemplate under its old
name; its removed ``ssh_authorized_key`` is accepted and dropped).

Requests go through ``Cloud.request("container_infrastructure_management", ...)``. A template
is created synchronously (``<key>_id`` fields for image, flavors, keypair, external network);
a cluster is polled from CREATE_IN_PROGRESS to CREATE_COMPLETE (CREATE_FAILED: Heat's "Failed
to create Cluster '<name>' - <reason>"); updates are JSON patches of the changed properties,
a cluster's polled from UPDATE_IN_PROGRESS to UPDATE_COMPLETE. Reference ids: the uuids.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.resource_types import schema as s
from app.resource_types._cloud import CloudResource, in_error
from app.resource_types._schemas import magnum as sch
from app.resource_types.base import Resource
from app.resource_types.heat import NoneResource

SERVICE = "container_infrastructure_management"
SUPPORTED_VOLUME_DRIVER = {"kubernetes": ["cinder"], "swarm": ["rexray"], "mesos": ["rexray"]}


def _patch(changed: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"op": "replace", "path": f"/{k}", "value": v} for k, v in changed.items()]


class ClusterTemplate(CloudResource):
    """A cluster template: COE, image, flavors, networks and Docker settings."""

    type_name = "OS::Magnum::ClusterTemplate"
    support_status = sch.CLUSTER_TEMPLATE_SUPPORT
    properties_schema = sch.CLUSTER_TEMPLATE_PROPERTIES
    attributes_schema = sch.CLUSTER_TEMPLATE_ATTRIBUTES

    def validate(self) -> None:
        """:raises errors.ValidationError: a volume driver the COE does not support (Heat)."""
        coe, driver = self.properties.get("coe"), self.properties.get("volume_driver")
        allowed = SUPPORTED_VOLUME_DRIVER.get(str(coe), [])
        if driver is not None and coe is not None and driver not in allowed:
            raise errors.ValidationError(
                f"Volume driver type {driver} is not supported by COE:{coe}, expecting a "
                f"{allowed} volume driver.")
        super().validate()

    def handle_create(self) -> None:
        p = self.properties
        args: dict[str, Any] = {"name": self.name_or_physical()}
        for key in ("image", "flavor", "master_flavor", "keypair"):
            if p.get(key) is not None:
                args[f"{key}_id"] = p[key]
        if p.get("external_network") is not None:
            args["external_network_id"] = self.resolve("neutron.network", p["external_network"])
        if p.get("fixed_network") is not None:
            args["fixed_network"] = self.resolve("neutron.network", p["fixed_network"])
        if p.get("fixed_subnet") is not None:
            args["fixed_subnet"] = self.resolve("neutron.subnet", p["fixed_subnet"])
        for key in ("dns_nameserver", "docker_volume_size", "docker_storage_driver", "coe",
                    "network_driver", "volume_driver", "http_proxy", "https_proxy", "no_proxy",
                    "labels", "tls_disabled", "public", "registry_enabled", "server_type",
                    "master_lb_enabled", "floating_ip_enabled"):
            value = self.get_property(key)
            if value is not None:
                args[key] = value
        ct = self.cloud().request(SERVICE, "POST", "/clustertemplates", json=args)
        self.resource_id = ct["uuid"]

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """A JSON patch of the changed properties (only ``public`` may change in place)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if changed:
            self.cloud().request(SERVICE, "PATCH", f"/clustertemplates/{self.resource_id}",
                                 json=_patch(changed))
            self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/clustertemplates/{self.resource_id}")

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/clustertemplates/{self.resource_id}")


class BayModel(ClusterTemplate):
    """Heat's HIDDEN name of the cluster template (HIDDEN since 11.0.0)."""

    type_name = "OS::Magnum::BayModel"
    support_status = s.support_status(
        "11.0.0", "HIDDEN", "Please use OS::Magnum::ClusterTemplate instead.",
        previous_status=s.support_status("9.0.0", "DEPRECATED",
                                         "Please use OS::Magnum::ClusterTemplate instead.",
                                         previous_status=s.support_status("5.0.0")))
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = {
        "ssh_authorized_key": s.prop("string", "Removed from Magnum; accepted and ignored.")}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.properties.pop("ssh_authorized_key", None)  # Heat's DELETE translation rule


class Bay(NoneResource):
    """Heat's HIDDEN OS::Magnum::Bay: a placeholder that accepts anything and makes nothing."""

    type_name = "OS::Magnum::Bay"
    support_status = s.support_status(
        "11.0.0", "HIDDEN", "Please use OS::Magnum::Cluster instead.",
        previous_status=s.support_status("9.0.0", "DEPRECATED", "Please use OS::Magnum::Cluster instead.",
                                         previous_status=s.support_status("6.0.0")))


class Cluster(CloudResource):
    """A COE cluster of ``master_count`` masters and ``node_count`` nodes."""

    type_name = "OS::Magnum::Cluster"
    support_status = sch.CLUSTER_SUPPORT
    properties_schema = sch.CLUSTER_PROPERTIES
    attributes_schema = sch.CLUSTER_ATTRIBUTES
    poll_max = 5.0

    def handle_create(self) -> None:
        p = self.properties
        args: dict[str, Any] = {
            "name": p.get("name") or self.physical_resource_name(),
            "cluster_template_id": self.resolve("magnum.cluster_template", p["cluster_template"]),
            "node_count": self.get_property("node_count"),
            "master_count": self.get_property("master_count"),
            "create_timeout": self.get_property("create_timeout")}
        for key in ("keypair", "discovery_url"):
            if p.get(key) is not None:
                args[key] = p[key]
        self.resource_id = self.cloud().request(SERVICE, "POST", "/clusters", json=args)["uuid"]

    def _wait(self, action: str) -> bool:
        self.refresh()
        shown = self.show_resource() or {}
        status = str(shown.get("status"))
        if status == f"{action}_IN_PROGRESS" or (action == "UPDATE" and status == "CREATE_COMPLETE"):
            return False
        if status == f"{action}_COMPLETE":
            return True
        verb = "create" if action == "CREATE" else "update"
        if status == f"{action}_FAILED":
            raise in_error(status, f"Failed to {verb} Cluster '{self.name}' - {shown.get('status_reason')}")
        raise errors.StokerError(f"Unknown status {verb[:-1]}ing Cluster '{self.name}' - "
                                 f"{shown.get('status_reason')}", heat_type="ResourceUnknownStatus")

    def check_create_complete(self, handle: Any) -> bool:
        return self._wait("CREATE")

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> bool:
        """A JSON patch of the changed properties (a resize by ``node_count``)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if not changed:
            return False
        self.cloud().request(SERVICE, "PATCH", f"/clusters/{self.resource_id}", json=_patch(changed))
        return True

    def check_update_complete(self, handle: Any) -> bool:
        return not handle or self._wait("UPDATE")

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/clusters/{self.resource_id}")

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/clusters/{self.resource_id}")


def resource_mapping() -> dict[str, type[Resource]]:
    return {ClusterTemplate.type_name: ClusterTemplate, Cluster.type_name: Cluster}


def hidden_resource_mapping() -> dict[str, type[Resource]]:
    """Heat's HIDDEN Magnum names, still usable in templates."""
    return {Bay.type_name: Bay, BayModel.type_name: BayModel}
