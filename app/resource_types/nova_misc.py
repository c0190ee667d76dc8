"""Nova's smaller resource types: KeyPair, ServerGroup and Flavor (Heat 27's schemas,
``heat/engine/resources/openstack/nova/``). OS::Nova::Server is in :mod:`app.resource_types.nova`.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.resource_types._cloud import CloudResource, plain
from app.resource_types._schemas import nova as sch
from app.resource_types.base import Resource


class KeyPair(CloudResource):
    """A Nova key pair named ``name``; generated when no ``public_key`` is given, the private
    key kept (``data``) only with ``save_private_key``. Reference id: the name."""

    type_name = "OS::Nova::KeyPair"
    support_status = sch.KEY_PAIR_SUPPORT
    properties_schema = sch.KEY_PAIR_PROPERTIES
    attributes_schema = sch.KEY_PAIR_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        attrs: dict[str, Any] = {"name": p["name"]}
        if p.get("public_key"):
            attrs["public_key"] = p["public_key"]
        if p.get("type"):
            attrs["type"] = p["type"]
        if p.get("user"):
            attrs["user_id"] = p["user"]
        key = self.cloud().compute.create_keypair(**attrs)
        self.resource_id = key.name
        if self.get_property("save_private_key") and key.private_key:
            self.data["private_key"] = key.private_key
        self.data["public_key"] = key.public_key

    def _fetch(self) -> Any:
        return self.cloud().compute.get_keypair(self.resource_id)

    def handle_check(self) -> None:
        """Heat's KeyPair.handle_check: the key pair must still exist.
        :raises errors.CloudError: ``NotFound`` when it is gone."""
        self._fetch()

    def _delete(self) -> None:
        self.cloud().compute.delete_keypair(self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "private_key":
            return self.data.get("private_key", "")
        if name == "public_key":
            return self.data.get("public_key") or (self.show_resource() or {}).get("public_key")
        return None


class ServerGroup(CloudResource):
    """A Nova server group with ``policies`` (and ``rules``)."""

    type_name = "OS::Nova::ServerGroup"
    support_status = sch.SERVER_GROUP_SUPPORT
    properties_schema = sch.SERVER_GROUP_PROPERTIES
    attributes_schema = sch.SERVER_GROUP_ATTRIBUTES

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "policies": list(self.get_property("policies"))}
        group = self.cloud().compute.create_server_group(**attrs)
        self.resource_id = group.id

    def _fetch(self) -> Any:
        return self.cloud().compute.get_server_group(self.resource_id)

    def _delete(self) -> None:
        self.cloud().compute.delete_server_group(self.resource_id)


class Flavor(CloudResource):
    """A Nova flavor (admin); ``extra_specs`` set after the create, ``tenants`` given access to
    a private flavor."""

    type_name = "OS::Nova::Flavor"
    support_status = sch.FLAVOR_SUPPORT
    properties_schema = sch.FLAVOR_PROPERTIES
    attributes_schema = sch.FLAVOR_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(), "ram": p["ram"],
                                 "vcpus": p["vcpus"], "disk": self.get_property("disk"),
                                 "swap": self.get_property("swap") or 0,
                                 "ephemeral": self.get_property("ephemeral"),
                                 "rxtx_factor": self.get_property("rxtx_factor"),
                                 "is_public": self.get_property("is_public")}
        if p.get("flavorid"):
            attrs["id"] = p["flavorid"]
        compute = self.cloud().compute
        flavor = compute.create_flavor(**attrs)
        self.resource_id = flavor.id
        if p.get("extra_specs"):
            compute.create_flavor_extra_specs(flavor, dict(p["extra_specs"]))
        if not attrs["is_public"]:
            for tenant in p.get("tenants") or []:
                compute.flavor_add_tenant_access(flavor, tenant)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``extra_specs`` replaced (removed keys deleted); ``tenants`` access added / removed."""
        self.check_replace(changed, new_properties)
        old = dict(self.properties)
        self.properties = dict(new_properties)
        compute = self.cloud().compute
        if "extra_specs" in changed:
            new = {k: str(v) for k, v in (self.properties.get("extra_specs") or {}).items()}
            for key in old.get("extra_specs") or {}:
                if key not in new:
                    compute.delete_flavor_extra_specs_property(self.resource_id, key)
            if new:
                compute.create_flavor_extra_specs(self.resource_id, new)
        if "tenants" in changed and not self.get_property("is_public"):
            new_t, old_t = set(self.properties.get("tenants") or []), set(old.get("tenants") or [])
            for tenant in sorted(old_t - new_t):
                compute.flavor_remove_tenant_access(self.resource_id, tenant)
            for tenant in sorted(new_t - old_t):
                compute.flavor_add_tenant_access(self.resource_id, tenant)
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().compute.get_flavor(self.resource_id)

    def _delete(self) -> None:
        self.cloud().compute.delete_flavor(self.resource_id)

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource() or {}
        if name == "is_public":
            return shown.get("os-flavor-access:is_public", shown.get("is_public"))
        if name == "extra_specs":
            if not self.resource_id:
                return None
            specs = plain(self.cloud().compute.fetch_flavor_extra_specs(self.resource_id))
            return (specs or {}).get("extra_specs")
        return shown.get(name)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (KeyPair, ServerGroup, Flavor)}
