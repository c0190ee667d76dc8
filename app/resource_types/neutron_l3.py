"""Neutron L3 resource types: Router, RouterInterface, FloatingIP, FloatingIPAssociation
(Heat 27, ``heat/engine/resources/openstack/neutron/{router,floatingip}.py``).

Reference ids: the Neutron ids; RouterInterface ``"<router>:subnet_id=<id>"`` (or
``port_id=``) as Heat; FloatingIPAssociation the resource's uuid (Heat: its database id).
Implicit dependencies as Heat's ``add_dependencies``: a FloatingIP waits for the router whose
gateway is its floating network and for the RouterInterface on its port's subnet; a
FloatingIPAssociation for the RouterInterface on its port's subnet. So Neutron's 404 "External
network ... is not reachable from subnet ..." means what it says (no route will come) and fails
the resource at once with Neutron's message, as in Heat.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import cloud_error
from app.resource_types._cloud import CloudResource
from app.resource_types._dependencies import StackView, ref_of
from app.resource_types._schemas import neutron_l3 as sch_l3
from app.resource_types.base import Resource
from app.resource_types.neutron import NeutronResource


# ---- routers ------------------------------------------------------------------------------------
class Router(NeutronResource):
    """A router, with an optional external gateway (``network`` resolved, fixed IPs' subnets
    resolved); ``l3_agent_ids`` (admin scheduling) is not applied."""

    type_name = "OS::Neutron::Router"
    support_status = sch_l3.ROUTER_SUPPORT
    properties_schema = sch_l3.ROUTER_PROPERTIES
    attributes_schema = sch_l3.ROUTER_ATTRIBUTES
    collection = "router"
    built = ("ACTIVE",)

    def create_attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "admin_state_up": self.get_property("admin_state_up")}
        for key in ("distributed", "ha", "availability_zone_hints"):
            if p.get(key) is not None:
                attrs[key] = p[key]
        gateway = p.get("external_gateway_info")
        if gateway:
            info: dict[str, Any] = {"network_id": self.resolve("neutron.network",
                                                               gateway.get("network"))}
            if gateway.get("enable_snat") is not None:
                info["enable_snat"] = gateway["enable_snat"]
            fixed = []
            for ip in gateway.get("external_fixed_ips") or []:
                entry = {}
                if ip.get("subnet"):
                    entry["subnet_id"] = self.resolve("neutron.subnet", ip["subnet"])
                if ip.get("ip_address"):
                    entry["ip_address"] = ip["ip_address"]
                fixed.append(entry)
            if fixed:
                info["external_fixed_ips"] = fixed
            attrs["external_gateway_info"] = info
        return self.value_specs(self.project(attrs))


class RouterInterface(NeutronResource):
    """Plugs ``subnet`` (or ``port``) into ``router``. Reference id ``"<router>:<key>=<id>"``."""

    type_name = "OS::Neutron::RouterInterface"
    support_status = sch_l3.ROUTER_INTERFACE_SUPPORT
    properties_schema = sch_l3.ROUTER_INTERFACE_PROPERTIES
    attributes_schema = sch_l3.ROUTER_INTERFACE_ATTRIBUTES
    hidden_properties: ClassVar[dict[str, str]] = {"router_id": "router", "subnet_id": "subnet", "port_id": "port"}

    def validate(self) -> None:
        """:raises errors.ValidationError: neither or both of ``subnet`` and ``port`` (Heat)."""
        if bool(self.properties.get("subnet")) == bool(self.properties.get("port")):
            raise errors.ValidationError(
                'Exactly one of the properties "subnet" or "port" must be provided'
                f" (resources.{self.name}).")
        super().validate()

    def handle_create(self) -> None:
        p = self.properties
        router = self.resolve("neutron.router", p.get("router"))
        if p.get("subnet"):
            key, value = "subnet_id", self.resolve("neutron.subnet", p["subnet"])
        else:
            key, value = "port_id", self.resolve("neutron.port", p["port"])
        self.cloud().network.add_interface_to_router(router, **{key: value})
        self.resource_id = f"{router}:{key}={value}"

    def _parts(self) -> tuple[str, str, str]:
        tokens = str(self.resource_id).replace("=", ":").split(":")
        if len(tokens) == 2:
            tokens.insert(1, "subnet_id")
        return tokens[0], tokens[1], tokens[2]

    def _delete(self) -> None:
        router, key, value = self._parts()
        self.cloud().network.remove_interface_from_router(router, **{key: value})

    def _fetch(self) -> Any:
        router, key, value = self._parts()
        ports = self.cloud().network.ports(device_id=router)
        for port in ports:
            if key == "port_id" and port.id == value:
                return port
            if key == "subnet_id" and any(ip.get("subnet_id") == value
                                          for ip in port.fixed_ips or []):
                return port
        raise cloud_error(f"Router {router} has no interface on {value}", 404)

    def show_resource(self) -> dict[str, Any] | None:
        """Heat has no entity to show for an interface."""
        return None


# ---- floating IPs -------------------------------------------------------------------------------
class FloatingIP(NeutronResource):
    """A floating IP from ``floating_network`` (optionally a subnet / address), optionally
    associated with ``port_id`` at once."""

    type_name = "OS::Neutron::FloatingIP"
    support_status = sch_l3.FLOATING_IP_SUPPORT
    properties_schema = sch_l3.FLOATING_IP_PROPERTIES
    attributes_schema = sch_l3.FLOATING_IP_ATTRIBUTES
    hidden_properties: ClassVar[dict[str, str]] = {"floating_network_id": "floating_network"}
    collection = "ip"
    attribute_keys: ClassVar[dict[str, str]] = {}

    @classmethod
    def implicit_requirements(cls, name: str, view: StackView) -> set[str]:
        """Heat's ``FloatingIP.add_dependencies``: the routers whose gateway network is this
        floating network (and the OS::Neutron::RouterGateway resources of that network), and the
        interfaces on the subnet of the port it is given."""
        out = _interfaces_for(view, name, by_network=True)
        floating = ref_of(view.prop(name, "floating_network", "floating_network_id"))
        for router in view.of_type(Router.type_name):
            gateway = view.prop(router, "external_gateway_info")
            if isinstance(gateway, Mapping) and floating is not None \
                    and ref_of(gateway.get("network")) == floating:
                out.add(router)
        for gateway_name in view.of_type("OS::Neutron::RouterGateway"):   # Heat's hidden type
            if floating is not None and ref_of(
                    view.prop(gateway_name, "network", "network_id")) == floating:
                out.add(gateway_name)
        return out

    def handle_create(self) -> None:
        p = self.properties
        attrs: dict[str, Any] = {
            "floating_network_id": self.resolve("neutron.network", p.get("floating_network"))}
        if p.get("floating_subnet"):
            attrs["subnet_id"] = self.resolve("neutron.subnet", p["floating_subnet"])
        for key in ("floating_ip_address", "fixed_ip_address", "dns_name", "dns_domain"):
            if p.get(key):
                attrs[key] = p[key]
        if p.get("port_id"):
            self.data["associate"] = {"port_id": self.resolve("neutron.port", p["port_id"])}
            if attrs.get("fixed_ip_address"):
                self.data["associate"]["fixed_ip_address"] = attrs.pop("fixed_ip_address")
        self._create(self.value_specs(attrs))

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``port_id`` / ``fixed_ip_address`` re-associate (waiting like the create), DNS
        fields are updated."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        p = self.properties
        dns = {k: p.get(k) or "" for k in ("dns_name", "dns_domain") if k in changed}
        if dns:
            self.cloud().network.update_ip(self.resource_id, **dns)
        if "port_id" in changed or "fixed_ip_address" in changed:
            body: dict[str, Any] = {"port_id": self.resolve("neutron.port", p.get("port_id"))}
            if body["port_id"] and p.get("fixed_ip_address"):
                body["fixed_ip_address"] = p["fixed_ip_address"]
            self.data["associate"] = body

    def check_update_complete(self, handle: Any) -> bool:
        return self.check_create_complete(handle)

    def check_create_complete(self, handle: Any) -> bool:
        """Associates ``port_id`` (the router interfaces it needs are created first: see
        :meth:`implicit_requirements`); Neutron's refusal fails the resource at once."""
        wanted = self.data.get("associate")
        if wanted:
            associate(self, self.resource_id, wanted)
        self.data.pop("associate", None)
        return True


