"""Neutron's service plug-in types through the API with real workers: the FWaaS v1 family,
VPNaaS, service function chaining, L2 and network gateways and tap-as-a-service in one stack
(created; updated in place and by replacement; deleted with nothing left), and bad input
answered with Heat's errors and nothing left behind."""
from __future__ import annotations

from typing import Any

import pytest
from heatclient import exc

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  rule_name: {type: string}
  mtu: {type: number}
  protocol: {type: string}
  l2_segment: {type: string}
  gw_vlan: {type: number}
  flow_name: {type: string}
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.61.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: public}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  p1: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  p2: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  p3: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  fw_rule:
    type: OS::Neutron::FirewallRule
    properties: {name: {get_param: rule_name}, protocol: tcp, destination_port: "22", action: allow}
  fw_policy:
    type: OS::Neutron::FirewallPolicy
    properties: {firewall_rules: [{get_resource: fw_rule}]}
  firewall:
    type: OS::Neutron::Firewall
    properties: {firewall_policy_id: {get_resource: fw_policy}}
  vpn:
    type: OS::Neutron::VPNService
    depends_on: iface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  ike:
    type: OS::Neutron::IKEPolicy
    properties: {lifetime: {units: seconds, value: 7200}}
  ipsec: {type: OS::Neutron::IPsecPolicy}
  site:
    type: OS::Neutron::IPsecSiteConnection
    properties:
      vpnservice_id: {get_resource: vpn}
      ikepolicy_id: {get_resource: ike}
      ipsecpolicy_id: {get_resource: ipsec}
      peer_address: 172.24.4.233
      peer_id: 172.24.4.233
      peer_cidrs: [10.2.0.0/24]
      psk: secret
      mtu: {get_param: mtu}
  pair:
    type: OS::Neutron::PortPair
    properties: {ingress: {get_resource: p1}, egress: {get_resource: p2}}
  group:
    type: OS::Neutron::PortPairGroup
    properties: {port_pairs: [{get_resource: pair}]}
  classifier:
    type: OS::Neutron::FlowClassifier
    properties: {logical_source_port: {get_resource: p3}, protocol: {get_param: protocol},
                 destination_port_range_min: 80, destination_port_range_max: 80}
  chain:
    type: OS::Neutron::PortChain
    properties: {port_pair_groups: [{get_resource: group}], flow_classifiers: [{get_resource: classifier}]}
  l2gw:
    type: OS::Neutron::L2Gateway
    properties:
      name: l2gw-a
      devices: [{device_name: switch1, interfaces: [{name: eth1, segmentation_id: ["100"]}]}]
  l2conn:
    type: OS::Neutron::L2GatewayConnection
    properties: {l2_gateway_id: {get_resource: l2gw}, network_id: {get_resource: net},
                 segmentation_id: {get_param: l2_segment}}
  netgw:
    type: OS::Neutron::NetworkGateway
    properties:
      devices: [{id: device1, interface_name: eth2}]
      connections: [{network: {get_resource: net}, segmentation_type: vlan,
                     segmentation_id: {get_param: gw_vlan}}]
  tap:
    type: OS::Neutron::TaaS::TapService
    properties: {port: {get_resource: p1}}
  flow:
    type: OS::Neutron::TaaS::TapFlow
    properties: {name: {get_param: flow_name}, port: {get_resource: p3}, tap_service: {get_resource: tap},
                 direction: BOTH}
outputs:
  fw_status: {value: {get_attr: [firewall, status]}}
  fw_shared: {value: {get_attr: [firewall, shared]}}
  rule_policy: {value: {get_attr: [fw_rule, firewall_policy_id]}}
  site_status: {value: {get_attr: [site, status]}}
  ike_lifetime: {value: {get_attr: [ike, lifetime]}}
  gw_default: {value: {get_attr: [netgw, default]}}
