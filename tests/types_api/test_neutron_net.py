"""Neutron's network extension types through the API with real workers: Trunk, SubnetPool,
AddressScope, Segment, RBACPolicy, Quota, ExtraRoute, ExtraRouteSet, FloatingIPPortForward,
QoSPolicy and its four rules, MeteringLabel and MeteringRule in one stack: created, updated (in
place: trunk name, description and subports by difference, rule limits, RBAC target, quota, port forward, route set;
replaced: the segment, the metering rule, the extra route) and deleted (the quota reset,
nothing left)."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  trunk_name: {type: string}
  trunk_description: {type: string, default: first}
  vlan: {type: number}
  sub_vlan: {type: number}
  max_kbps: {type: number}
  target: {type: string}
  networks: {type: number}
  external_port: {type: number}
  route_dest: {type: string}
  routes_dest: {type: string}
  metered: {type: string}
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.60.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: public}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  parent:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}, fixed_ips: [{subnet: {get_resource: subnet}}]}
  sub:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}, fixed_ips: [{subnet: {get_resource: subnet}}]}
  inner:
    type: OS::Neutron::Port
    properties: {network: {get_resource: net}, fixed_ips: [{subnet: {get_resource: subnet}}]}
  trunk:
    type: OS::Neutron::Trunk
    properties:
      name: {get_param: trunk_name}
      description: {get_param: trunk_description}
      port: {get_resource: parent}
      sub_ports: [{port: {get_resource: sub}, segmentation_type: vlan, segmentation_id: {get_param: sub_vlan}}]
  scope:
    type: OS::Neutron::AddressScope
    properties: {ip_version: 4}
  pool:
    type: OS::Neutron::SubnetPool
    properties: {prefixes: [10.200.0.0/16], address_scope: {get_resource: scope}, tags: [blue]}
  segment:
    type: OS::Neutron::Segment
    properties: {network: {get_resource: net}, network_type: vlan, physical_network: physnet1,
                 segmentation_id: {get_param: vlan}}
  rbac:
    type: OS::Neutron::RBACPolicy
    properties: {object_type: network, object_id: {get_resource: net}, action: access_as_shared,
                 target_tenant: {get_param: target}}
  quota:
    type: OS::Neutron::Quota
    properties: {project: demo, network: {get_param: networks}, port: 40}
  route:
    type: OS::Neutron::ExtraRoute
    properties: {router_id: {get_resource: router}, destination: {get_param: route_dest}, nexthop: 10.60.0.50}
  routes:
    type: OS::Neutron::ExtraRouteSet
    depends_on: route   # ExtraRoute rewrites the router's routes (read, append, PUT), as Heat's does
    properties:
      router: {get_resource: router}
      routes: [{destination: {get_param: routes_dest}, nexthop: 10.60.0.51}]
  fip:
    type: OS::Neutron::FloatingIP
    properties: {floating_network: public}
  forward:
    type: OS::Neutron::FloatingIPPortForward
    properties:
      floating_ip: {get_resource: fip}
      internal_port: {get_resource: inner}
      internal_ip_address: {get_attr: [inner, fixed_ips, 0, ip_address]}
      internal_port_number: 22
      external_port: {get_param: external_port}
      protocol: tcp
  qos:
    type: OS::Neutron::QoSPolicy
    properties: {name: gold}
  bandwidth:
    type: OS::Neutron::QoSBandwidthLimitRule
    properties: {policy: {get_resource: qos}, max_kbps: {get_param: max_kbps}, max_burst_kbps: 100}
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties: {policy: {get_resource: qos}, dscp_mark: 16}
  minimum:
    type: OS::Neutron::QoSMinimumBandwidthRule
    properties: {policy: {get_resource: qos}, min_kbps: 1000}
  packets:
    type: OS::Neutron::QoSMinimumPacketRateRule
    properties: {policy: {get_resource: qos}, min_kpps: 500}
  label:
    type: OS::Neutron::MeteringLabel
    properties: {name: metered}
  meter:
    type: OS::Neutron::MeteringRule
    properties: {metering_label_id: {get_resource: label}, remote_ip_prefix: {get_param: metered}}
outputs:
  trunk_port: {value: {get_attr: [trunk, port_id]}}
  rules: {value: {get_attr: [qos, rules]}}
  route_id: {value: {get_resource: route}}
  routes_id: {value: {get_resource: routes}}
  quota_id: {value: {get_resource: quota}}
"""