def associate(res: CloudResource, fip_id: Any, body: dict[str, Any]) -> None:
    """Associate floating IP ``fip_id`` (``body``: ``port_id``, ``fixed_ip_address``).

    :raises errors.CloudError: as Neutron answers, at once (e.g. 404 "External network ... is not
        reachable from subnet ..." when no router joins the port's subnet to the network: the
        implicit dependencies already waited for the stack's own router interfaces).
    """
    res.cloud().network.update_ip(str(fip_id), **body)


# ---- implicit dependencies (Heat's add_dependencies) --------------------------------------------
PORT = "OS::Neutron::Port"
SUBNET = "OS::Neutron::Subnet"


def _interface_subnet(view: StackView, iface: str) -> str | None:
    return ref_of(view.prop(iface, "subnet", "subnet_id"))


def _first_fixed_subnet(view: StackView, port: str) -> tuple[bool, str | None]:
    """``(has fixed_ips, the first one's subnet)``: Heat compares the first entry only."""
    fixed = view.prop(port, "fixed_ips")
    if not isinstance(fixed, list) or not fixed:
        return False, None
    first = fixed[0] if isinstance(fixed[0], Mapping) else {}
    return True, ref_of(first.get("subnet") or first.get("subnet_id"))


def _interfaces_by_subnet(view: StackView) -> dict[str, list[str]]:
    """The stack's RouterInterfaces by the subnet they plug (canonical form), built once."""
    found: dict[str, list[str]] | None = view.memo.get(__name__)
    if found is None:
        found = {}
        for iface in view.of_type(RouterInterface.type_name):
            subnet = _interface_subnet(view, iface)
            if subnet is not None:
                found.setdefault(subnet, []).append(iface)
        view.memo[__name__] = found
    return found


