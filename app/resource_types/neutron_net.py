"""Neutron extension resource types of the network itself: Trunk, SubnetPool, AddressScope,
Segment, RBACPolicy, Quota, ExtraRoute, ExtraRouteSet and FloatingIPPortForward (Heat 27,
``heat/engine/resources/openstack/neutron/``), on :class:`NeutronExtResource`.

Heat's specifics kept: a trunk's ``sub_ports`` are changed by difference (``remove_subports``
then ``add_subports``); an ExtraRoute adds one route to the router's ``routes`` and removes
only it (reference id ``router:destination:nexthop``); an ExtraRouteSet uses
``add_extraroutes`` / ``remove_extraroutes`` (reference id: the router); a Quota is set with
``PUT /quotas/<project>`` and its delete resets the project's quota (reference id: the physical
resource name); the validation messages of Segment, SubnetPool, RBACPolicy and Quota.
"""
from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import UNLISTED_DESCRIPTION
from app.resource_types._dependencies import StackView, ref_of
from app.resource_types._neutron_ext import NeutronExtResource
from app.resource_types._schemas import neutron_net as sch
from app.resource_types.base import Resource


def _invalid(message: str) -> errors.ValidationError:
    return errors.ValidationError(message)


class Trunk(NeutronExtResource):
    """A trunk on a parent ``port`` with VLAN ``sub_ports``; built when ``ACTIVE`` or ``DOWN``."""

    type_name = "OS::Neutron::Trunk"
    support_status = sch.TRUNK_SUPPORT
    properties_schema = sch.TRUNK_PROPERTIES
    attributes_schema = sch.TRUNK_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/trunks", "trunk", "trunks", "trunk"
    renames = {"port": "port_id"}
    lookups = {"port": "neutron.port"}
    built = ("ACTIVE", "DOWN")

    def value(self, name: str, value: Any) -> Any:
        if name == "sub_ports":
            return self._subports(value or [])
        return super().value(name, value)

    def _subports(self, items: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"port_id": self.resolve("neutron.port", sp["port"]),
                 "segmentation_type": sp.get("segmentation_type"),
                 "segmentation_id": sp.get("segmentation_id")} for sp in items]

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Other properties ``PUT``; subports removed, then added, by difference (Heat)."""
        self.check_replace(changed, new_properties)
        old = [dict(sp) for sp in self.properties.get("sub_ports") or []]
        new = [dict(sp) for sp in new_properties.get("sub_ports") or []]
        self.properties = dict(new_properties)
        self.update_object(self.api_body(self.properties, [k for k in changed if k != "sub_ports"]))
        gone = [sp for sp in old if sp not in new]
        added = [sp for sp in new if sp not in old]
        if gone:
            self.call("PUT", self.url(self.resource_id) + "/remove_subports",
                      {"sub_ports": [{"port_id": self.resolve("neutron.port", sp["port"])} for sp in gone]})
        if added:
            self.call("PUT", self.url(self.resource_id) + "/add_subports", {"sub_ports": self._subports(added)})
        self.refresh()


class SubnetPool(NeutronExtResource):
    """A subnet pool; ``tags`` set after the create, ``prefixes`` may only grow (Heat)."""

    type_name = "OS::Neutron::SubnetPool"
    support_status = sch.SUBNET_POOL_SUPPORT
    properties_schema = sch.SUBNET_POOL_PROPERTIES
    attributes_schema = sch.SUBNET_POOL_ATTRIBUTES
    path, key, plural, extension = "/subnetpools", "subnetpool", "subnetpools", "subnet_allocation"
    renames = {"address_scope": "address_scope_id"}
    lookups = {"address_scope": "neutron.address_scope"}
    omit = frozenset({"tags"})

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's ``Illegal prefix bounds: ...``."""
        lo, default, hi = (self.properties.get(k) for k in ("min_prefixlen", "default_prefixlen", "max_prefixlen"))
        pairs = [("max_prefixlen", hi, "min_prefixlen", lo)] if lo and hi and lo > hi else []
        if default and hi and default > hi:
            pairs.append(("max_prefixlen", hi, "default_prefixlen", default))
        if default and lo and lo > default:
            pairs.append(("min_prefixlen", lo, "default_prefixlen", default))
        if pairs:
            k1, v1, k2, v2 = pairs[0]
            raise _invalid(f"Illegal prefix bounds: {k1}={v1}, {k2}={v2}.")
        super().validate()

    def handle_create(self) -> None:
        super().handle_create()
        if self.properties.get("tags"):
            self.call("PUT", f"/subnetpools/{self.resource_id}/tags", {"tags": list(self.properties["tags"])})

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """:raises errors.ValidationError: new ``prefixes`` not a superset of the old (Heat)."""
        self.check_replace(changed, new_properties)
        if "prefixes" in changed:
            old = [ipaddress.ip_network(p, strict=False) for p in self.properties.get("prefixes") or []]
            new = [ipaddress.ip_network(p, strict=False) for p in changed["prefixes"] or []]
            if not all(any(o.version == n.version and o.subnet_of(n) for n in new) for o in old):  # type: ignore[arg-type]
                raise _invalid(f"Property prefixes updated value {sorted(changed['prefixes'])} should be "
                               f"superset of existing value {sorted(self.properties.get('prefixes') or [])}.")
        self.properties = dict(new_properties)
        self.update_object(self.api_body(self.properties, changed))
        if "tags" in changed:
            self.call("PUT", f"/subnetpools/{self.resource_id}/tags", {"tags": list(changed["tags"] or [])})


