"""Ironic: OS::Ironic::Port (Heat 27, ``heat/engine/resources/openstack/ironic/port.py``),
through ``Cloud.request("baremetal", ...)`` with Ironic's microversion header.

``node`` and ``portgroup`` (names or ids) are resolved to uuids and sent as ``node_uuid`` /
``portgroup_uuid``; every property updates in place, as a JSON patch of ``replace``
operations; delete is polled until the port is gone. Ironic's API is admin-only: a
non-admin's request is refused by the service (403).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import ironic as sch
from app.resource_types.base import Resource

SERVICE = "baremetal"
HEADERS = {"X-OpenStack-Ironic-API-Version": "1.53"}
_RENAMED = {"node": "node_uuid", "portgroup": "portgroup_uuid"}


class Port(CloudResource):
    """A bare-metal port of a node."""

    type_name = "OS::Ironic::Port"
    support_status = sch.PORT_SUPPORT
    properties_schema = sch.PORT_PROPERTIES
    attributes_schema = sch.PORT_ATTRIBUTES

    def _args(self, props: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in props.items():
            if key == "node" and value is not None:
                value = self.resolve("ironic.node", value)
            if key == "portgroup" and value is not None:
                value = self.resolve("ironic.portgroup", value)
            out[_RENAMED.get(key, key)] = value
        return out

    def handle_create(self) -> None:
        body = {k: v for k, v in self._args(self.properties).items() if v is not None}
        made = self.cloud().request(SERVICE, "POST", "/ports", json=body, headers=HEADERS)
        self.resource_id = made["uuid"]

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if changed:
            patch = [{"op": "replace", "path": f"/{k}", "value": v}
                     for k, v in self._args(changed).items()]
            self.cloud().request(SERVICE, "PATCH", f"/ports/{self.resource_id}", json=patch,
                                 headers=HEADERS)
        self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().request(SERVICE, "GET", f"/ports/{self.resource_id}",
                                    headers=HEADERS)

    def _delete(self) -> None:
        self.cloud().request(SERVICE, "DELETE", f"/ports/{self.resource_id}", headers=HEADERS)

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        return None if shown is None else shown.get(name)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {Port.type_name: Port}
