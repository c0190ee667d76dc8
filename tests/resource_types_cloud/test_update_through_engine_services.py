"""Continued from ``test_update_through_engine``: each Cinder, Glance, Octavia, Aodh
and AWS::EC2 type through the whole engine on the sandbox — create, an attribute through an
output, an in-place update of ``update_allowed`` properties, a replacing change (or, for an
``immutable`` property, UPDATE_FAILED with Heat's NotSupported), delete with nothing left.

Property names and ``update_allowed`` / ``immutable`` come from
``heat-reference/resource_types.json``.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.resource_types_cloud.test_update_through_engine import ROUTED, SUBNET
from tests.resource_types_cloud.update_support import Case, by_id, check_case

SERVER = {"srv": {"type": "OS::Nova::Server", "properties": {
    "image": "cirros", "flavor": "m1.tiny", "networks": [{"network": "private"}]}}}
VOLUME = {"vol": {"type": "OS::Cinder::Volume", "properties": {"size": 1}}}
TYPES = {"vt": {"type": "OS::Cinder::VolumeType", "properties": {"name": "upd-vt-1"}},
         "vt2": {"type": "OS::Cinder::VolumeType", "properties": {"name": "upd-vt-2"}}}
LB = {**SUBNET, "lb": {"type": "OS::Octavia::LoadBalancer",
                       "properties": {"vip_subnet": {"get_resource": "subnet"}}}}
LISTENERS = {**LB, **{name: {"type": "OS::Octavia::Listener", "properties": {
    "loadbalancer": {"get_resource": "lb"}, "protocol": "HTTP", "protocol_port": port}}
    for name, port in (("lst", 80), ("lst2", 81))}}
POOL = {**LISTENERS, **{name: {"type": "OS::Octavia::Pool", "properties": {
    "listener": {"get_resource": lst}, "lb_algorithm": "ROUND_ROBIN", "protocol": "HTTP"}}
    for name, lst in (("pool", "lst"), ("pool2", "lst2"))}}
INSTANCES = {**ROUTED, **{name: {"type": "AWS::EC2::Instance", "depends_on": "iface",
                                 "properties": {"ImageId": "cirros", "InstanceType": "m1.tiny",
                                                "SubnetId": {"get_resource": "subnet"}}}
                          for name in ("inst", "inst2")}}
GNOCCHI_RULE = "gnocchi_aggregation_by_resources_threshold_rule"


def _attachment(store: Any, pid: str) -> dict[str, Any] | None:
    """A volume attachment (its physical id is the volume's id, as Nova's)."""
    found = (store.get("volumes", pid) or {}).get("attachments") or []
    return dict(found[0]) if found else None


def _encryption(store: Any, pid: str) -> dict[str, Any] | None:
    """An encryption spec (its physical id is its volume type's)."""
    found = (store.get("volume_types", pid) or {}).get("_encryption")
    return dict(found) if found else None


def _associated(store: Any, pid: str) -> dict[str, Any] | None:
    """The floating IP an EIPAssociation (physical id: a name) holds: the associated one."""
    found = [f for f in store.all("floatingips") if f.get("port_id")]
    return found[0] if found else None


def _on_server(store: Any, fip: dict[str, Any], name: str) -> bool:
    """Floating IP ``fip`` is on the first port of the server whose resource name is ``name``."""
    port = store.get("ports", fip["port_id"])
    return port is not None and f"-{name}-" in store.get("servers", port["device_id"])["name"]


CASES = [
    Case("OS::Cinder::Volume", find=by_id("volumes"), attr="size",
         attr_ok=lambda v: v in ("1", "2"),      # Heat's str(getattr(volume, name))
         props={"size": 1, "name": "v1", "metadata": {"a": "1"}},
         allowed={"size": 2, "name": "v2", "metadata": {"b": "2"}},
         seen=lambda _, o: (o["size"], o["name"], o["metadata"]) == (2, "v2", {"b": "2"}),
         attr_updated=lambda v: v == "2",
         replacing={"availability_zone": "nova"}),
    # VolumeAttachment: every property is update_allowed (a new volume or server is an
    # in-place detach + attach, as Heat's), (b) is skipped
    Case("OS::Cinder::VolumeAttachment", find=_attachment, needs={**SERVER, **VOLUME},
         attr="show", attr_ok=lambda v: v["device"] == "/dev/vdb",
         props={"instance_uuid": {"get_resource": "srv"}, "volume_id": {"get_resource": "vol"},
                "mountpoint": "/dev/vdb"},
         allowed={"mountpoint": "/dev/vdc"}, seen=lambda _, a: a["device"] == "/dev/vdc"),
    # VolumeType: every property is update_allowed, (b) is skipped
    Case("OS::Cinder::VolumeType", find=by_id("volume_types"), attr="show",
         attr_ok=lambda v: v["name"] == "upd-vt",
         props={"name": "upd-vt", "metadata": {"a": "1"}},
         allowed={"metadata": {"b": "2"}}, seen=lambda _, o: o["extra_specs"] == {"b": "2"}),
    Case("OS::Cinder::EncryptedVolumeType", find=_encryption, needs=TYPES, attr="show",
         attr_ok=lambda v: v["provider"] == "luks",
         props={"volume_type": {"get_resource": "vt"}, "provider": "luks", "key_size": 256},
         allowed={"key_size": 512}, seen=lambda _, o: o["key_size"] == 512,
         attr_updated=lambda v: v["key_size"] == 512,
         replacing={"volume_type": {"get_resource": "vt2"}}),
    Case("OS::Glance::WebImage", find=by_id("images"), attr="show",
         attr_ok=lambda v: v["status"] == "active",
         props={"location": "http://127.0.0.1:1/i.img", "container_format": "bare",
                "disk_format": "qcow2", "tags": ["a"]},
         allowed={"tags": ["b"], "os_distro": "cirros"},
         seen=lambda _, o: o["tags"] == ["b"] and o["os_distro"] == "cirros",
         replacing={"min_ram": 64}),
    Case("OS::Octavia::LoadBalancer", find=by_id("loadbalancers"), needs=SUBNET,
         attr="vip_address", attr_ok=lambda v: v.startswith("10.70.0."),
         props={"vip_subnet": {"get_resource": "subnet"}},
         allowed={"name": "lb2"}, seen=lambda _, o: o["name"] == "lb2",
         replacing={"vip_address": "10.70.0.99"}),
    Case("OS::Octavia::Listener", find=by_id("listeners"), needs=LB, attr="loadbalancers",
         attr_ok=lambda v: len(v) == 1,
         props={"loadbalancer": {"get_resource": "lb"}, "protocol": "HTTP",
                "protocol_port": 80},
         allowed={"connection_limit": 100, "name": "l2"},
         seen=lambda _, o: (o["connection_limit"], o["name"]) == (100, "l2"),
         replacing={"protocol_port": 8080}),
    Case("OS::Octavia::Pool", find=by_id("pools"), needs=LISTENERS, attr="listeners",
         attr_ok=lambda v: len(v) == 1,
         props={"listener": {"get_resource": "lst"}, "lb_algorithm": "ROUND_ROBIN",
                "protocol": "HTTP"},
         allowed={"lb_algorithm": "LEAST_CONNECTIONS", "name": "pool2"},
         seen=lambda _, o: (o["lb_algorithm"], o["name"]) == ("LEAST_CONNECTIONS", "pool2"),
         replacing={"listener": {"get_resource": "lst2"}}),
    Case("OS::Octavia::PoolMember", find=by_id("members"), needs=POOL, attr="show",
         attr_ok=lambda v: v["address"] == "10.70.0.10",
         props={"pool": {"get_resource": "pool"}, "address": "10.70.0.10",
                "protocol_port": 80},
         allowed={"weight": 5}, seen=lambda _, o: o["weight"] == 5,
         replacing={"protocol_port": 8080}),
    Case("OS::Octavia::HealthMonitor", find=by_id("healthmonitors"), needs=POOL, attr="pools",
         attr_ok=lambda v: len(v) == 1,
         props={"pool": {"get_resource": "pool"}, "type": "HTTP", "delay": 5,
                "max_retries": 3, "timeout": 3},
         allowed={"delay": 10, "url_path": "/health"},
         seen=lambda _, o: (o["delay"], o["url_path"]) == (10, "/health"),
         # a pool has one monitor: the replacement (created first) goes to another pool
         replacing={"type": "TCP", "pool": {"get_resource": "pool2"}}),
    Case("OS::Aodh::Alarm", find=by_id("alarms"), attr="show",
         attr_ok=lambda v: v["type"] == "threshold",
         props={"meter_name": "cpu_util", "threshold": 5},
         allowed={"threshold": 7, "severity": "critical"},
         seen=lambda _, o: (o["threshold_rule"]["threshold"], o["severity"]) == (7, "critical"),
         attr_updated=lambda v: v["threshold_rule"]["threshold"] == 7,
         replacing={"meter_name": "memory"}),
    Case("OS::Aodh::GnocchiAggregationByResourcesAlarm", find=by_id("alarms"), attr="show",
         attr_ok=lambda v: v[GNOCCHI_RULE]["metric"] == "cpu",
         props={"metric": "cpu", "query": '{"=": {"server_group": "g"}}',
                "resource_type": "instance", "threshold": 5, "aggregation_method": "mean"},
         allowed={"threshold": 9, "enabled": False},
         seen=lambda _, o: o[GNOCCHI_RULE]["threshold"] == 9 and o["enabled"] is False,
         replacing={"time_constraints": [{"name": "night", "start": "0 23 * * *",
                                          "duration": 3600}]}),
    Case("AWS::EC2::Instance", find=by_id("servers"), attr="PrivateIp",
         attr_ok=lambda v: v.startswith("10.0.0."),
         props={"ImageId": "cirros", "InstanceType": "m1.tiny"},
         allowed={"InstanceType": "m1.small", "Tags": [{"Key": "role", "Value": "web"}]},
         seen=lambda _, o: o["_flavor"]["name"] == "m1.small"
         and o["metadata"] == {"role": "web"},
         replacing={"UserData": "#!/bin/sh\necho new\n"}),
    Case("AWS::EC2::SecurityGroup", find=by_id("security_groups"), attr="show",
         attr_ok=lambda v: v["description"].startswith("web"),
         props={"GroupDescription": "web", "SecurityGroupIngress": [
             {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "CidrIp": "0.0.0.0/0"}]},
         allowed={"SecurityGroupIngress": [
             {"IpProtocol": "tcp", "FromPort": 80, "ToPort": 80, "CidrIp": "0.0.0.0/0"}]},
         seen=lambda db, o: [(r["protocol"], r["port_range_min"]) for r in db.find(
             "security_group_rules", security_group_id=o["id"], direction="ingress")]
         == [("tcp", 80)],
         replacing={"GroupDescription": "web too"}),
    # EIP: the replacement goes to another instance (a fixed IP holds one floating IP)
    Case("AWS::EC2::EIP", find=by_id("floatingips"), needs=INSTANCES, attr="AllocationId",
         attr_ok=bool, props={}, allowed={"InstanceId": {"get_resource": "inst"}},
         seen=lambda db, o: _on_server(db, o, "inst"),
         replacing={"Domain": "vpc", "InstanceId": {"get_resource": "inst2"}}),
    # EIPAssociation: every property is update_allowed, (b) is skipped
    Case("AWS::EC2::EIPAssociation", find=_associated,
         needs={**INSTANCES, "eip": {"type": "AWS::EC2::EIP"}}, attr="show",
         attr_ok=lambda v: v is None,
         props={"EIP": {"get_resource": "eip"}, "InstanceId": {"get_resource": "inst"}},
         allowed={"InstanceId": {"get_resource": "inst2"}},
         seen=lambda db, o: _on_server(db, o, "inst2")),
    # Volume: every property is immutable — no (a); (b) fails with NotSupported
    Case("AWS::EC2::Volume", find=by_id("volumes"), attr="show",
         attr_ok=lambda v: v["size"] == 1,
         props={"AvailabilityZone": "nova", "Size": 1},
         replacing={"Size": 2}, immutable=True),
    # VolumeAttachment: every property is immutable — no (a); (b) fails with NotSupported
    Case("AWS::EC2::VolumeAttachment", find=_attachment, attr="show",
         attr_ok=lambda v: v["device"] == "/dev/vdb", needs={**SERVER, **VOLUME},
         props={"InstanceId": {"get_resource": "srv"}, "VolumeId": {"get_resource": "vol"},
                "Device": "/dev/vdb"},
         replacing={"Device": "/dev/vdc"}, immutable=True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_type_through_engine(case: Case, db: Any, cloud_settings: Any, sandbox: Any) -> None:
    check_case(case, sandbox)