class AddressScope(NeutronExtResource):
    """An address scope of IPv4 or IPv6 subnet pools."""

    type_name = "OS::Neutron::AddressScope"
    support_status = sch.ADDRESS_SCOPE_SUPPORT
    properties_schema = sch.ADDRESS_SCOPE_PROPERTIES
    attributes_schema = sch.ADDRESS_SCOPE_ATTRIBUTES
    path, key, plural, extension = "/address-scopes", "address_scope", "address_scopes", "address-scope"


class Segment(NeutronExtResource):
    """A segment of ``network`` (admin); Heat's provider-network rules checked first."""

    type_name = "OS::Neutron::Segment"
    support_status = sch.SEGMENT_SUPPORT
    properties_schema = sch.SEGMENT_PROPERTIES
    attributes_schema = sch.SEGMENT_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/segments", "segment", "segments", "segment"
    renames = {"network": "network_id"}
    lookups = {"network": "neutron.network"}

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's ``<prop> is required / prohibited for <type>
        provider network.`` and the VLAN range message."""
        physnet, kind = self.properties.get("physical_network"), self.properties.get("network_type")
        seg = self.properties.get("segmentation_id")
        if kind in ("flat", "vlan") and physnet is None:
            raise _invalid(f"physical_network is required for {kind} provider network.")
        if kind == "vlan" and seg is None:
            raise _invalid(f"segmentation_id is required for {kind} provider network.")
        if kind in ("local", "flat") and seg is not None:
            raise _invalid(f"segmentation_id is prohibited for {kind} provider network.")
        if kind in ("vxlan", "gre", "geneve") and physnet is not None:
            raise _invalid(f"physical_network is prohibited for {kind} provider network.")
        if kind == "vlan" and seg is not None and int(seg) > 4094:
            raise _invalid("Up to 4094 VLAN network segments can exist on each physical_network.")
        super().validate()


class RBACPolicy(NeutronExtResource):
    """Shares an object (``object_type``: network, qos_policy, security_group, address_scope,
    subnetpool) with ``target_tenant``; ``object_id`` is resolved by its type."""

    type_name = "OS::Neutron::RBACPolicy"
    support_status = sch.RBAC_POLICY_SUPPORT
    properties_schema = sch.RBAC_POLICY_PROPERTIES
    attributes_schema = sch.RBAC_POLICY_ATTRIBUTES
    path, key, extension = "/rbac-policies", "rbac_policy", "rbac-policies"
    ACTIONS: ClassVar[dict[str, tuple[str, ...]]] = {
        "network": ("access_as_shared", "access_as_external"), "qos_policy": ("access_as_shared",),
        "security_group": ("access_as_shared",), "address_scope": ("access_as_shared",),
        "subnetpool": ("access_as_shared",)}

    def value(self, name: str, value: Any) -> Any:
        if name == "object_id" and value:
            return self.resolve(f"neutron.{self.properties['object_type']}", value)
        return super().value(name, value)

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's ``Invalid action ... for object type ...``."""
        action, kind = self.properties.get("action"), self.properties.get("object_type")
        valid = self.ACTIONS.get(str(kind), ())
        if action not in valid:
            raise _invalid(f"Property error: resources.{self.name}.properties.action: Invalid action "
                           f'"{action}" for object type {kind}. Valid actions: {", ".join(valid)}')
        super().validate()


