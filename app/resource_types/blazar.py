"""Blazar: OS::Blazar::Host and OS::Blazar::Lease (Heat 27,
``heat/engine/resources/openstack/blazar/``), through ``Cloud.request("reservation", ...)``.

Host: ``POST /os-hosts`` with ``name`` and the ``extra_capability`` pairs; attributes are the
host's fields. Lease: ``POST /leases`` with ``start``/``end`` dates, the ``events`` and the
reservations (a ``physical:host`` one without the instance keys, a ``virtual:instance`` one
without the host keys, as Heat's ``_parse_reservation``); its validation needs a host in
Blazar (Heat's "Couldn't find any host in Blazar..."). Both are created and deleted at once.
"""
from __future__ import annotations

from typing import Any, ClassVar

from app import errors
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import blazar as sch
from app.resource_types.base import Resource

SERVICE = "reservation"


class Host(CloudResource):
    """A compute host registered in Blazar."""

    type_name = "OS::Blazar::Host"
    support_status = sch.HOST_SUPPORT
    properties_schema = sch.HOST_PROPERTIES
    attributes_schema = sch.HOST_ATTRIBUTES

    def handle_create(self) -> None:
        body = {"name": self.properties["name"], **(self.properties.get("extra_capability") or {})}
        self.resource_id = str(self.cloud().request(SERVICE, "POST", "/os-hosts", json=body)["host"]["id"])

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/os-hosts/{self.resource_id}")["host"]

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/os-hosts/{self.resource_id}")

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        return None if shown is None else shown.get(name)


_HOST_ONLY = ("hypervisor_properties", "max", "min", "before_end")
_INSTANCE_ONLY = ("vcpus", "memory_mb", "disk_gb", "affinity", "amount")


class Lease(CloudResource):
    """A Blazar lease of hosts or instances."""

    type_name = "OS::Blazar::Lease"
    support_status = sch.LEASE_SUPPORT
    properties_schema = sch.LEASE_PROPERTIES
    attributes_schema = sch.LEASE_ATTRIBUTES
    #: a lease goes PENDING -> ACTIVE -> TERMINATED with the clock, its events with it: read
    #: live by resource show and the stack's outputs, as Heat resolves them
    live_attributes: ClassVar[frozenset[str]] = frozenset({"status", "events", "reservations",
                                                           "degraded", "updated_at"})

    def validate(self) -> None:
        """:raises errors.ValidationError: no host is registered in Blazar (Heat's check)."""
        super().validate()
        if self.clients is not None and \
                not self.cloud().request(SERVICE, "GET", "/os-hosts").get("hosts"):
            raise errors.ValidationError("Couldn't find any host in Blazar. You must create a "
                                         "host before creating a lease.")

    def handle_create(self) -> None:
        p = self.properties
        reservations = []
        for rsv in p.get("reservations") or []:
            drop = _INSTANCE_ONLY if rsv.get("resource_type") == "physical:host" else _HOST_ONLY
            reservations.append({k: v for k, v in rsv.items() if k not in drop and v is not None})
        body = {"name": p["name"], "start_date": p["start_date"], "end_date": p["end_date"],
                "reservations": reservations, "events": p.get("events") or []}
        if p.get("before_end_date"):
            body["before_end_date"] = p["before_end_date"]
        self.resource_id = str(self.cloud().request(SERVICE, "POST", "/leases", json=body)["lease"]["id"])

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/leases/{self.resource_id}")["lease"]

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/leases/{self.resource_id}")

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        return None if shown is None else shown.get(name)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (Host, Lease)}
