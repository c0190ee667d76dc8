"""Designate DNS: OS::Designate::Zone and OS::Designate::RecordSet (Heat 27,
``heat/engine/resources/openstack/designate/``), plus Heat's HIDDEN OS::Designate::Domain and
OS::Designate::Record.

More in docs/code/resource_types.md (app.resource_types.designate).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import dns
from app.resource_types._cloud import CloudResource, in_error
from app.resource_types._schemas import designate as sch
from app.resource_types.base import Resource
from app.resource_types.heat import NoneResource

SERVICE = dns.SERVICE


def _done(obj: Mapping[str, Any], reason: str) -> bool:
    """Heat's ``_check_status_complete``: ERROR fails, anything but PENDING is complete."""
    if obj.get("status") == "ERROR":
        raise in_error("ERROR", reason)
    return obj.get("status") != "PENDING"


class Zone(CloudResource):
    """A DNS zone; asynchronous create, update and delete."""

    type_name = "OS::Designate::Zone"
    support_status = sch.ZONE_SUPPORT
    properties_schema = sch.ZONE_PROPERTIES
    attributes_schema = sch.ZONE_ATTRIBUTES
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = sch.DESCRIPTION
    _UPDATABLE = ("email", "ttl", "description", "masters")

    @classmethod
    def _masters(cls, props: Mapping[str, Any]) -> Any:
        return props.get("primaries") or props.get("masters")

    def validate(self) -> None:
        """Heat's checks: not both ``masters`` and ``primaries``; ``email`` for a PRIMARY zone,
        ``masters`` (or ``primaries``) for a SECONDARY one.

        :raises errors.ValidationError: with Heat's wording."""
        p = self.properties
        if p.get("masters") and p.get("primaries"):
            raise errors.ValidationError("Cannot define the following properties at the same "
                                         "time: masters, primaries.")
        kind = self.get_property("type")
        if kind == "PRIMARY" and not p.get("email"):
            raise errors.ValidationError("Property email is required for zone type PRIMARY")
        if kind == "SECONDARY" and not self._masters(p):
            raise errors.ValidationError("Property masters is required for zone type SECONDARY")
        super().validate()

    def handle_create(self) -> None:
        p = self.properties
        body = {k: v for k, v in p.items() if v and k not in ("primaries", "masters")}
        body["type"] = self.get_property("type")
        if self._masters(p):
            body["masters"] = list(self._masters(p))
        zone = self.cloud().request(SERVICE, "POST", "/zones", json=body)
        self.resource_id = str(zone["id"])

    def check_create_complete(self, handle: Any) -> bool:
        return _done(self._fetch(), "Error in zone")

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        """PATCH the changed updatable properties (a change to nothing is not sent, as Heat)."""
        self.check_replace(changed, new_properties)
        changes = dict(changed)
        if "primaries" in changes:
            changes["masters"] = changes.pop("primaries")
        body = {k: changes[k] for k in self._UPDATABLE if changes.get(k)}
        self.properties = dict(new_properties)
        if body:
            self.cloud().request(SERVICE, "PATCH", f"/zones/{self.resource_id}", json=body)
        self.refresh()
        return bool(body)

    def check_update_complete(self, handle: Any) -> bool:
        return not handle or _done(self._fetch(), "Error in zone")

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/zones/{self.resource_id}")

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/zones/{self.resource_id}")

    def _gone(self) -> bool:
        try:
            zone = self._fetch()
        except errors.CloudError as exc:
            if exc.status == 404:
                return True
            raise
        if zone.get("status") == "ERROR":
            raise in_error("ERROR", "Error in zone")
        return False


class RecordSet(CloudResource):
    """A recordset in a zone; asynchronous create, update and delete."""

    type_name = "OS::Designate::RecordSet"
    support_status = sch.RECORDSET_SUPPORT
    properties_schema = sch.RECORDSET_PROPERTIES
    attributes_schema = sch.RECORDSET_ATTRIBUTES
    unlisted_properties: ClassVar[dict[str, dict[str, Any]]] = sch.DESCRIPTION

    def _zone(self) -> str:
        zone = self.resolve("designate.zone", self.properties.get("zone"))
        assert zone is not None
        return zone

    def _path(self) -> str:
        return f"/zones/{self._zone()}/recordsets/{self.resource_id}"

    def handle_create(self) -> None:
        p = self.properties
        zone = self._zone()
        name = str(p.get("name") or self.physical_resource_name())
        if not name.endswith("."):
            zone_name = self.cloud().request(SERVICE, "GET", f"/zones/{zone}")["name"]
            name = f"{name}.{zone_name}"
        body: dict[str, Any] = {"name": name, "type": p["type"], "records": list(p["records"])}
        for key in ("ttl", "description"):
            if p.get(key):
                body[key] = p[key]
        rs = self.cloud().request(SERVICE, "POST", f"/zones/{zone}/recordsets", json=body)
        self.resource_id = str(rs["id"])

    def check_create_complete(self, handle: Any) -> bool:
        return _done(self._fetch(), "Error in RecordSet")

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        """PUT the changed ``records``, ``ttl`` and ``description``."""
        self.check_replace(changed, new_properties)
        body = {k: changed[k] for k in ("ttl", "description", "records") if changed.get(k)}
        self.properties = dict(new_properties)
        if body:
            self.cloud().request(SERVICE, "PUT", self._path(), json=body)
        self.refresh()
        return bool(body)

    def check_update_complete(self, handle: Any) -> bool:
        return not handle or _done(self._fetch(), "Error in RecordSet")

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", self._path())

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", self._path())

    def _gone(self) -> bool:
        try:
            rs = self._fetch()
        except errors.CloudError as exc:
            if exc.status == 404:
                return True
            raise
        if rs.get("status") == "ERROR":
            raise in_error("ERROR", "Error in RecordSet")
        return False


class Domain(NoneResource):
    """Heat's removed OS::Designate::Domain: a placeholder (see the module docstring)."""

    type_name = "OS::Designate::Domain"
    support_status = sch.DOMAIN_SUPPORT


class Record(NoneResource):
    """Heat's removed OS::Designate::Record: a placeholder (see the module docstring)."""

    type_name = "OS::Designate::Record"
    support_status = sch.RECORD_SUPPORT


def hidden_resource_mapping() -> dict[str, type[Resource]]:
    """Heat's HIDDEN names, usable in templates, not listed (app.resource_types.registry)."""
    return {Domain.type_name: Domain, Record.type_name: Record}


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {Zone.type_name: Zone, RecordSet.type_name: RecordSet}
