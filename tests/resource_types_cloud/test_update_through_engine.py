"""each Nova and Neutron type through the whole engine on the sandbox — create, an
attribute through an output, an update of ``update_allowed`` properties (UPDATE_COMPLETE, same
physical resource, the change in the sandbox), a change of a property that is not
``update_allowed`` (a new physical resource, the old one gone from the sandbox), delete
(DELETE_COMPLETE, nothing left in the sandbox's inventory).

Property names and which are ``update_allowed`` come from ``heat-reference/resource_types.json``.
Cinder, Glance, Octavia, Aodh and AWS types are in ``test_update_through_engine_services``.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.resource_types_cloud.update_support import Case, by_field, by_id, check_case

NET = {"net": {"type": "OS::Neutron::Net"}}
SUBNET = {**NET, "subnet": {"type": "OS::Neutron::Subnet", "properties": {
    "network": {"get_resource": "net"}, "cidr": "10.70.0.0/24"}}}
ROUTED = {**SUBNET,
          "router": {"type": "OS::Neutron::Router",
                     "properties": {"external_gateway_info": {"network": "public"}}},
          "iface": {"type": "OS::Neutron::RouterInterface",
                    "properties": {"router": {"get_resource": "router"},
                                   "subnet": {"get_resource": "subnet"}}},
          "port": {"type": "OS::Neutron::Port", "depends_on": "iface",
                   "properties": {"network": {"get_resource": "net"}}},
          "port2": {"type": "OS::Neutron::Port", "depends_on": "iface", "properties": {
              "network": {"get_resource": "net"},
              "fixed_ips": [{"subnet": {"get_resource": "subnet"},
                             "ip_address": "10.70.0.50"}]}}}


def _rules(store: Any, sg: dict[str, Any]) -> set[tuple[Any, ...]]:
    return {(r["protocol"], r["port_range_min"]) for r in store.find(
        "security_group_rules", security_group_id=sg["id"]) if r["direction"] == "ingress"}


def _interface(store: Any, pid: str) -> dict[str, Any] | None:
    """The router port a RouterInterface (``"<router>:subnet_id=<subnet>"``) stands for."""
    router, _, subnet = pid.partition(":subnet_id=")
    for port in store.find("ports", device_id=router):
        if any(ip["subnet_id"] == subnet for ip in port.get("fixed_ips") or []):
            return dict(port)
    return None


def _associated(store: Any, pid: str) -> dict[str, Any] | None:
    """The floating IP an association (physical id: its own uuid) holds: the associated one."""
    found = [f for f in store.all("floatingips") if f.get("port_id")]
    return found[0] if found else None


CASES = [
    Case("OS::Nova::Server", find=by_id("servers"), attr="networks",
         attr_ok=lambda v: v["private"][0].startswith("10.0.0."),
         props={"image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}],
                "metadata": {"a": "1"}},
         allowed={"name": "renamed", "metadata": {"b": "2"}},
         seen=lambda _, o: o["name"] == "renamed" and o["metadata"] == {"b": "2"},
         replacing={"config_drive": True}),
    # KeyPair: no property is update_allowed, (a) is skipped
    Case("OS::Nova::KeyPair", find=by_field("keypairs", "name"), attr="public_key",
         attr_ok=lambda v: v.startswith("ssh-"),
         props={"name": "upd-key-1"}, replacing={"name": "upd-key-2"}),
    # ServerGroup: no property is update_allowed, (a) is skipped
    Case("OS::Nova::ServerGroup", find=by_id("server_groups"), attr="show",
         attr_ok=lambda v: bool(v["policies"]),
         props={"policies": ["anti-affinity"]}, replacing={"policies": ["affinity"]}),
    Case("OS::Nova::Flavor", find=by_id("flavors"), attr="extra_specs",
         attr_ok=lambda v: isinstance(v, dict),
         props={"ram": 64, "vcpus": 1, "extra_specs": {"a": "1"}},
         allowed={"extra_specs": {"b": "2"}}, seen=lambda _, o: o["extra_specs"] == {"b": "2"},
         attr_updated=lambda v: v == {"b": "2"},
         replacing={"ram": 128}),
    Case("OS::Neutron::Net", find=by_id("networks"), attr="name",
         attr_ok=lambda v: v.startswith("upd-net"),
         props={"name": "upd-net"}, allowed={"name": "upd-net-2", "admin_state_up": False},
         seen=lambda _, o: o["name"] == "upd-net-2" and o["admin_state_up"] is False,
         attr_updated=lambda v: v == "upd-net-2",
         replacing={"availability_zone_hints": ["nova"]}),
    Case("OS::Neutron::Subnet", find=by_id("subnets"), needs=NET, attr="cidr",
         attr_ok=lambda v: v.startswith("10.71."),
         props={"network": {"get_resource": "net"}, "cidr": "10.71.0.0/24"},
         allowed={"dns_nameservers": ["1.1.1.1"], "name": "sub2"},
         seen=lambda _, o: o["dns_nameservers"] == ["1.1.1.1"] and o["name"] == "sub2",
         replacing={"cidr": "10.71.1.0/24"}),
    Case("OS::Neutron::Router", find=by_id("routers"), attr="external_gateway_info",
         attr_ok=lambda v: bool(v["network_id"]),
         props={"external_gateway_info": {"network": "public"}},
         allowed={"name": "rtr2", "admin_state_up": False},
         seen=lambda _, o: o["name"] == "rtr2" and o["admin_state_up"] is False,
         replacing={"distributed": True}),
    # RouterInterface: no property is update_allowed, (a) is skipped; Heat shows nothing
    Case("OS::Neutron::RouterInterface", find=_interface, attr="show",
         attr_ok=lambda v: v is None,
         needs={**SUBNET, "subnet2": {"type": "OS::Neutron::Subnet", "properties": {
             "network": {"get_resource": "net"}, "cidr": "10.70.1.0/24"}},
             "router": {"type": "OS::Neutron::Router"}},
         props={"router": {"get_resource": "router"}, "subnet": {"get_resource": "subnet"}},
         replacing={"subnet": {"get_resource": "subnet2"}}),
    Case("OS::Neutron::FloatingIP", find=by_id("floatingips"), needs=ROUTED,
         attr="floating_ip_address", attr_ok=lambda v: v.startswith("172.24.4."),
         props={"floating_network": "public"}, allowed={"port_id": {"get_resource": "port2"}},
         seen=lambda _, o: o["fixed_ip_address"] == "10.70.0.50",
         # a fixed IP holds one floating IP: the replacement takes the other port
         replacing={"floating_ip_address": "172.24.4.200", "port_id": {"get_resource": "port"}}),
    # FloatingIPAssociation: every property is update_allowed, (b) is skipped
    Case("OS::Neutron::FloatingIPAssociation", find=_associated, attr="show",
         attr_ok=lambda v: v is None,
         needs={**ROUTED, "fip": {"type": "OS::Neutron::FloatingIP",
                                  "properties": {"floating_network": "public"}}},
         props={"floatingip_id": {"get_resource": "fip"}, "port_id": {"get_resource": "port"}},
         allowed={"port_id": {"get_resource": "port2"}},
         seen=lambda _, o: o["fixed_ip_address"] == "10.70.0.50"),
    Case("OS::Neutron::Port", find=by_id("ports"), needs=SUBNET, attr="fixed_ips",
         attr_ok=lambda v: v[0]["ip_address"].startswith("10.70.0."),
         props={"network": {"get_resource": "net"}, "name": "p1",
                "fixed_ips": [{"subnet": {"get_resource": "subnet"}}]},
         allowed={"name": "p2", "admin_state_up": False},
         seen=lambda _, o: o["name"] == "p2" and o["admin_state_up"] is False,
         replacing={"mac_address": "fa:16:3e:00:00:99"}),
    # SecurityGroup: every property is update_allowed, (b) is skipped
    Case("OS::Neutron::SecurityGroup", find=by_id("security_groups"), attr="show",
         attr_ok=lambda v: bool(v["security_group_rules"]),
         props={"rules": [{"protocol": "tcp", "port_range_min": 22, "port_range_max": 22}]},
         allowed={"name": "sg2", "rules": [{"protocol": "udp", "port_range_min": 53,
                                            "port_range_max": 53}]},
         seen=lambda db, o: o["name"] == "sg2" and _rules(db, o) == {("udp", 53)}),
    # SecurityGroupRule: no property is update_allowed, (a) is skipped
    Case("OS::Neutron::SecurityGroupRule", find=by_id("security_group_rules"), attr="show",
         attr_ok=lambda v: v["protocol"] == "tcp",
         needs={"sg": {"type": "OS::Neutron::SecurityGroup"}},
         props={"security_group": {"get_resource": "sg"}, "protocol": "tcp",
                "port_range_min": 80, "port_range_max": 80},
         replacing={"port_range_min": 443, "port_range_max": 443}),
    # ProviderNet: everything but tenant_id is update_allowed
    Case("OS::Neutron::ProviderNet", find=by_id("networks"), attr="status",
         attr_ok=lambda v: v == "ACTIVE",
         props={"network_type": "vlan", "physical_network": "physnet1", "segmentation_id": 101},
         allowed={"name": "prov2", "admin_state_up": False},
         seen=lambda _, o: o["name"] == "prov2" and o["admin_state_up"] is False,
         replacing={"tenant_id": {"get_param": "demo_project"}}),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_type_through_engine(case: Case, db: Any, cloud_settings: Any, sandbox: Any) -> None:
    check_case(case, sandbox)