"""

FIRST = {"rule_name": "ssh", "mtu": 1500, "protocol": "tcp", "l2_segment": "100", "gw_vlan": 200,
         "flow_name": "mirror"}


def test_service_types_are_created_updated_and_deleted(api: Any) -> None:
    stack = api.create(TEMPLATE, FIRST)
    ids = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    net = api.cloud("network")
    assert api.output(stack, "fw_status") == "ACTIVE"
    assert api.output(stack, "fw_shared") == "This attribute is currently unsupported in neutron firewall resource."
    assert api.output(stack, "rule_policy") == ids["fw_policy"]
    assert api.output(stack, "site_status") == "ACTIVE"
    assert api.output(stack, "ike_lifetime") == {"units": "seconds", "value": 7200}
    assert api.output(stack, "gw_default") is False
    assert net.get(f"/v2.0/vpn/vpnservices/{ids['vpn']}").json()["vpnservice"]["status"] == "ACTIVE"
    chain = net.get(f"/v2.0/sfc/port_chains/{ids['chain']}").json()["port_chain"]
    assert chain["port_pair_groups"] == [ids["group"]] and chain["flow_classifiers"] == [ids["classifier"]]
    assert net.get(f"/v2.0/taas/tap_flows/{ids['flow']}").json()["tap_flow"]["status"] == "ACTIVE"
    gateway = net.get(f"/v2.0/network-gateways/{ids['netgw']}").json()["network_gateway"]
    assert len(gateway["ports"]) == 1

    stack = api.update(stack, TEMPLATE, {"rule_name": "ssh-in", "mtu": 1400, "protocol": "udp",
                                         "l2_segment": "101", "gw_vlan": 201, "flow_name": "mirror-2"})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    kept = ("fw_rule", "chain", "netgw", "flow", "firewall", "vpn")
    assert {k: after[k] for k in kept} == {k: ids[k] for k in kept}            # updated in place
    assert all(after[k] != ids[k] for k in ("classifier", "l2conn", "site"))   # replaced
    assert net.get(f"/v2.0/fw/firewall_rules/{ids['fw_rule']}").json()["firewall_rule"]["name"] == "ssh-in"
    site = net.get(f"/v2.0/vpn/ipsec-site-connections/{after['site']}").json()["ipsec_site_connection"]
    assert site["mtu"] == 1400 and site["status"] == "ACTIVE"
    chain = net.get(f"/v2.0/sfc/port_chains/{ids['chain']}").json()["port_chain"]
    assert chain["flow_classifiers"] == [after["classifier"]]
    assert net.get(f"/v2.0/taas/tap_flows/{ids['flow']}").json()["tap_flow"]["name"] == "mirror-2"
    api.delete(stack)
    assert net.get(f"/v2.0/fw/firewalls/{ids['firewall']}", raise_exc=False).status_code == 404


BAD = [
    ("trunk: {type: OS::Neutron::Trunk, properties: {name: t}}",
     "Property error: resources.trunk.properties: Property port not assigned"),
    ("pair: {type: OS::Neutron::PortPair, properties: {ingress: nope, egress: nope}}",
     "Error validating value 'nope': Unable to find port with name or id 'nope'"),
    ("seg: {type: OS::Neutron::Segment, properties: {network: public, network_type: vlan, segmentation_id: 5}}",
     "physical_network is required for vlan provider network."),
    ("rbac: {type: OS::Neutron::RBACPolicy, properties: {object_type: qos_policy, object_id: x, "
     "action: access_as_external, target_tenant: '*'}}",
     'Invalid action "access_as_external" for object type qos_policy. Valid actions: access_as_shared'),
    ("quota: {type: OS::Neutron::Quota, properties: {project: demo}}",
     "At least one of the following properties must be specified: floatingip, network, port, rbac_policy, "
     "router, security_group, security_group_rule, subnet, subnetpool."),
    ("chain: {type: OS::Neutron::PortChain, properties: {port_pair_groups: [ghost]}}",
     "Unable to find port_pair_group with name or id 'ghost'"),
]


@pytest.mark.parametrize(("resource", "message"), BAD, ids=[b[0].split(":")[0] for b in BAD])
def test_bad_input_is_refused_with_heats_error(api: Any, resource: str, message: str) -> None:
    template = f"heat_template_version: 2018-08-31\nresources:\n  {resource}\n"
    with pytest.raises(exc.HTTPBadRequest) as refused:
        api.create(template)
    assert message in str(refused.value)


def test_a_refused_duplicate_fails_the_stack_and_leaves_nothing(api: Any) -> None:
    template = """
heat_template_version: 2018-08-31
resources:
  net: {type: OS::Neutron::Net}
  port: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  one: {type: OS::Neutron::Trunk, properties: {port: {get_resource: port}}}
  two: {type: OS::Neutron::Trunk, depends_on: one, properties: {port: {get_resource: port}}}
"""
    stack = api.create(template, expect="CREATE_FAILED")
    reason = api.resources(stack)["two"]["resource_status_reason"]
    assert "is currently in use and is not eligible for use as a parent port." in reason
    api.delete(stack)
