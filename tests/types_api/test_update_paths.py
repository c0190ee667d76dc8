"""The update paths of the extension types that the other types_api tests create but do not
change, through the API with real workers, each as Heat's plugin decides: in place where the
changed properties are ``update_allowed`` (QoS policy and rules, FWaaS, VPNaaS, SFC, L2
gateway, tap service, Octavia availability zones, the Aodh alarms), replacement otherwise
(a metering label, the AWS VPC family when the VPC's CIDR or a gateway's tags change); deleted
with nothing left."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")


def _ids(api: Any, stack: dict[str, Any]) -> dict[str, str]:
    return {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}


NEUTRON = """
heat_template_version: 2018-08-31
parameters:
  tag: {type: string, default: a}
  dscp: {type: number, default: 16}
  kbps: {type: number, default: 1000}
  kpps: {type: number, default: 500}
  lifetime: {type: number, default: 3600}
  rules: {type: string, default: one, constraints: [allowed_values: [one, two]]}
conditions:
  two: {equals: [{get_param: rules}, two]}
resources:
  net: {type: OS::Neutron::Net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.62.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: public}}
  iface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  p1: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  p2: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  qos:
    type: OS::Neutron::QoSPolicy
    properties: {name: {list_join: ['-', [qos, {get_param: tag}]]}}
  dscp:
    type: OS::Neutron::QoSDscpMarkingRule
    properties: {policy: {get_resource: qos}, dscp_mark: {get_param: dscp}}
  minimum:
    type: OS::Neutron::QoSMinimumBandwidthRule
    properties: {policy: {get_resource: qos}, min_kbps: {get_param: kbps}}
  packets:
    type: OS::Neutron::QoSMinimumPacketRateRule
    properties: {policy: {get_resource: qos}, min_kpps: {get_param: kpps}}
  label:
    type: OS::Neutron::MeteringLabel
    properties: {name: {list_join: ['-', [label, {get_param: tag}]]}}
  rule1:
    type: OS::Neutron::FirewallRule
    properties: {protocol: tcp, destination_port: "22", action: allow}
  rule2:
    type: OS::Neutron::FirewallRule
    properties: {protocol: tcp, destination_port: "80", action: allow}
  fw_policy:
    type: OS::Neutron::FirewallPolicy
    properties:
      name: {list_join: ['-', [policy, {get_param: tag}]]}
      firewall_rules: {if: [two, [{get_resource: rule1}, {get_resource: rule2}], [{get_resource: rule1}]]}
  firewall:
    type: OS::Neutron::Firewall
    properties: {name: {list_join: ['-', [fw, {get_param: tag}]]}, firewall_policy_id: {get_resource: fw_policy}}
  vpn:
    type: OS::Neutron::VPNService
    depends_on: iface
    properties: {name: {list_join: ['-', [vpn, {get_param: tag}]]}, router: {get_resource: router},
                 subnet: {get_resource: subnet}}
  ike:
    type: OS::Neutron::IKEPolicy
    properties: {lifetime: {units: seconds, value: {get_param: lifetime}}}
  ipsec:
    type: OS::Neutron::IPsecPolicy
    properties: {name: {list_join: ['-', [ipsec, {get_param: tag}]]}}
  pair:
    type: OS::Neutron::PortPair
    properties: {name: {list_join: ['-', [pair, {get_param: tag}]]}, ingress: {get_resource: p1},
                 egress: {get_resource: p2}}
  group:
    type: OS::Neutron::PortPairGroup
    properties: {name: {list_join: ['-', [group, {get_param: tag}]]}, port_pairs: [{get_resource: pair}]}
  l2gw:
    type: OS::Neutron::L2Gateway
    properties:
      name: {list_join: ['-', [l2gw, {get_param: tag}]]}
      devices: [{device_name: switch1, interfaces: [{name: eth1, segmentation_id: ["100"]}]}]
  tap:
    type: OS::Neutron::TaaS::TapService
    properties: {name: {list_join: ['-', [tap, {get_param: tag}]]}, port: {get_resource: p1}}
