"""Neutron resource types: Net, ProviderNet, Subnet, Router, RouterInterface, Port,
SecurityGroup, SecurityGroupRule, FloatingIP and FloatingIPAssociation.

Behaviour follows Heat 27 (``heat/engine/resources/openstack/neutron/``): names default to the
physical resource name, names-or-ids are resolved to ids before the call, ``value_specs`` are
merged into the request body, ``tags`` are set after the create. Nets, routers and ports are
complete once Neutron reports them built (``ACTIVE``, or ``DOWN`` for a port); ``ERROR`` fails
with Heat's ``ResourceInError``. Schemas equal ``resource_types.json`` (see ``_schemas.neutron``).

Reference ids: the Neutron id; RouterInterface ``"<router>:subnet_id=<id>"`` (or ``port_id=``)
as Heat; FloatingIPAssociation the resource's uuid (Heat: its database id).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import cloud_error
from app.resource_types._cloud import CloudResource, plain
from app.resource_types._schemas import neutron as sch
from app.resource_types.base import Resource


def in_error(status: str, reason: str = "Unknown") -> errors.StokerError:
    """Heat's ``ResourceInError``: ``Went to status ERROR due to "Unknown"``."""
    return errors.StokerError(f'Went to status {status} due to "{reason}"',
                              heat_type="ResourceInError")


class NeutronResource(CloudResource):
    """Shared behaviour: ``collection`` is the SDK's noun (``network``, ``subnet``...)."""

    collection: ClassVar[str] = ""
    #: statuses meaning "built" (Heat's ``NeutronResource.is_built``); empty: complete at once.
    built: ClassVar[tuple[str, ...]] = ()

    def _fetch(self) -> Any:
        return getattr(self.cloud().network, f"get_{self.collection}")(self.resource_id)

    def _delete(self) -> None:
        getattr(self.cloud().network, f"delete_{self.collection}")(self.resource_id)

    def create_attrs(self) -> dict[str, Any]:
        """The create request for the current properties (names resolved to ids)."""
        raise NotImplementedError

    def handle_create(self) -> None:
        self._create(self.create_attrs())

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """In place, as Heat's Neutron resources: the request for the new properties is compared
        with the one for the old, and what differs is sent (``update_<collection>``); ``tags``
        are set apart.

        :raises UpdateReplace: a changed property is not ``update_allowed``.
        """
        self.check_replace(changed, new_properties)
        before = self.create_attrs()
        self.properties = dict(new_properties)
        after = self.create_attrs()
        diff = {k: v for k, v in after.items() if before.get(k) != v}
        diff.update({k: None for k in before if k not in after and k.endswith("_id")})
        if diff:
            getattr(self.cloud().network, f"update_{self.collection}")(self.resource_id, **diff)
        if "tags" in changed:
            self.cloud().network.set_tags(self._fetch(), list(self.properties.get("tags") or []))
        self.refresh()

    def _create(self, attrs: dict[str, Any]) -> Any:
        net = self.cloud().network
        finder = getattr(net, f"find_{self.collection}", None)
        if "name" in attrs and finder is not None and self.adopt(finder):
            return getattr(net, f"get_{self.collection}")(self.resource_id)
        obj = getattr(net, f"create_{self.collection}")(**attrs)
        self.resource_id = obj.id
        self._shown = plain(obj)
        tags = self.properties.get("tags")
        if tags:
            self.cloud().network.set_tags(obj, list(tags))
            self._shown = None
        return obj

    def check_create_complete(self, handle: Any) -> bool:
        if not self.built:
            return True
        self.refresh()
        shown = self.show_resource() or {}
        status = str(shown.get("status", "")).upper()
        if status in self.built:
            return True
        if status == "ERROR":
            raise in_error(status)
        return False

    def project(self, attrs: dict[str, Any]) -> dict[str, Any]:
        tenant = self.properties.get("tenant_id")
        if tenant:
            attrs["tenant_id"] = tenant
        return attrs


# ---- networks -----------------------------------------------------------------------------------
class Net(NeutronResource):
    """A Neutron network (``dhcp_agent_ids`` is admin-only scheduling and is not applied)."""

    type_name = "OS::Neutron::Net"
    support_status = sch.NET_SUPPORT
    properties_schema = sch.NET_PROPERTIES
    attributes_schema = sch.NET_ATTRIBUTES
    collection = "network"
    built = ("ACTIVE", "DOWN")

    def create_attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "admin_state_up": self.get_property("admin_state_up"),
                                 "shared": self.get_property("shared")}
        for key in ("port_security_enabled", "dns_domain", "availability_zone_hints"):
            if p.get(key) is not None:
                attrs[key] = p[key]
        if p.get("qos_policy"):
            attrs["qos_policy_id"] = self.resolve("neutron.qos_policy", p["qos_policy"])
        return self.value_specs(self.project(attrs))