class Quota(NeutronExtResource):
    """A project's Neutron quota (admin). Reference id: the physical resource name (Heat)."""

    type_name = "OS::Neutron::Quota"
    support_status = sch.QUOTA_SUPPORT
    properties_schema = sch.QUOTA_PROPERTIES
    attributes_schema = sch.QUOTA_ATTRIBUTES
    extension = "quotas"

    def validate(self) -> None:
        """:raises errors.ValidationError: no quota given (Heat's ``PropertyUnspecifiedError``)."""
        if all(v is None for k, v in self.properties.items() if k != "project"):
            names = ", ".join(sorted(set(self.properties_schema) - {"project"}))
            raise _invalid(f"At least one of the following properties must be specified: {names}.")
        super().validate()

    def _project(self) -> str:
        value = str(self.properties["project"])
        try:
            found = self.cloud().identity.find_project(value, ignore_missing=True)
        except errors.CloudError:
            return value
        return str(found.id) if found is not None else value

    def _set(self) -> None:
        quota = {k: v for k, v in self.properties.items() if k != "project" and v is not None}
        self.call("PUT", f"/quotas/{self._project()}", {"quota": quota})

    def handle_create(self) -> None:
        self._set()
        self.resource_id = self.physical_resource_name()

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self._set()

    def _fetch(self) -> Any:
        return (self.call("GET", f"/quotas/{self._project()}") or {}).get("quota")

    def _delete(self) -> None:
        self.call("DELETE", f"/quotas/{self._project()}")

    def check_delete_complete(self, handle: Any) -> bool:
        return True


def _router_interfaces(view: StackView, name: str, prop: str) -> set[str]:
    """Heat's ``add_dependencies`` of the extra routes: the stack's RouterInterfaces of the same
    router (a next hop must be on a subnet the router has)."""
    router = ref_of(view.prop(name, prop))
    return {r for r in view.of_type("OS::Neutron::RouterInterface")
            if router is not None and ref_of(view.prop(r, "router") or view.prop(r, "router_id")) == router}


class ExtraRoute(NeutronExtResource):
    """One extra route on ``router_id`` (Heat's unsupported type), added to the router's
    ``routes``; its delete removes that route only."""

    type_name = "OS::Neutron::ExtraRoute"
    support_status = sch.EXTRA_ROUTE_SUPPORT
    properties_schema = sch.EXTRA_ROUTE_PROPERTIES
    attributes_schema = sch.EXTRA_ROUTE_ATTRIBUTES
    extension = "extraroute"

    @classmethod
    def implicit_requirements(cls, name: str, view: StackView) -> set[str]:
        return _router_interfaces(view, name, "router_id")

    def _route(self) -> dict[str, Any]:
        return {"destination": self.properties["destination"], "nexthop": self.properties["nexthop"]}

    def _routes(self, router: str) -> list[dict[str, Any]]:
        return list((self.call("GET", f"/routers/{router}") or {})["router"].get("routes") or [])

    def handle_create(self) -> None:
        """:raises errors.StokerError: Heat's ``Route duplicates an existing route.``"""
        router = self.resolve("neutron.router", self.properties["router_id"])
        routes = self._routes(str(router))
        if self._route() in routes:
            raise errors.StokerError("Route duplicates an existing route.")
        self.call("PUT", f"/routers/{router}", {"router": {"routes": [*routes, self._route()]}})
        self.resource_id = f"{router}:{self.properties['destination']}:{self.properties['nexthop']}"

    def _delete(self) -> None:
        router = str(self.resource_id).split(":")[0]
        routes = self._routes(router)
        if self._route() in routes:
            routes.remove(self._route())
            self.call("PUT", f"/routers/{router}", {"router": {"routes": routes}})

    def _fetch(self) -> Any:
        router = str(self.resource_id).split(":")[0]
        return (self.call("GET", f"/routers/{router}") or {})["router"]

    def check_delete_complete(self, handle: Any) -> bool:
        return True


