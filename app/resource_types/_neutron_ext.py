"""The base of the Neutron extension resource types (trunks, QoS, FWaaS, VPNaaS, SFC, TaaS...):
Heat's ``NeutronResource`` pattern done once, over Neutron's REST API (``cloud().request``; the
SDK has no proxy for several of these APIs, FWaaS v1 and L2 gateways among them).

More in docs/code/resource_types.md (app.resource_types._neutron_ext).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from app.clients import status
from app.resource_types._cloud import CloudResource, in_error


class NeutronExtResource(CloudResource):
    """A Neutron object of the collection at :attr:`path`."""

    broken_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR"})
    path: ClassVar[str] = ""
    key: ClassVar[str] = ""
    #: the listing's key (adoption of an earlier attempt's object by name); empty: none
    plural: ClassVar[str] = ""
    #: property -> API attribute
    renames: ClassVar[dict[str, str]] = {}
    #: property -> custom constraint resolving its name-or-id (each item of a list)
    lookups: ClassVar[dict[str, str]] = {}
    #: properties that are not attributes of the object
    omit: ClassVar[frozenset[str]] = frozenset()
    #: Heat's ``required_service_extension`` (Neutron's alias)
    extension: ClassVar[str] = ""
    #: statuses meaning "created"; empty: complete at once
    built: ClassVar[tuple[str, ...]] = ()

    # ---- REST ------------------------------------------------------------------------------
    def parent(self) -> str | None:
        """The parent object's id of a nested collection (``{parent}`` in :attr:`path`)."""
        return None

    def url(self, obj_id: Any = None) -> str:
        base = self.path.format(parent=self.parent()) if "{parent}" in self.path else self.path
        return base if obj_id is None else f"{base}/{obj_id}"

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """One Neutron request; the decoded answer. :raises errors.CloudError: as Neutron answers."""
        kwargs = {} if body is None else {"json": body}
        return self.cloud().request("network", method, path, **kwargs)

    def _fetch(self) -> Any:
        return (self.call("GET", self.url(self.resource_id)) or {})[self.key]

    def _delete(self) -> None:
        self.call("DELETE", self.url(self.resource_id))

    # ---- bodies ----------------------------------------------------------------------------
    def value(self, name: str, value: Any) -> Any:
        """The API's value for property ``name`` (names resolved to ids)."""
        constraint = self.lookups.get(name)
        if constraint is None or value in (None, ""):
            return value
        if isinstance(value, list):
            return [self.resolve(constraint, v) for v in value]
        return self.resolve(constraint, value)

    def api_body(self, props: Mapping[str, Any], keys: Iterable[str] | None = None) -> dict[str, Any]:
        """The create body for ``props`` (``keys`` None: every non-null property) or the update
        body of the changed ``keys`` (a cleared property is sent as null), as Heat's
        ``prepare_properties`` / ``prepare_update_properties``."""
        wanted = set(props) if keys is None else set(keys)
        out: dict[str, Any] = {}
        for name in sorted(wanted):
            value = props.get(name)
            if name in self.omit or name == "value_specs" or (keys is None and value is None):
                continue
            out[self.renames.get(name, name)] = self.value(name, value)
        if "name" in self.properties_schema and (keys is None or "name" in wanted) \
                and not props.get("name"):
            out["name"] = self.physical_resource_name()
        if "value_specs" in wanted:
            out.update(props.get("value_specs") or {})
        return out

    # ---- life cycle ------------------------------------------------------------------------
    def kind(self) -> status.Kind | None:
        if not self.plural or "{parent}" in self.path:
            return None
        return status.Kind("network", self.path + "/{id}", self.key, self.path, self.plural)

    def handle_create(self) -> None:
        kind = self.kind()
        if kind is not None and "name" in self.properties_schema and self.adopt(kind):
            return
        self.create_object(self.api_body(self.properties))

    def create_object(self, body: dict[str, Any]) -> dict[str, Any]:
        obj: dict[str, Any] = (self.call("POST", self.url(), {self.key: body}) or {})[self.key]
        self.resource_id = str(obj["id"])
        self._shown = obj
        return obj

    def check_create_complete(self, handle: Any) -> bool:
        if not self.built:
            return True
        shown = self.polled() or {}
        current = str(shown.get("status", "")).upper()
        if current in self.built:
            return True
        if current == "ERROR":
            raise in_error(current)
        return False

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``PUT`` the changed properties (Heat's ``handle_update`` of the Neutron plugins).

        :raises UpdateReplace: a changed property is not ``update_allowed``.
        """
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.update_object(self.api_body(self.properties, changed))

    def update_object(self, body: dict[str, Any]) -> None:
        if body:
            self.call("PUT", self.url(self.resource_id), {self.key: body})
        self.refresh()