class ProviderNet(Net):
    """A provider network (admin): ``provider:*`` and ``router:external`` set at create."""

    type_name = "OS::Neutron::ProviderNet"
    support_status = sch.PROVIDER_NET_SUPPORT
    properties_schema = sch.PROVIDER_NET_PROPERTIES
    attributes_schema = sch.PROVIDER_NET_ATTRIBUTES

    def create_attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "admin_state_up": self.get_property("admin_state_up"),
                                 "shared": self.get_property("shared"),
                                 "router:external": self.get_property("router_external"),
                                 "provider:network_type": p.get("network_type")}
        if p.get("physical_network"):
            attrs["provider:physical_network"] = p["physical_network"]
        if p.get("segmentation_id") not in (None, ""):
            attrs["provider:segmentation_id"] = int(p["segmentation_id"])
        for key in ("port_security_enabled", "dns_domain", "availability_zone_hints"):
            if p.get(key) is not None:
                attrs[key] = p[key]
        return self.project(attrs)


class Subnet(NeutronResource):
    """A subnet of ``network``; ``gateway_ip: ''`` means no gateway (Heat's rule)."""

    type_name = "OS::Neutron::Subnet"
    support_status = sch.SUBNET_SUPPORT
    properties_schema = sch.SUBNET_PROPERTIES
    attributes_schema = sch.SUBNET_ATTRIBUTES
    collection = "subnet"

    def create_attrs(self) -> dict[str, Any]:
        p = self.properties
        attrs: dict[str, Any] = {
            "name": self.name_or_physical(),
            "network_id": self.resolve("neutron.network", p.get("network")),
            "ip_version": self.get_property("ip_version"),
            "enable_dhcp": self.get_property("enable_dhcp"),
            "dns_nameservers": self.get_property("dns_nameservers") or [],
        }
        for key in ("cidr", "allocation_pools", "host_routes", "ipv6_address_mode",
                    "ipv6_ra_mode", "prefixlen"):
            if p.get(key) is not None:
                attrs[key] = p[key]
        if "gateway_ip" in p and p["gateway_ip"] is not None:
            attrs["gateway_ip"] = p["gateway_ip"] or None
        if p.get("subnetpool"):
            attrs["subnetpool_id"] = self.resolve("neutron.subnetpool", p["subnetpool"])
        if p.get("segment"):
            attrs["segment_id"] = self.resolve("neutron.segment", p["segment"])
        return self.value_specs(self.project(attrs))


# ---- routers ------------------------------------------------------------------------------------
class Router(NeutronResource):
    """A router, with an optional external gateway (``network`` resolved, fixed IPs' subnets
    resolved); ``l3_agent_ids`` (admin scheduling) is not applied."""

    type_name = "OS::Neutron::Router"
    support_status = sch.ROUTER_SUPPORT
    properties_schema = sch.ROUTER_PROPERTIES
    attributes_schema = sch.ROUTER_ATTRIBUTES
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
    support_status = sch.ROUTER_INTERFACE_SUPPORT
    properties_schema = sch.ROUTER_INTERFACE_PROPERTIES
    attributes_schema = sch.ROUTER_INTERFACE_ATTRIBUTES

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