FIRST = {"trunk_name": "trunk-a", "vlan": 101, "sub_vlan": 10, "max_kbps": 3000, "target": "*",
         "networks": 7, "external_port": 2222, "route_dest": "10.99.0.0/24",
         "routes_dest": "10.98.0.0/24", "metered": "10.0.0.0/8"}


def _get(api: Any, path: str) -> Any:
    resp = api.cloud("network").get(f"/v2.0{path}", raise_exc=False)
    return resp.status_code, (resp.json() if resp.content else None)


def test_network_extension_types_are_created_updated_and_deleted(api: Any) -> None:
    stack = api.create(TEMPLATE, FIRST)
    ids = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    net = api.cloud("network")
    trunk = net.get(f"/v2.0/trunks/{ids['trunk']}").json()["trunk"]
    assert trunk["name"] == "trunk-a" and trunk["port_id"] == ids["parent"] == api.output(stack, "trunk_port")
    assert trunk["sub_ports"] == [{"port_id": ids["sub"], "segmentation_type": "vlan", "segmentation_id": 10}]
    pool = net.get(f"/v2.0/subnetpools/{ids['pool']}").json()["subnetpool"]
    assert pool["address_scope_id"] == ids["scope"] and pool["tags"] == ["blue"]
    assert {r["type"] for r in api.output(stack, "rules")} == {"bandwidth_limit", "dscp_marking",
                                                               "minimum_bandwidth", "minimum_packet_rate"}
    router = net.get(f"/v2.0/routers/{ids['router']}").json()["router"]
    assert {r["destination"] for r in router["routes"]} == {"10.99.0.0/24", "10.98.0.0/24"}
    assert api.output(stack, "route_id") == f"{ids['router']}:10.99.0.0/24:10.60.0.50"
    assert api.output(stack, "routes_id") == ids["router"]
    demo = api.sandbox("GET", "ids")["ids"]["project:demo"]
    assert net.get(f"/v2.0/quotas/{demo}").json()["quota"]["network"] == 7
    forward = net.get(f"/v2.0/floatingips/{ids['fip']}/port_forwardings/{ids['forward']}").json()
    assert forward["port_forwarding"]["external_port"] == 2222

    stack = api.update(stack, TEMPLATE, {**FIRST, "trunk_name": "trunk-b", "sub_vlan": 20,
                                         "trunk_description": "second", "max_kbps": 5000,
                                         "target": demo, "networks": 9, "external_port": 2223, "vlan": 102,
                                         "route_dest": "10.97.0.0/24", "routes_dest": "10.96.0.0/24",
                                         "metered": "192.168.0.0/16"})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    kept = ("trunk", "bandwidth", "rbac", "forward", "routes", "pool", "qos")
    assert {k: after[k] for k in kept} == {k: ids[k] for k in kept}           # updated in place
    assert all(after[k] != ids[k] for k in ("segment", "meter", "route"))      # replaced
    trunk = net.get(f"/v2.0/trunks/{ids['trunk']}").json()["trunk"]
    assert trunk["name"] == "trunk-b" and [s["segmentation_id"] for s in trunk["sub_ports"]] == [20]
    assert trunk["description"] == "second"   # Heat's description is updatable (not listed)
    rule = net.get(f"/v2.0/qos/policies/{ids['qos']}/bandwidth_limit_rules/{ids['bandwidth']}").json()
    assert rule["bandwidth_limit_rule"]["max_kbps"] == 5000
    assert net.get(f"/v2.0/rbac-policies/{ids['rbac']}").json()["rbac_policy"]["target_tenant"] == demo
    assert net.get(f"/v2.0/quotas/{demo}").json()["quota"]["network"] == 9
    assert net.get(f"/v2.0/segments/{after['segment']}").json()["segment"]["segmentation_id"] == 102
    assert _get(api, f"/segments/{ids['segment']}")[0] == 404
    router = net.get(f"/v2.0/routers/{ids['router']}").json()["router"]
    assert {r["destination"] for r in router["routes"]} == {"10.97.0.0/24", "10.96.0.0/24"}

    api.delete(stack)
    assert net.get(f"/v2.0/quotas/{demo}").json()["quota"]["network"] == 100   # reset to the default
    status, err = _get(api, f"/trunks/{ids['trunk']}")
    assert status == 404 and err["NeutronError"]["type"] == "TrunkNotFound"