"""

NAMED = {"qos": ("qos/policies", "qos-b"), "firewall": ("fw/firewalls", "fw-b"),
         "fw_policy": ("fw/firewall_policies", "policy-b"), "vpn": ("vpn/vpnservices", "vpn-b"),
         "ipsec": ("vpn/ipsecpolicies", "ipsec-b"), "pair": ("sfc/port_pairs", "pair-b"),
         "group": ("sfc/port_pair_groups", "group-b"), "l2gw": ("l2-gateways", "l2gw-b"),
         "tap": ("taas/tap_services", "tap-b")}


def test_neutron_extension_types_update_in_place_or_replace_as_heat(api: Any) -> None:
    net = api.cloud("network")

    def one(path: str) -> Any:
        return next(iter(net.get(f"/v2.0/{path}").json().values()))

    stack = api.create(NEUTRON)
    res = _ids(api, stack)
    stack = api.update(stack, NEUTRON, {"tag": "b", "dscp": 26, "kbps": 2000, "kpps": 700,
                                        "lifetime": 7200, "rules": "two"})
    after = _ids(api, stack)
    assert {n for n in res if after[n] != res[n]} == {"label"}          # the only replacement
    assert {name: one(f"{path}/{res[name]}")["name"] for name, (path, _) in NAMED.items()} == {
        name: want for name, (_, want) in NAMED.items()}
    rules = f"qos/policies/{res['qos']}"
    assert one(f"{rules}/dscp_marking_rules/{res['dscp']}")["dscp_mark"] == 26
    assert one(f"{rules}/minimum_bandwidth_rules/{res['minimum']}")["min_kbps"] == 2000
    assert one(f"{rules}/minimum_packet_rate_rules/{res['packets']}")["min_kpps"] == 700
    assert one(f"vpn/ikepolicies/{res['ike']}")["lifetime"] == {"units": "seconds", "value": 7200}
    policy = one(f"fw/firewall_policies/{res['fw_policy']}")
    assert policy["firewall_rules"] == [res["rule1"], res["rule2"]]
    assert one(f"metering/metering-labels/{after['label']}")["name"] == "label-b"
    assert net.get(f"/v2.0/metering/metering-labels/{res['label']}", raise_exc=False).status_code == 404
    api.delete(stack)


SERVICES = """
heat_template_version: 2018-08-31
parameters:
  enabled: {type: boolean, default: true}
  zone: {type: string, default: nova}
  threshold: {type: number, default: 10}
  event: {type: string, default: compute.instance.update}
  group: {type: string, default: g-1}
  composite: {type: number, default: 1}
resources:
  lb:
    type: OS::Octavia::LoadBalancer
    properties: {vip_subnet: private-subnet}
  pool:
    type: OS::Octavia::Pool
    properties: {loadbalancer: {get_resource: lb}, protocol: HTTP, lb_algorithm: ROUND_ROBIN}
  azp:
    type: OS::Octavia::AvailabilityZoneProfile
    properties:
      provider_name: amphora
      availability_zone_data: {str_replace: {template: '{"compute_zone": "Z"}', params: {Z: {get_param: zone}}}}
  az:
    type: OS::Octavia::AvailabilityZone
    properties: {availability_zone_profile: {get_resource: azp}, enabled: {get_param: enabled}}
  metrics:
    type: OS::Aodh::GnocchiAggregationByMetricsAlarm
    properties: {metrics: [m-1, m-2], threshold: {get_param: threshold}, comparison_operator: gt}
  event:
    type: OS::Aodh::EventAlarm
    properties: {event_type: {get_param: event}}
  composite:
    type: OS::Aodh::CompositeAlarm
    properties:
      composite_rule:
        operator: and
        rules: [{type: threshold, meter_name: cpu_util, threshold: {get_param: composite}},
                {type: threshold, meter_name: memory, threshold: 1}]
  health:
    type: OS::Aodh::LBMemberHealthAlarm
    properties: {pool: {get_resource: pool}, stack: s-1, autoscaling_group_id: {get_param: group}}