# ---- ports --------------------------------------------------------------------------------------
class Port(NeutronResource):
    """A port on ``network``; ``fixed_ips`` subnets and ``security_groups`` names resolved."""

    type_name = "OS::Neutron::Port"
    support_status = sch.PORT_SUPPORT
    properties_schema = sch.PORT_PROPERTIES
    attributes_schema = sch.PORT_ATTRIBUTES
    collection = "port"
    built = ("ACTIVE", "DOWN")

    def create_attrs(self) -> dict[str, Any]:
        return self.value_specs(self.port_attrs(self.properties, self.name_or_physical()))

    def port_attrs(self, p: dict[str, Any], name: str) -> dict[str, Any]:
        """The create body for port properties ``p`` (shared with the Server's implicit ports)."""
        attrs: dict[str, Any] = {"name": name,
                                 "network_id": self.resolve("neutron.network", p.get("network"))}
        for key in ("admin_state_up", "mac_address", "device_id", "device_owner", "dns_name",
                    "port_security_enabled", "propagate_uplink_status", "binding:vnic_type",
                    "allowed_address_pairs"):
            if p.get(key) not in (None, ""):
                attrs[key] = p[key]
        if p.get("no_fixed_ips"):
            attrs["fixed_ips"] = []
        elif p.get("fixed_ips"):
            attrs["fixed_ips"] = [self._fixed_ip(ip) for ip in p["fixed_ips"]]
        if p.get("security_groups") is not None:
            attrs["security_groups"] = [self.resolve("neutron.security_group", g)
                                        for g in p["security_groups"]]
        if p.get("qos_policy"):
            attrs["qos_policy_id"] = self.resolve("neutron.qos_policy", p["qos_policy"])
        return attrs

    def _fixed_ip(self, ip: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        subnet = ip.get("subnet") or ip.get("subnet_id")
        if subnet:
            out["subnet_id"] = self.resolve("neutron.subnet", subnet)
        if ip.get("ip_address"):
            out["ip_address"] = ip["ip_address"]
        return out

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource()
        if shown is None:
            return None
        if name == "network":
            return plain(self.cloud().network.get_network(shown["network_id"]))
        if name == "subnets":
            return [plain(self.cloud().network.get_subnet(ip["subnet_id"]))
                    for ip in shown.get("fixed_ips") or []]
        return shown.get(name)


# ---- security groups ----------------------------------------------------------------------------
def rule_body(rule: dict[str, Any], group_id: str, resolve: Any = None) -> dict[str, Any]:
    """A Neutron rule body from a Heat rule map (Heat's ``_format_rule``): ``remote_mode``
    ``remote_group_id`` with no group means this group; ``remote_ip_prefix`` drops the group."""
    body: dict[str, Any] = {"security_group_id": group_id,
                            "direction": rule.get("direction") or "ingress",
                            "ethertype": rule.get("ethertype") or "IPv4"}
    for key in ("port_range_min", "port_range_max", "protocol"):
        if rule.get(key) is not None:
            body[key] = rule[key]
    mode = rule.get("remote_mode") or "remote_ip_prefix"
    if mode == "remote_group_id":
        group = rule.get("remote_group_id") or group_id
        body["remote_group_id"] = resolve(group) if resolve else group
    elif rule.get("remote_ip_prefix"):
        body["remote_ip_prefix"] = rule["remote_ip_prefix"]
    return body


class SecurityGroup(NeutronResource):
    """A security group and its ``rules``; Neutron's default allow-all egress rules are removed
    when an egress rule is given (Heat's behaviour)."""

    type_name = "OS::Neutron::SecurityGroup"
    support_status = sch.SECURITY_GROUP_SUPPORT
    properties_schema = sch.SECURITY_GROUP_PROPERTIES
    attributes_schema = sch.SECURITY_GROUP_ATTRIBUTES
    collection = "security_group"

    def handle_create(self) -> None:
        attrs: dict[str, Any] = {"name": self.name_or_physical(),
                                 "description": self.properties.get("description") or ""}
        if self.properties.get("stateful") is not None:
            attrs["stateful"] = self.properties["stateful"]
        group = self._create(attrs)
        self.create_rules(group.id, self.get_property("rules") or [])

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``name`` / ``stateful`` updated; new ``rules`` replace all the group's rules (Neutron's
        default allow-all egress rules come back when no egress rule is given)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        net = self.cloud().network
        body: dict[str, Any] = {}
        if "name" in changed:
            body["name"] = self.name_or_physical()
        if "stateful" in changed:
            body["stateful"] = self.properties.get("stateful")
        if body:
            net.update_security_group(self.resource_id, **body)
        if "rules" in changed:
            self.replace_rules(list(self.get_property("rules") or []))
        self.refresh()

    def replace_rules(self, rules: list[dict[str, Any]]) -> None:
        """Delete every rule of the group and create ``rules`` (Heat rule maps); Neutron's
        default allow-all egress rules are put back when ``rules`` has no egress rule."""
        net = self.cloud().network
        for rule in net.security_group_rules(security_group_id=self.resource_id):
            net.delete_security_group_rule(rule.id, ignore_missing=True)
        if not any((r.get("direction") or "ingress") == "egress" for r in rules):
            rules = rules + [{"direction": "egress", "ethertype": e, "remote_ip_prefix": None}
                             for e in ("IPv4", "IPv6")]
        self.create_rules(str(self.resource_id), rules, keep_default_egress=True)

    def create_rules(self, group_id: str, rules: list[dict[str, Any]],
                     keep_default_egress: bool = False) -> None:
        """Create ``rules``; a rule that already exists (409) is fine, as in Heat."""
        net = self.cloud().network
        if not keep_default_egress and any((r.get("direction") or "ingress") == "egress"
                                           for r in rules):
            for existing in net.security_group_rules(security_group_id=group_id,
                                                     direction="egress"):
                net.delete_security_group_rule(existing.id, ignore_missing=True)
        for rule in rules:
            try:
                net.create_security_group_rule(**rule_body(rule, group_id))
            except errors.CloudError as exc:
                if exc.status != 409:
                    raise
        self.refresh()


