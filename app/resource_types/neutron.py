"""Neutron resource types, core: Net, ProviderNet, Subnet and Port, with the base class
the other Neutron modules share (``neutron_l3``: routers and floating IPs; ``neutron_sg``:
security groups).

Behaviour follows Heat 27 (``heat/engine/resources/openstack/neutron/``): names default to the
physical resource name, names-or-ids are resolved to ids before the call, ``value_specs`` are
merged into the request body, ``tags`` are set after the create; updates send what differs
between the requests for the old and the new properties. Nets and ports are complete once
Neutron reports them built (``ACTIVE``, or ``DOWN`` for a port); ``ERROR`` fails with Heat's
``ResourceInError``. Schemas equal ``resource_types.json`` (see ``_schemas.neutron``).
Reference ids: the Neutron ids.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import intent, status
from app.resource_types import _dependencies
from app.resource_types._cloud import CloudResource, in_error, plain
from app.resource_types._schemas import neutron as sch
from app.resource_types.base import Resource

#: Collections whose adoption lookup reads the list by name without SDK objects.
_BY_NAME = {"network": status.NETWORK, "subnet": status.SUBNET, "port": status.PORT}
#: The SDK's noun -> (the API's collection path, its list's body key), for the intent marker
_LISTS = {"network": ("networks", "networks"), "subnet": ("subnets", "subnets"),
          "port": ("ports", "ports"), "router": ("routers", "routers"),
          "security_group": ("security-groups", "security_groups"),
          "ip": ("floatingips", "floatingips")}


class NeutronResource(CloudResource):
    """Shared behaviour: ``collection`` is the SDK's noun (``network``, ``subnet``...)."""

    broken_statuses: ClassVar[frozenset[str]] = frozenset({"ERROR"})  # Heat's NeutronResource

    collection: ClassVar[str] = ""
    #: properties whose removal (or empty value) on update is sent as this value, clearing the
    #: object's field as Heat's ``handle_update`` does (its ``prop_diff`` holds ``None``).
    cleared: ClassVar[dict[str, Any]] = {}
    #: statuses meaning "built" (Heat's ``NeutronResource.is_built``); empty: complete at once.
    built: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "status_kind" not in cls.__dict__:   # polls and deletes without SDK objects
            cls.status_kind = _BY_NAME.get(cls.collection)

    def _fetch(self) -> Any:
        return getattr(self.cloud().network, f"get_{self.collection}")(self.resource_id)

    def _delete(self) -> None:
        if self.status_kind is not None:
            self.delete_by_id()
            return
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
        diff.update({k: empty for k, empty in self.cleared.items()
                     if k in changed and not new_properties.get(k)})
        if diff:
            getattr(self.cloud().network, f"update_{self.collection}")(self.resource_id, **diff)
        if "tags" in changed:
            self.cloud().network.set_tags(self._fetch(), list(self.properties.get("tags") or []))
        self.refresh()

    def _create(self, attrs: dict[str, Any]) -> Any:
        """POST ``attrs`` (with the intent marker: :meth:`marker_tags`), after adopting what an
        earlier try made (:meth:`adopt`); a transient error of the POST is retried only after
        that lookup (:meth:`app.clients.retry.Cloud.create`)."""
        net = self.cloud().network
        finder = _BY_NAME.get(self.collection) or getattr(net, f"find_{self.collection}", None)
        if "name" not in attrs:
            finder = None    # nameless (a floating IP): its marker alone tells it apart
        get = getattr(net, f"get_{self.collection}")
        if self.adopt(finder):
            return get(self.resource_id)
        marker = self.marker_tags()
        if marker:
            attrs = {**attrs, "tags": marker}
        obj = getattr(net, f"create_{self.collection}")(find=self.lookup(finder, get), **attrs)
        self.resource_id = obj.id
        self._shown = plain(obj)
        tags = self.properties.get("tags")
        if tags:
            self.cloud().network.set_tags(obj, list(tags))
            self._shown = None
        return obj

    def marker_tags(self) -> list[str]:
        """``[intent tag]`` when what this create makes needs a marker (a user-given name, or
        no name at all) and Neutron takes tags in this collection's create; else ``[]``."""
        listing = _LISTS.get(self.collection)
        if listing is None or not self.uuid or self.stack is None:
            return []
        if "name" in self.properties_schema and not self.properties.get("name"):
            return []    # Heat's physical name tells it apart
        if not intent.neutron_takes_tags(self.cloud(), listing[0]):
            return []
        return [intent.tag(self.uuid)]

    def marked(self) -> bool:
        return bool(self.marker_tags())

    def find_marked(self) -> str | None:
        """The object an earlier try made with this resource's intent tag (and its name)."""
        if not self.marked():
            return None
        path, key = _LISTS[self.collection]
        name = self.properties.get("name") if "name" in self.properties_schema else None
        return intent.find_neutron(self.cloud(), path, key, str(name) if name else None,
                                   str(self.uuid))

    def check_create_complete(self, handle: Any) -> bool:
        if not self.built:
            return True
        shown = self.polled() or {}
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
    hidden_properties: ClassVar[dict[str, str]] = {"network_id": "network"}
    collection = "subnet"
    #: Heat's Subnet.handle_update: removed pools are ``[]``; a removed or null gateway is ``None``.
    cleared: ClassVar[dict[str, Any]] = {"allocation_pools": [], "gateway_ip": None}

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's Subnet.validate: ``subnetpool`` or ``cidr``
        (one of them), ``prefixlen`` only without ``cidr``."""
        p = self.properties
        pool, cidr, prefixlen = p.get("subnetpool"), p.get("cidr"), p.get("prefixlen")
        if pool is not None and cidr:
            raise errors.ValidationError(
                "Cannot define the following properties at the same time: subnetpool, cidr.")
        if pool is None and not cidr:
            raise errors.ValidationError(
                "At least one of the following properties must be specified: subnetpool, cidr.")
        if prefixlen and cidr:
            raise errors.ValidationError(
                "Cannot define the following properties at the same time: prefixlen, cidr.")
        super().validate()

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


# ---- ports --------------------------------------------------------------------------------------
class Port(NeutronResource):
    """A port on ``network``; ``fixed_ips`` subnets and ``security_groups`` names resolved."""

    type_name = "OS::Neutron::Port"
    support_status = sch.PORT_SUPPORT
    properties_schema = sch.PORT_PROPERTIES
    attributes_schema = sch.PORT_ATTRIBUTES
    hidden_properties: ClassVar[dict[str, str]] = {"network_id": "network"}
    collection = "port"
    built = ("ACTIVE", "DOWN")

    @classmethod
    def implicit_requirements(cls, name: str, view: Any) -> set[str]:
        """Heat's ``Port.add_dependencies``: the subnets of the port's network."""
        return _dependencies.subnets_of_network(view, view.prop(name, "network", "network_id"))

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

    def prepare_for_replace(self) -> Any:
        """Heat's Port ``prepare_for_replace``: before the replacement is created, this port's
        fixed IPs are released (``fixed_ips: []``, the old ones kept in ``data["port_fip"]``)
        so that the replacement can take the same addresses (a changed ``mac_address``, which
        Neutron does not update in place for Heat, keeps the port's IP)."""
        if not self.resource_id or self.type_name != "OS::Neutron::Port":
            return None
        shown = self.show_resource()
        if shown is None:
            return None
        self.data["port_fip"] = list(shown.get("fixed_ips") or [])
        self.cloud().network.update_port(self.resource_id, fixed_ips=[])
        self._shown = None
        return None

    def drift_view(self) -> dict[str, Any] | None:
        """``show`` for drift detection: Neutron answers subnets and security groups by id,
        so each name the properties give is added to the live entry it resolves to."""
        shown = self.show_resource()
        if shown is None:
            return None
        subnets = self._names("neutron.subnet", [ip.get("subnet") or ip.get("subnet_id")
                                                 for ip in self.properties.get("fixed_ips") or []
                                                 if isinstance(ip, dict)])
        groups = self._names("neutron.security_group", self.properties.get("security_groups"))
        return {**shown, "fixed_ips": [
            {**ip, **({"subnet_name": subnets[ip.get("subnet_id")]}
                      if ip.get("subnet_id") in subnets else {})}
            for ip in shown.get("fixed_ips") or []],
            "security_groups": [{"id": g, **({"name": groups[g]} if g in groups else {})}
                                for g in shown.get("security_groups") or []]}

    def _names(self, kind: str, given: Any) -> dict[str, str]:
        """``{id: name}`` for each of ``given`` (names or ids) that resolves."""
        out: dict[str, str] = {}
        for name in given or []:
            if not name:
                continue
            try:
                out[str(self.resolve(kind, name))] = str(name)
            except errors.StokerError:
                pass   # a name that no longer resolves: reported as a difference
        return out

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


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (Net, ProviderNet, Subnet, Port)
    return {cls.type_name: cls for cls in classes}