class ExtraRouteSet(NeutronExtResource):
    """A set of extra routes on ``router`` (``extraroute-atomic``); updates add and remove the
    difference. Reference id: the router's id."""

    type_name = "OS::Neutron::ExtraRouteSet"
    support_status = sch.EXTRA_ROUTE_SET_SUPPORT
    properties_schema = sch.EXTRA_ROUTE_SET_PROPERTIES
    attributes_schema = sch.EXTRA_ROUTE_SET_ATTRIBUTES
    extension = "extraroute-atomic"

    @classmethod
    def implicit_requirements(cls, name: str, view: StackView) -> set[str]:
        return _router_interfaces(view, name, "router")

    def _router(self) -> str:
        return str(self.resolve("neutron.router", self.properties["router"]))

    def _change(self, action: str, routes: list[Mapping[str, Any]]) -> None:
        plain = [{"destination": r["destination"], "nexthop": r["nexthop"]} for r in routes]
        if not plain:
            return
        if action == "add":
            existing = (self.call("GET", f"/routers/{self._router()}") or {})["router"].get("routes") or []
            for route in plain:
                if route in existing:
                    raise errors.StokerError(f"The physical resource for ({self._router()},"
                                             f"{route['destination']}={route['nexthop']}) exists.",
                                             heat_type="PhysicalResourceExists")
        self.call("PUT", f"/routers/{self._router()}/{action}_extraroutes", {"router": {"routes": plain}})

    def handle_create(self) -> None:
        self._change("add", list(self.properties.get("routes") or []))
        self.resource_id = self._router()

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        self.check_replace(changed, new_properties)
        old = [dict(r) for r in self.properties.get("routes") or []]
        new = [dict(r) for r in new_properties.get("routes") or []]
        self.properties = dict(new_properties)
        self._change("remove", [r for r in old if r not in new])
        self._change("add", [r for r in new if r not in old])

    def _fetch(self) -> Any:
        return (self.call("GET", f"/routers/{self.resource_id}") or {})["router"]

    def _delete(self) -> None:
        try:
            self._change("remove", list(self.properties.get("routes") or []))
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise

    def check_delete_complete(self, handle: Any) -> bool:
        return True


class FloatingIPPortForward(NeutronExtResource):
    """A port forwarding of ``floating_ip`` to ``internal_port``'s ``internal_ip_address``."""

    type_name = "OS::Neutron::FloatingIPPortForward"
    support_status = sch.FLOATING_IP_PORT_FORWARD_SUPPORT
    properties_schema = sch.FLOATING_IP_PORT_FORWARD_PROPERTIES
    attributes_schema = sch.FLOATING_IP_PORT_FORWARD_ATTRIBUTES
    path, key, extension = "/floatingips/{parent}/port_forwardings", "port_forwarding", "floating-ip-port-forwarding"
    renames = {"internal_port": "internal_port_id", "internal_port_number": "internal_port"}
    lookups = {"internal_port": "neutron.port"}
    omit = frozenset({"floating_ip"})

    def parent(self) -> str | None:
        return str(self.properties["floating_ip"])


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (Trunk, SubnetPool, AddressScope, Segment, RBACPolicy, Quota,
                                           ExtraRoute, ExtraRouteSet, FloatingIPPortForward)
    return {cls.type_name: cls for cls in classes}