def _interfaces_for(view: StackView, name: str, *, by_network: bool) -> set[str]:
    """Heat's ``port_on_subnet`` over the ports ``name`` requires: an interface whose subnet is
    the port's first fixed IP's subnet (Heat compares the first entry only); a port without
    fixed IPs (FloatingIP only, ``by_network``) matches, as Heat asks Neutron, the interfaces on
    a subnet of the port's network: a template subnet on the same network, or any subnet from
    outside the template (not knowable before create; waiting costs only order)."""
    by_subnet = _interfaces_by_subnet(view)
    out: set[str] = set()
    if not by_subnet:
        return out
    for port in view.requires[name]:
        if view.type_of(port) != PORT:
            continue
        has_fixed, first = _first_fixed_subnet(view, port)
        if has_fixed:
            out.update(by_subnet.get(first or "", ()))
            continue
        network = ref_of(view.prop(port, "network", "network_id")) if by_network else None
        if network is None:
            continue
        for subnet, ifaces in by_subnet.items():
            own = subnet.startswith("@") and view.type_of(subnet[1:]) == SUBNET
            if not own or ref_of(view.prop(subnet[1:], "network", "network_id")) == network:
                out.update(ifaces)
    return out


class FloatingIPAssociation(NeutronResource):
    """Associates ``floatingip_id`` with ``port_id`` (and ``fixed_ip_address``); delete
    disassociates (a floating IP already gone counts as done)."""

    type_name = "OS::Neutron::FloatingIPAssociation"
    support_status = sch_l3.FLOATING_IP_ASSOCIATION_SUPPORT
    properties_schema = sch_l3.FLOATING_IP_ASSOCIATION_PROPERTIES
    attributes_schema = sch_l3.FLOATING_IP_ASSOCIATION_ATTRIBUTES

    @classmethod
    def implicit_requirements(cls, name: str, view: StackView) -> set[str]:
        """Heat's ``FloatingIPAssociation.add_dependencies``: the interfaces on the subnet of
        its port's first fixed IP."""
        return _interfaces_for(view, name, by_network=False)

    def handle_create(self) -> None:
        p = self.properties
        fip = str(p["floatingip_id"])
        body: dict[str, Any] = {"port_id": self.resolve("neutron.port", p.get("port_id"))}
        if p.get("fixed_ip_address"):
            body["fixed_ip_address"] = p["fixed_ip_address"]
        self.data["floatingip_id"] = fip
        self.data["associate"] = body
        self.resource_id = self.uuid or f"{fip}:{body['port_id']}"

    def check_create_complete(self, handle: Any) -> bool:
        """Done once associated; Neutron's refusal fails the resource at once."""
        wanted = self.data.get("associate")
        if wanted:
            associate(self, self._fip(), wanted)
        self.data.pop("associate", None)
        return True

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Another floating IP: the old one is disassociated first; then (re)associate."""
        self.check_replace(changed, new_properties)
        if "floatingip_id" in changed and self.data.get("floatingip_id"):
            try:
                self.cloud().network.update_ip(self._fip(), port_id=None)
            except errors.CloudError as exc:
                if exc.status != 404:
                    raise
        self.properties = dict(new_properties)
        p = self.properties
        body: dict[str, Any] = {"port_id": self.resolve("neutron.port", p.get("port_id"))}
        if p.get("fixed_ip_address"):
            body["fixed_ip_address"] = p["fixed_ip_address"]
        self.data["floatingip_id"] = str(p["floatingip_id"])
        self.data["associate"] = body

    def check_update_complete(self, handle: Any) -> bool:
        return self.check_create_complete(handle)

    def _fip(self) -> str:
        return str(self.data.get("floatingip_id") or self.properties.get("floatingip_id"))

    def _fetch(self) -> Any:
        return self.cloud().network.get_ip(self._fip())

    def _delete(self) -> None:
        self.cloud().network.update_ip(self._fip(), port_id=None)

    def _gone(self) -> bool:
        return True

    def show_resource(self) -> dict[str, Any] | None:
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (Router, RouterInterface, FloatingIP,
                                           FloatingIPAssociation)
    return {cls.type_name: cls for cls in classes}