"""


def test_octavia_zones_and_alarms_update_in_place(api: Any) -> None:
    lb_api, aodh = api.cloud("load-balancer"), api.cloud("alarming")
    stack = api.create(SERVICES)
    res = _ids(api, stack)
    stack = api.update(stack, SERVICES, {"enabled": False, "zone": "az-2", "threshold": 20,
                                         "event": "compute.instance.delete.end", "group": "g-2",
                                         "composite": 5})
    assert _ids(api, stack) == res                                        # all in place
    zone = lb_api.get(f"/v2/lbaas/availabilityzones/{res['az']}").json()["availability_zone"]
    assert zone["enabled"] is False
    profile = lb_api.get(f"/v2/lbaas/availabilityzoneprofiles/{res['azp']}").json()[
        "availability_zone_profile"]
    assert "az-2" in profile["availability_zone_data"]

    def alarm(name: str) -> Any:
        return aodh.get(f"/v2/alarms/{res[name]}").json()

    assert alarm("metrics")["gnocchi_aggregation_by_metrics_threshold_rule"]["threshold"] == 20
    assert alarm("event")["event_rule"]["event_type"] == "compute.instance.delete.end"
    assert alarm("composite")["composite_rule"]["and"][0]["threshold"] == 5
    assert alarm("health")["loadbalancer_member_health_rule"]["autoscaling_group_id"] == "g-2"
    api.delete(stack)


VPC = """
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  Cidr: {Type: String, Default: 10.21.0.0/16}
  SubnetCidr: {Type: String, Default: 10.21.1.0/24}
  Owner: {Type: String, Default: a}
Resources:
  Vpc:
    Type: AWS::EC2::VPC
    Properties: {CidrBlock: {Ref: Cidr}}
  Subnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: {Ref: Vpc}, CidrBlock: {Ref: SubnetCidr}}
  Gateway:
    Type: AWS::EC2::InternetGateway
    Properties: {Tags: [{Key: owner, Value: {Ref: Owner}}]}
  Attachment:
    Type: AWS::EC2::VPCGatewayAttachment
    Properties: {VpcId: {Ref: Vpc}, InternetGatewayId: {Ref: Gateway}}
  Routes:
    Type: AWS::EC2::RouteTable
    Properties: {VpcId: {Ref: Vpc}}
  Association:
    Type: AWS::EC2::SubnetRouteTableAssociation
    Properties: {RouteTableId: {Ref: Routes}, SubnetId: {Ref: Subnet}}
"""


def test_the_vpc_family_is_replaced_as_heat_replaces_it(api: Any) -> None:
    net = api.cloud("network")
    stack = api.create(VPC)
    res = _ids(api, stack)
    stack = api.update(stack, VPC, {"Owner": "b"})                        # only the gateway's tags
    after = _ids(api, stack)
    assert {n for n in res if after[n] != res[n]} == {"Gateway", "Attachment"}
    stack = api.update(stack, VPC, {"Owner": "b", "Cidr": "10.22.0.0/16", "SubnetCidr": "10.22.1.0/24"})
    again = _ids(api, stack)
    assert {n for n in res if again[n] != after[n]} == {"Vpc", "Subnet", "Attachment", "Routes",
                                                         "Association"}
    assert net.get(f"/v2.0/networks/{res['Vpc']}", raise_exc=False).status_code == 404
    assert net.get(f"/v2.0/subnets/{again['Subnet']}").json()["subnet"]["cidr"] == "10.22.1.0/24"
    ports = net.get(f"/v2.0/ports?device_id={again['Routes']}").json()["ports"]
    assert [p["fixed_ips"][0]["subnet_id"] for p in ports
            if p["device_owner"] == "network:router_interface"] == [again["Subnet"]]
    api.delete(stack)
