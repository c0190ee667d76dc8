"""Heat's implicit dependencies (``add_dependencies``) of the Neutron L3 types, on the template:
a FloatingIP waits for the RouterInterface on its port's subnet and for a router whose gateway is
its floating network; a FloatingIPAssociation for the RouterInterface on its port's first fixed
IP's subnet (heat/engine/resources/openstack/neutron/floatingip.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.resource_types import registry


@dataclass
class Definition:
    implementation: str
    properties: dict[str, Any] = field(default_factory=dict)


def R(name: str) -> dict[str, str]:
    return {"get_resource": name}


def graph(resources: dict[str, Definition]) -> dict[str, frozenset[str]]:
    """The explicit graph: what each resource's properties reference."""
    def refs(value: Any) -> set[str]:
        if isinstance(value, dict):
            if set(value) == {"get_resource"}:
                return {value["get_resource"]}
            return set().union(*(refs(v) for v in value.values())) if value else set()
        if isinstance(value, list):
            return set().union(*(refs(v) for v in value)) if value else set()
        return set()
    return {n: frozenset(refs(d.properties)) for n, d in resources.items()}


def implicit(resources: dict[str, Definition]) -> dict[str, set[str]]:
    explicit = graph(resources)
    full = registry.implicit_dependencies(resources, explicit)
    return {n: set(full[n] - explicit[n]) for n in full if full[n] - explicit[n]}


BASE = {
    "net": Definition("OS::Neutron::Net"),
    "sub": Definition("OS::Neutron::Subnet", {"network": R("net"), "cidr": "10.0.0.0/24"}),
    "router": Definition("OS::Neutron::Router", {"external_gateway_info": {"network": "public"}}),
    "iface": Definition("OS::Neutron::RouterInterface", {"router": R("router"), "subnet": R("sub")}),
}


def test_floating_ip_waits_for_the_interface_on_its_ports_subnet_and_the_gateway_router() -> None:
    res = {**BASE,
           "port": Definition("OS::Neutron::Port", {"network": R("net"),
                                                    "fixed_ips": [{"subnet": R("sub")}]}),
           "fip": Definition("OS::Neutron::FloatingIP", {"floating_network": "public",
                                                         "port_id": R("port")})}
    assert implicit(res) == {"fip": {"iface", "router"}}


def test_a_port_without_fixed_ips_matches_the_subnets_of_its_network() -> None:
    res = {**BASE,
           "other": Definition("OS::Neutron::Net"),
           "port": Definition("OS::Neutron::Port", {"network_id": R("net")}),
           "port2": Definition("OS::Neutron::Port", {"network": R("other")}),
           "fip": Definition("OS::Neutron::FloatingIP", {"floating_network": "ext",
                                                         "port_id": R("port")}),
           "fip2": Definition("OS::Neutron::FloatingIP", {"floating_network": "ext",
                                                          "port_id": R("port2")})}
    # Heat's Port.add_dependencies: a port waits for the subnets of its network
    assert implicit(res) == {"fip": {"iface"}, "port": {"sub"}}


def test_an_interface_on_another_subnet_or_a_router_on_another_network_is_not_waited_for() -> None:
    res = {**BASE,
           "sub2": Definition("OS::Neutron::Subnet", {"network": R("net"), "cidr": "10.1.0.0/24"}),
           "port": Definition("OS::Neutron::Port", {"network": R("net"),
                                                    "fixed_ips": [{"subnet_id": R("sub2")}]}),
           "fip": Definition("OS::Neutron::FloatingIP", {"floating_network_id": "other-ext",
                                                         "port_id": R("port")})}
    assert implicit(res) == {"port": {"sub"}}   # every subnet of its network, as Heat's Port


def test_floating_ip_association_waits_for_the_interface_on_its_ports_first_subnet() -> None:
    res = {**BASE,
           "fip": Definition("OS::Neutron::FloatingIP", {"floating_network": "elsewhere"}),
           "port": Definition("OS::Neutron::Port", {"network": R("net"),
                                                    "fixed_ips": [{"subnet": R("sub")}]}),
           "bare": Definition("OS::Neutron::Port", {"network": R("net")}),
           "assoc": Definition("OS::Neutron::FloatingIPAssociation",
                               {"floatingip_id": R("fip"), "port_id": R("port")}),
           "assoc2": Definition("OS::Neutron::FloatingIPAssociation",
                                {"floatingip_id": R("fip"), "port_id": R("bare")})}
    assert implicit(res) == {"assoc": {"iface"}, "bare": {"sub"}}


def test_an_implicit_edge_that_would_close_a_cycle_is_left_out() -> None:
    res = {**BASE,
           "port": Definition("OS::Neutron::Port", {"network": R("net"),
                                                    "fixed_ips": [{"subnet": R("sub")}]}),
           "fip": Definition("OS::Neutron::FloatingIP", {"floating_network": "public",
                                                         "port_id": R("port")})}
    res["router"] = Definition("OS::Neutron::Router", {"external_gateway_info": {"network": "public"},
                                                       "value_specs": {"x": R("fip")}})
    assert implicit(res) == {}       # iface -> router -> fip: neither edge is added


def test_types_without_rules_keep_the_explicit_graph() -> None:
    res = {"a": Definition("OS::Heat::None"), "b": Definition("OS::Heat::None", {"x": R("a")}),
           "c": Definition("My::Provider::Type", {"y": R("b")})}
    assert registry.implicit_dependencies(res, graph(res)) == graph(res)


def test_a_port_and_a_server_wait_for_the_subnets_of_their_networks_as_heats() -> None:
    """Heat's Port.add_dependencies and Server.add_dependencies: Neutron picks the subnet, so
    every subnet of the network exists first; a server entry that names no network (a port
    only) waits for every subnet; a subnet that names no network is waited for by every server
    with networks."""
    res = {"net": Definition("OS::Neutron::Net"), "other": Definition("OS::Neutron::Net"),
           "a": Definition("OS::Neutron::Subnet", {"network": R("net"), "cidr": "10.0.0.0/24"}),
           "b": Definition("OS::Neutron::Subnet", {"network_id": R("net"), "cidr": "10.1.0.0/24"}),
           "c": Definition("OS::Neutron::Subnet", {"network": R("other"), "cidr": "10.2.0.0/24"}),
           "p": Definition("OS::Neutron::Port", {"network": R("net")}),
           "on_net": Definition("OS::Nova::Server", {"networks": [{"network": R("net")}]}),
           "on_port": Definition("OS::Nova::Server", {"networks": [{"port": R("p")}]}),
           "none": Definition("OS::Nova::Server", {"image": "cirros"})}
    assert implicit(res) == {"p": {"a", "b"}, "on_net": {"a", "b"}, "on_port": {"a", "b", "c"}}
    res["d"] = Definition("OS::Neutron::Subnet", {"cidr": "10.3.0.0/24", "subnetpool": "x"})
    assert implicit(res)["on_net"] == {"a", "b", "d"}
