"""Manila resource types: ShareType, ShareNetwork, SecurityService, Share (Heat 27,
``heat/engine/resources/openstack/manila/``), through ``Cloud.request("shared_file_system",
...)`` with a Manila microversion header.

As Heat: a share is polled from ``creating`` to ``available`` and its ``access_rules`` are
granted then (a failure: "Error during applying access rules to share ..."); an update of the
rules denies the live rules no longer wanted and allows the new ones; ``size``, protocol, type,
network and snapshot changes replace the share. A share network checks that its subnet is on
its network ("Provided neutron_subnet does not belong to provided neutron_network.") and keeps
its security services by diff. A share type's ``extra_specs`` update unsets the old keys and
sets the new ones. Reference ids: the Manila ids.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients.service_lookups import MANILA_HEADERS
from app.resource_types._cloud import UNLISTED_DESCRIPTION, CloudResource
from app.resource_types._schemas import manila as sch
from app.resource_types.base import Resource

SERVICE = "shared_file_system"


class ManilaResource(CloudResource):
    """Requests with Manila's microversion header; ``path`` is the collection."""

    path: ClassVar[str] = ""
    key: ClassVar[str] = ""

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.cloud().request(SERVICE, method, path, headers=dict(MANILA_HEADERS), **kwargs)

    def _fetch(self) -> Any:
        return self.call("GET", f"{self.path}/{self.resource_id}")[self.key]

    def _delete(self) -> None:
        self.call("DELETE", f"{self.path}/{self.resource_id}")


class ShareType(ManilaResource):
    """A share type with its required and extra specs (admin only, as in Manila)."""

    type_name = "OS::Manila::ShareType"
    support_status = sch.SHARE_TYPE_SUPPORT
    properties_schema = sch.SHARE_TYPE_PROPERTIES
    attributes_schema = sch.SHARE_TYPE_ATTRIBUTES
    path, key = "/types", "share_type"

    def handle_create(self) -> None:
        p = self.properties
        specs = {"driver_handles_share_servers": str(p["driver_handles_share_servers"]),
                 "snapshot_support": str(self.get_property("snapshot_support"))}
        body = {"share_type": {"name": p["name"], "extra_specs": specs,
                               "share_type_access:is_public": self.get_property("is_public")}}
        self.resource_id = self.call("POST", "/types", json=body)["share_type"]["id"]
        if p.get("extra_specs"):
            self._set(p["extra_specs"])

    def _set(self, specs: Mapping[str, Any]) -> None:
        self.call("POST", f"/types/{self.resource_id}/extra_specs",
                  json={"extra_specs": {k: str(v) for k, v in specs.items()}})

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        old = self.properties.get("extra_specs") or {}
        self.properties = dict(new_properties)
        if "extra_specs" in changed:
            for key in old:
                if key not in ("driver_handles_share_servers", "snapshot_support"):
                    try:
                        self.call("DELETE", f"/types/{self.resource_id}/extra_specs/{key}")
                    except errors.CloudError as exc:
                        if exc.status != 404:
                            raise
            self._set(changed["extra_specs"] or {})
        self.refresh()


class SecurityService(ManilaResource):
    """An LDAP, Kerberos or Active Directory service for share networks."""

    type_name = "OS::Manila::SecurityService"
    support_status = sch.SECURITY_SERVICE_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.SECURITY_SERVICE_PROPERTIES
    attributes_schema = sch.SECURITY_SERVICE_ATTRIBUTES
    path, key = "/security-services", "security_service"

    def handle_create(self) -> None:
        args = {k: v for k, v in self.properties.items() if v is not None}
        self.resource_id = self.call("POST", self.path, json={self.key: args})[self.key]["id"]

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if changed:
            self.call("PUT", f"{self.path}/{self.resource_id}", json={self.key: dict(changed)})
            self.refresh()


