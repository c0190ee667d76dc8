"""Heat's HIDDEN resource types (Heat 27, ``support_status=support.HIDDEN``): names Heat no
longer lists (``GET /resource_types`` leaves them out, ``GET /resource_types/<type>`` is a
"Not supported" error) but still accepts in templates, registered here through
:func:`hidden_resource_mapping`.

More in docs/code/resource_types.md (app.resource_types.hidden).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import is_not_found
from app.resource_types import schema as s
from app.resource_types._cloud import CloudResource
from app.resource_types._dependencies import StackView, ref_of
from app.resource_types.aws import first_port
from app.resource_types.base import Resource
from app.resource_types.heat import NoneResource


def _hidden(version: str, message: str, deprecated: str | None = None) -> dict[str, Any]:
    previous = s.support_status(deprecated, status="DEPRECATED") if deprecated else None
    return s.support_status(version, status="HIDDEN", message=message, previous_status=previous)


_RETIRED = "{} was retired; this type is a placeholder that creates nothing."
_LBAAS = "Neutron LBaaS was removed; use the OS::Octavia::* types instead."
#: placeholder type -> (version hidden, message, version deprecated)
PLACEHOLDERS: dict[str, tuple[str, str, str | None]] = {
    "OS::Aodh::CombinationAlarm": ("9.0.0", "Aodh removed combination alarms; use "
                                   "OS::Aodh::CompositeAlarm instead.", "7.0.0"),
    "OS::Glance::Image": ("22.0.0", "Use OS::Glance::WebImage instead.", "8.0.0"),
    "OS::Heat::HARestarter": ("10.0.0", "Removed; use a stack update with a resource marked "
                              "unhealthy instead.", "2015.1"),
    "OS::Monasca::AlarmDefinition": ("25.0.0", _RETIRED.format("Monasca"), "22.0.0"),
    "OS::Monasca::Notification": ("25.0.0", _RETIRED.format("Monasca"), "22.0.0"),
    "OS::Vitrage::Template": ("27.0.0", _RETIRED.format("Vitrage"), "26.0.0"),
    **{f"OS::Neutron::{n}": ("9.0.0", _LBAAS, "7.0.0")
       for n in ("LoadBalancer", "Pool", "PoolMember", "HealthMonitor")},
    **{f"OS::Neutron::LBaaS::{n}": ("21.0.0", _LBAAS, None)
       for n in ("LoadBalancer", "Listener", "Pool", "PoolMember", "HealthMonitor", "L7Policy",
                 "L7Rule")},
    **{f"OS::Sahara::{n}": ("23.0.0", _RETIRED.format("Sahara"), "22.0.0")
       for n in ("Cluster", "ClusterTemplate", "NodeGroupTemplate", "DataSource",
                 "ImageRegistry", "Job", "JobBinary")},
    **{f"OS::Senlin::{n}": ("23.0.0", _RETIRED.format("Senlin"), "22.0.0")
       for n in ("Cluster", "Node", "Policy", "Profile", "Receiver")},
}


def _placeholder(type_name: str) -> type[Resource]:
    version, message, deprecated = PLACEHOLDERS[type_name]
    cls = type(type_name.replace("::", "_"), (NoneResource,), {
        "type_name": type_name, "support_status": _hidden(version, message, deprecated),
        "__doc__": f"{type_name}: a placeholder (Heat's NoneResource). {message}",
        "__module__": __name__})
    return cls


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except errors.CloudError as exc:
        if not is_not_found(exc):
            raise
        return None


class RouterGateway(CloudResource):
    """The external network ``network`` as the gateway of router ``router_id``."""

    type_name = "OS::Neutron::RouterGateway"
    support_status = _hidden("5.0.0", "Use the external_gateway_info property of "
                             "OS::Neutron::Router instead.", "2014.1")
    properties_schema: ClassVar[dict[str, Any]] = {
        "router_id": s.prop("string", "ID of the router.", required=True,
                            constraints=[s.custom_constraint("neutron.router")]),
        "network": s.prop("string", "The external network of the gateway.",
                          constraints=[s.custom_constraint("neutron.network")]),
    }
    hidden_properties: ClassVar[dict[str, str]] = {"network_id": "network"}

    @classmethod
    def implicit_requirements(cls, name: str, view: StackView) -> set[str]:
        """Heat's add_dependencies: the interfaces on the same router, the subnets of the
        same network."""
        router = ref_of(view.prop(name, "router_id"))
        network = ref_of(view.prop(name, "network", "network_id"))
        out = {i for i in view.of_type("OS::Neutron::RouterInterface")
               if router is not None and ref_of(view.prop(i, "router", "router_id")) == router}
        out |= {sn for sn in view.of_type("OS::Neutron::Subnet")
                if network is not None and ref_of(view.prop(sn, "network", "network_id")) == network}
        return out

    def handle_create(self) -> None:
        router = str(self.resolve("neutron.router", self.properties["router_id"]))
        network = self.resolve("neutron.network", self.properties.get("network"))
        self.cloud().network.update_router(router,
                                           external_gateway_info={"network_id": network})
        self.resource_id = f"{router}:{network}"

    def handle_delete(self) -> None:
        if not self.resource_id:
            return
        router = self.resource_id.split(":")[0]
        _quiet(self.cloud().network.update_router, router, external_gateway_info={})

    def show_resource(self) -> dict[str, Any] | None:
        return None


class NovaFloatingIP(CloudResource):
    """A floating IP from ``pool`` (an external network)."""

    type_name = "OS::Nova::FloatingIP"
    support_status = _hidden("11.0.0", "Use OS::Neutron::FloatingIP instead.", "9.0.0")
    properties_schema: ClassVar[dict[str, Any]] = {
        "pool": s.prop("string", "External network to allocate the address from."),
    }
    attributes_schema: ClassVar[dict[str, Any]] = {
        "pool": s.attr("ID of the network the address was allocated from.", "string"),
        "ip": s.attr("The allocated address.", "string"),
    }

    def handle_create(self) -> None:
        net = self.cloud().network
        if self.properties.get("pool"):
            network = str(self.resolve("neutron.network", self.properties["pool"]))
        else:
            found = list(net.networks(**{"router:external": True}))
            if len(found) != 1:
                raise errors.StokerError(f"Expected 1 external network, found {len(found)}")
            network = str(found[0].id)
        self.resource_id = str(net.create_ip(floating_network_id=network).id)

    def _fetch(self) -> Any:
        return self.cloud().network.get_ip(self.resource_id)

    def _delete(self) -> None:
        self.cloud().network.delete_ip(self.resource_id, ignore_missing=False)

    def _resolve_attribute(self, name: str) -> Any:
        shown = self.show_resource() or {}
        key = {"pool": "floating_network_id", "ip": "floating_ip_address"}.get(name)
        value = shown.get(key) if key else None
        return None if value is None else str(value)


class NovaFloatingIPAssociation(CloudResource):
    """Floating IP ``floating_ip`` on the first port of ``server_id``."""

    type_name = "OS::Nova::FloatingIPAssociation"
    support_status = _hidden("11.0.0", "Use OS::Neutron::FloatingIPAssociation instead.",
                             "9.0.0")
    properties_schema: ClassVar[dict[str, Any]] = {
        "server_id": s.prop("string", "Server the address goes to.", required=True,
                            update_allowed=True,
                            constraints=[s.custom_constraint("nova.server")]),
        "floating_ip": s.prop("string", "ID of the floating IP.", required=True,
                              update_allowed=True),
    }

    def _associate(self) -> None:
        server = str(self.resolve("nova.server", self.properties["server_id"]))
        port = self.cloud().network.get_port(first_port(self, server))
        fixed = next((ip["ip_address"] for ip in port.fixed_ips or []
                      if ":" not in str(ip.get("ip_address"))), None)
        self.cloud().network.update_ip(self.properties["floating_ip"], port_id=port.id,
                                       fixed_ip_address=fixed)

    def handle_create(self) -> None:
        self._associate()
        self.resource_id = self.physical_resource_name()

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """A changed address is dissociated first; the (new) address is then associated."""
        self.check_replace(changed, new_properties)
        if "floating_ip" in changed:
            self.handle_delete()
        self.properties = dict(new_properties)
        if changed:
            self._associate()

    def handle_delete(self) -> None:
        if not self.resource_id:
            return
        _quiet(self.cloud().network.update_ip, self.properties["floating_ip"], port_id=None,
               fixed_ip_address=None)

    def show_resource(self) -> dict[str, Any] | None:
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    """No listed type here (every one is hidden)."""
    return {}


def hidden_resource_mapping() -> dict[str, type[Resource]]:
    """Heat's HIDDEN types, for :mod:`app.resource_types.registry`."""
    out = {name: _placeholder(name) for name in PLACEHOLDERS}
    out.update({cls.type_name: cls for cls in (RouterGateway, NovaFloatingIP,
                                               NovaFloatingIPAssociation)})
    return out