class SecurityGroupRule(NeutronResource):
    """One rule of ``security_group`` (``remote_group`` resolved by name or id)."""

    type_name = "OS::Neutron::SecurityGroupRule"
    support_status = sch.SECURITY_GROUP_RULE_SUPPORT
    properties_schema = sch.SECURITY_GROUP_RULE_PROPERTIES
    attributes_schema = sch.SECURITY_GROUP_RULE_ATTRIBUTES
    collection = "security_group_rule"

    def handle_create(self) -> None:
        p = self.properties
        group = self.resolve("neutron.security_group", p.get("security_group"))
        body: dict[str, Any] = {"security_group_id": group,
                                "direction": self.get_property("direction"),
                                "ethertype": self.get_property("ethertype")}
        for key in ("port_range_min", "port_range_max", "remote_ip_prefix", "description"):
            if p.get(key) is not None:
                body[key] = p[key]
        protocol = self.get_property("protocol")
        if protocol is not None:
            body["protocol"] = protocol
        if p.get("remote_group"):
            body["remote_group_id"] = self.resolve("neutron.security_group", p["remote_group"])
        self._create(body)


# ---- floating IPs -------------------------------------------------------------------------------
class FloatingIP(NeutronResource):
    """A floating IP from ``floating_network`` (optionally a subnet / address), optionally
    associated with ``port_id`` at once."""

    type_name = "OS::Neutron::FloatingIP"
    support_status = sch.FLOATING_IP_SUPPORT
    properties_schema = sch.FLOATING_IP_PROPERTIES
    attributes_schema = sch.FLOATING_IP_ATTRIBUTES
    collection = "ip"
    attribute_keys: ClassVar[dict[str, str]] = {}

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
        """Associates ``port_id`` once its subnet is routed to the external network (Heat makes
        the floating IP depend on the router interface; here the association waits for it)."""
        wanted = self.data.get("associate")
        if wanted and not associate(self, self.resource_id, wanted):
            return False
        self.data.pop("associate", None)
        return True


#: Polls an association waits for its port's subnet to be routed to the external network.
UNREACHABLE_POLLS = 60


def associate(res: CloudResource, fip_id: Any, body: dict[str, Any]) -> bool:
    """Associate floating IP ``fip_id`` (``body``: ``port_id``, ``fixed_ip_address``); ``False``
    while Neutron says the external network is not reachable from the port's subnet (a router
    interface still being created), counted in ``res.data``.

    :raises errors.CloudError: any other error, or still unreachable after
        :data:`UNREACHABLE_POLLS` polls.
    """
    try:
        res.cloud().network.update_ip(str(fip_id), **body)
    except errors.CloudError as exc:
        if exc.status == 404 and "not reachable" in exc.message:
            waited = int(res.data.get("unreachable_polls", 0)) + 1
            res.data["unreachable_polls"] = waited
            if waited <= UNREACHABLE_POLLS:
                return False
        raise
    res.data.pop("unreachable_polls", None)
    return True


class FloatingIPAssociation(NeutronResource):
    """Associates ``floatingip_id`` with ``port_id`` (and ``fixed_ip_address``); delete
    disassociates (a floating IP already gone counts as done)."""

    type_name = "OS::Neutron::FloatingIPAssociation"
    support_status = sch.FLOATING_IP_ASSOCIATION_SUPPORT
    properties_schema = sch.FLOATING_IP_ASSOCIATION_PROPERTIES
    attributes_schema = sch.FLOATING_IP_ASSOCIATION_ATTRIBUTES

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
        """Done once associated (waiting, as FloatingIP does, for the port to be routable)."""
        wanted = self.data.get("associate")
        if wanted and not associate(self, self._fip(), wanted):
            return False
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
    classes: tuple[type[Resource], ...] = (Net, ProviderNet, Subnet, Router, RouterInterface,
                                           Port, SecurityGroup, SecurityGroupRule, FloatingIP,
                                           FloatingIPAssociation)
    return {cls.type_name: cls for cls in classes}
