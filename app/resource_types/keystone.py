"""Keystone's catalogue-like resource types: Domain, Project, Role, Region, Service and Endpoint
(Heat 27's ``heat/engine/resources/openstack/keystone/``). Users, groups and role assignments
are in :mod:`app.resource_types.keystone_roles`.

Each is created with one POST, updated in place with one PATCH of the changed properties
(a property that is not ``update_allowed`` -- a Region's ``id``, a Project's ``parent``, a Role's
``domain`` -- replaces it), deleted with one DELETE (already gone: done). The reference id is
the Keystone id. None of Heat's Keystone plugins has a CHECK handler.
"""
from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

from app import errors
from app.clients import is_not_found
from app.resource_types._keystone import KeystoneResource
from app.resource_types._schemas import keystone as sch
from app.resource_types.base import Resource


class Domain(KeystoneResource):
    """A Keystone domain. Deleted as Heat 27's plugin deletes it, with the DELETE alone: Keystone
    refuses an enabled domain (403 "Cannot delete a domain that is enabled, please disable it
    first."), so a stack deletes its domain once an update has set ``enabled: false``."""

    type_name = "OS::Keystone::Domain"
    support_status = sch.DOMAIN_SUPPORT
    properties_schema = sch.DOMAIN_PROPERTIES
    unlisted_properties = sch.DOMAIN_UNLISTED
    collection = "domains"

    def handle_create(self) -> None:
        p = self.properties
        self.create_object({"name": self.name_or_physical(), "description": p.get("description"),
                            "enabled": self.get_property("enabled")})

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.patch({"name": self.new_name(dict(changed)), "description": changed.get("description"),
                    "enabled": changed.get("enabled")})

class Project(KeystoneResource):
    """A Keystone project in ``domain``, under ``parent`` if given (then replaced when it
    changes). Its delete first removes the ``default`` security group Neutron made for it, as
    Heat's."""

    type_name = "OS::Keystone::Project"
    support_status = sch.PROJECT_SUPPORT
    properties_schema = sch.PROJECT_PROPERTIES
    attributes_schema = sch.PROJECT_ATTRIBUTES
    unlisted_properties = sch.PROJECT_UNLISTED
    collection = "projects"

    def handle_create(self) -> None:
        p = self.properties
        body: dict[str, Any] = {"name": self.name_or_physical(),
                                "domain_id": self.resolve_id("domain", self.get_property("domain")),
                                "description": self.get_property("description"),
                                "enabled": self.get_property("enabled"),
                                "tags": list(self.get_property("tags") or [])}
        if p.get("parent"):
            body["parent_id"] = self.resolve_id("project", p["parent"])
        self.create_object(body)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Heat sends the domain (changed or not) and the tags (new, else the current ones)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.patch({"name": self.new_name(dict(changed)), "description": changed.get("description"),
                    "enabled": changed.get("enabled"),
                    "domain_id": self.resolve_id("domain", self.get_property("domain")),
                    "tags": list(self.get_property("tags") or [])})

    def _delete(self) -> None:
        network = self.cloud().network
        try:
            groups = network.security_groups(project_id=self.resource_id, name="default")
        except errors.CloudError as exc:
            if exc.status not in (403, 404) and not (exc.status is None and not exc.transient):
                raise
            groups = []    # no Neutron to ask: nothing of it to clean up
        for group in groups:
            try:
                network.delete_security_group(group.id)
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        super()._delete()


class Role(KeystoneResource):
    """A Keystone role, global or of ``domain`` (a domain change replaces it); only the name is
    updated in place."""

    type_name = "OS::Keystone::Role"
    support_status = sch.ROLE_SUPPORT
    properties_schema = sch.ROLE_PROPERTIES
    collection = "roles"

    def handle_create(self) -> None:
        body: dict[str, Any] = {"name": self.name_or_physical()}
        domain = self.resolve_id("domain", self.properties.get("domain"))
        if domain:
            body["domain_id"] = domain
        self.create_object(body)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.patch({"name": self.new_name(dict(changed))})