class ShareNetwork(ManilaResource):
    """A share network on a Neutron network and subnet, with security services."""

    type_name = "OS::Manila::ShareNetwork"
    support_status = sch.SHARE_NETWORK_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.SHARE_NETWORK_PROPERTIES
    attributes_schema = sch.SHARE_NETWORK_ATTRIBUTES
    path, key = "/share-networks", "share_network"

    def validate(self) -> None:
        """:raises errors.ValidationError: a network without a subnet, or a subnet that is not
        on the network (Heat's messages)."""
        p = self.properties
        if p.get("neutron_network") and not p.get("neutron_subnet"):
            raise errors.ValidationError("neutron_network cannot be specified without neutron_subnet.")
        super().validate()
        if self.clients is not None and p.get("neutron_network") and p.get("neutron_subnet") \
                and self._network_of_subnet() != self.resolve("neutron.network", p["neutron_network"]):
            raise errors.ValidationError("Provided neutron_subnet does not belong to provided "
                                             "neutron_network.")

    def _network_of_subnet(self) -> str:
        subnet = self.resolve("neutron.subnet", self.properties["neutron_subnet"])
        return str(self.cloud().network.get_subnet(subnet).network_id)

    def _net_args(self, props: Mapping[str, Any]) -> dict[str, Any]:
        args: dict[str, Any] = {}
        if props.get("neutron_subnet"):
            args["neutron_subnet_id"] = self.resolve("neutron.subnet", props["neutron_subnet"])
            args["neutron_net_id"] = self.resolve("neutron.network", props["neutron_network"]) \
                if props.get("neutron_network") else self._network_of_subnet()
        return args

    def _service_ids(self, names: Any) -> set[str]:
        return {self.resolve("manila.security_service", n) or "" for n in names or []}

    def _services(self, add: set[str], remove: set[str]) -> None:
        for action, ids in (("remove_security_service", remove), ("add_security_service", add)):
            for sid in sorted(ids):
                self.call("POST", f"{self.path}/{self.resource_id}/action",
                          json={action: {"security_service_id": sid}})

    def handle_create(self) -> None:
        p = self.properties
        args = {"name": p.get("name"), "description": p.get("description"), **self._net_args(p)}
        self.resource_id = self.call("POST", self.path, json={self.key: args})[self.key]["id"]
        self._services(self._service_ids(p.get("security_services")), set())

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        old = self._service_ids(self.properties.get("security_services"))
        self.properties = dict(new_properties)
        if "security_services" in changed:
            new = self._service_ids(changed["security_services"])
            self._services(new - old, old - new)
        rest = {k for k in changed if k != "security_services"}
        if rest:
            args: dict[str, Any] = {k: changed[k] for k in ("name", "description") if k in rest}
            if {"neutron_network", "neutron_subnet"} & rest:
                args.update(self._net_args(new_properties))
            self.call("PUT", f"{self.path}/{self.resource_id}", json={self.key: args})
        self.refresh()


class Share(ManilaResource):
    """A share of ``size`` GB over ``share_protocol``, with access rules."""

    type_name = "OS::Manila::Share"
    support_status = sch.SHARE_SUPPORT
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = UNLISTED_DESCRIPTION
    properties_schema = sch.SHARE_PROPERTIES
    attributes_schema = sch.SHARE_ATTRIBUTES
    path, key = "/shares", "share"

    def handle_create(self) -> None:
        p = self.properties
        args: dict[str, Any] = {
            "share_proto": p["share_protocol"], "size": p["size"], "name": p.get("name"),
            "description": p.get("description"), "metadata": p.get("metadata") or {},
            "is_public": self.get_property("is_public"),
            "share_network_id": self.resolve("manila.share_network", p.get("share_network")),
            "share_type": self.resolve("manila.share_type", p.get("share_type")),
            "snapshot_id": self.resolve("manila.share_snapshot", p.get("snapshot"))}
        share = self.call("POST", self.path, json={self.key: {k: v for k, v in args.items()
                                                              if v is not None}})
        self.resource_id = share[self.key]["id"]

    def _allow(self, rule: Mapping[str, Any]) -> None:
        self.call("POST", f"{self.path}/{self.resource_id}/action", json={"allow_access": {
            "access_type": rule.get("access_type"), "access_to": rule.get("access_to"),
            "access_level": rule.get("access_level")}})

    def check_create_complete(self, handle: Any) -> bool:
        self.refresh()
        status = str((self.show_resource() or {}).get("status"))
        if status == "creating":
            return False
        if status == "available":
            try:
                for rule in self.get_property("access_rules") or []:
                    self._allow(rule)
            except errors.CloudError as exc:
                raise errors.StokerError(
                    f'Went to status available due to "Error during applying access rules to share '
                    f'"{self.resource_id}". The root cause of the problem is the following: '
                    f'{exc.message}."', heat_type="ResourceInError") from exc
            return True
        if status == "error":
            raise errors.StokerError(f'Went to status error due to "Error during creation of share '
                                     f'"{self.resource_id}""', heat_type="ResourceInError")
        raise errors.StokerError(f'Unknown status during creation of share "{self.resource_id}"',
                                 heat_type="ResourceUnknownStatus")

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        fields = {f: changed[k] for k, f in (("is_public", "is_public"), ("name", "display_name"),
                                             ("description", "display_description")) if k in changed}
        if fields:
            self.call("PUT", f"{self.path}/{self.resource_id}", json={self.key: fields})
        if "metadata" in changed:
            self.call("PUT", f"{self.path}/{self.resource_id}/metadata",
                      json={"metadata": changed["metadata"] or {}})
        if "access_rules" in changed:
            wanted = [{"access_to": r.get("access_to"), "access_type": r.get("access_type"),
                       "access_level": r.get("access_level")} for r in changed["access_rules"] or []]
            live = self.call("POST", f"{self.path}/{self.resource_id}/action",
                             json={"access_list": None})["access_list"]
            kept = []
            for rule in live:
                mine = {k: rule.get(k) for k in ("access_to", "access_type", "access_level")}
                if mine in wanted:
                    kept.append(mine)
                else:
                    self.call("POST", f"{self.path}/{self.resource_id}/action",
                              json={"deny_access": {"access_id": rule["id"]}})
            for rule in wanted:
                if rule not in kept:
                    self._allow(rule)
        self.refresh()

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        if name == "export_locations":
            return [loc["path"] for loc in self.call(
                "GET", f"{self.path}/{self.resource_id}/export_locations")["export_locations"]]
        value = (self.show_resource() or {}).get(name)
        return str(value)


def resource_mapping() -> dict[str, type[Resource]]:
    return {c.type_name: c for c in (ShareType, SecurityService, ShareNetwork, Share)}