class Region(KeystoneResource):
    """A Keystone region whose id is ``id`` (URL-encoded, as Heat sends it) or Keystone's; a new
    ``id`` replaces it. Its reference id is the region id."""

    type_name = "OS::Keystone::Region"
    support_status = sch.REGION_SUPPORT
    properties_schema = sch.REGION_PROPERTIES
    unlisted_properties = sch.REGION_UNLISTED
    collection = "regions"

    def handle_create(self) -> None:
        p = self.properties
        body: dict[str, Any] = {"description": p.get("description"), "enabled": self.get_property("enabled")}
        if p.get("id"):
            body["id"] = quote(str(p["id"]))
            if self.data.get("creating") == body["id"] and self._exists(body["id"]):
                self.resource_id = body["id"]   # an earlier attempt of this create made it
                return
        if p.get("parent_region"):
            body["parent_region_id"] = self.resolve_id("region", p["parent_region"])
        self.data["creating"] = body.get("id")
        made = self.ks("POST", "/regions", json={"region": {k: v for k, v in body.items() if v is not None}})
        self.resource_id = str(made["region"]["id"])

    def _exists(self, ident: str) -> bool:
        try:
            self.ks("GET", f"/regions/{ident}")
        except errors.CloudError as exc:
            if is_not_found(exc):
                return False
            raise
        return True

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        parent = changed.get("parent_region")
        self.patch({"parent_region_id": self.resolve_id("region", parent) if parent else None,
                    "description": changed.get("description"), "enabled": changed.get("enabled")})


class Service(KeystoneResource):
    """A Keystone service of ``type``; with an Endpoint it appears in tokens' catalogs."""

    type_name = "OS::Keystone::Service"
    support_status = sch.SERVICE_SUPPORT
    properties_schema = sch.SERVICE_PROPERTIES
    unlisted_properties = sch.SERVICE_UNLISTED
    collection = "services"

    def handle_create(self) -> None:
        p = self.properties
        self.create_object({"name": self.name_or_physical(), "description": p.get("description"),
                            "type": p["type"], "enabled": self.get_property("enabled")})

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.patch({"name": self.new_name(dict(changed)), "description": changed.get("description"),
                    "type": changed.get("type"), "enabled": changed.get("enabled")})


class Endpoint(KeystoneResource):
    """A Keystone endpoint of ``service`` (name or id) at ``url`` for ``interface``, in
    ``region``; every property is updated in place."""

    type_name = "OS::Keystone::Endpoint"
    support_status = sch.ENDPOINT_SUPPORT
    properties_schema = sch.ENDPOINT_PROPERTIES
    collection = "endpoints"

    def handle_create(self) -> None:
        p = self.properties
        self.create_object({"region_id": self.resolve_id("region", p.get("region")),
                            "service_id": self.resolve_id("service", p["service"]),
                            "interface": p["interface"], "url": p["url"], "name": self.name_or_physical(),
                            "enabled": self.get_property("enabled")})

    def _find_named(self, name: str, ignore_missing: bool = True) -> Any:
        """Endpoints are not listed by name: an earlier attempt's is found among the service's."""
        service = self.resolve_id("service", self.properties["service"])
        listed = self.ks("GET", "/endpoints", params={"service_id": service})["endpoints"]
        found = [e for e in listed if e.get("name") == name]
        return SimpleNamespace(id=found[0]["id"]) if len(found) == 1 else None

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        region, service = changed.get("region"), changed.get("service")
        self.patch({"region_id": self.resolve_id("region", region) if region else None,
                    "service_id": self.resolve_id("service", service) if service else None,
                    "interface": changed.get("interface"), "url": changed.get("url"),
                    "name": self.new_name(dict(changed)), "enabled": changed.get("enabled")})


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (Domain, Project, Role, Region, Service, Endpoint)}
