"""The AWS::EC2 types against the sandbox, mapped to Nova / Neutron / Cinder as Heat maps them."""
from __future__ import annotations

import base64
import email
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("no_leaks")


def test_instance_with_security_group_eip_and_volume(driver: Any, ids: dict[str, str]) -> None:
    net = driver.create("OS::Neutron::Net", "net", {})
    sub = driver.create("OS::Neutron::Subnet", "sub", {"network": net.resource_id,
                                                       "cidr": "10.40.0.0/24"})
    router = driver.create("OS::Neutron::Router", "r", {"external_gateway_info": {"network": "public"}})
    iface = driver.create("OS::Neutron::RouterInterface", "ri", {"router": router.resource_id,
                                                                 "subnet": sub.resource_id})
    sg = driver.create("AWS::EC2::SecurityGroup", "sg", {
        "GroupDescription": "web", "SecurityGroupIngress": [
            {"IpProtocol": "tcp", "FromPort": "80", "ToPort": "80", "CidrIp": "0.0.0.0/0"}]})
    assert sg.get_reference_id() == sg.resolve_attribute("show")["name"]
    vol = driver.create("AWS::EC2::Volume", "vol", {"Size": 1, "AvailabilityZone": "nova",
                                                    "Tags": [{"Key": "k", "Value": "v"}]})
    assert vol.resolve_attribute("show")["metadata"] == {"k": "v"}
    inst = driver.create("AWS::EC2::Instance", "inst", {
        "ImageId": "cirros", "InstanceType": "m1.tiny", "SubnetId": sub.resource_id,
        "SecurityGroups": [sg.get_reference_id()], "UserData": "#!/bin/sh\necho hi",
        "Tags": [{"Key": "role", "Value": "web"}],
        "Volumes": [{"Device": "/dev/vdb", "VolumeId": vol.resource_id}]})
    shown = inst.resolve_attribute("show")
    assert shown["metadata"] == {"role": "web"}
    parts = {p.get_filename(): p.get_payload(decode=True).decode() for p in email.message_from_string(
        base64.b64decode(shown["OS-EXT-SRV-ATTR:user_data"]).decode()).get_payload()}
    assert parts["cfn-userdata"] == "#!/bin/sh\necho hi"
    assert inst.resolve_attribute("PrivateIp").startswith("10.40.0.")
    assert inst.resolve_attribute("PublicIp") == inst.resolve_attribute("PrivateIp")
    assert inst.resolve_attribute("AvailabilityZone") == "nova"
    assert driver.again(vol).resolve_attribute("show")["status"] == "in-use"
    eip = driver.create("AWS::EC2::EIP", "eip", {})
    assert eip.get_reference_id().startswith("172.24.4.")
    assert eip.resolve_attribute("AllocationId") == eip.resource_id
    assoc = driver.create("AWS::EC2::EIPAssociation", "assoc", {
        "EIP": eip.get_reference_id(), "InstanceId": inst.resource_id})
    assert driver.again(eip).resolve_attribute("show")["port_id"]
    driver.delete(assoc)
    assert driver.again(eip).resolve_attribute("show")["port_id"] is None
    eip2 = driver.create("AWS::EC2::EIP", "eip2", {"InstanceId": inst.resource_id})
    assert driver.again(eip2).resolve_attribute("show")["port_id"]
    for res in (eip2, eip, inst):
        driver.delete(res)
    assert driver.again(vol).resolve_attribute("show")["status"] == "available"
    att = driver.create("AWS::EC2::VolumeAttachment", "att", {
        "InstanceId": _server(driver, sub), "VolumeId": vol.resource_id, "Device": "/dev/vdc"})
    driver.delete(att)
    _cleanup_servers(driver)
    for res in (vol, sg, iface, router, sub, net):
        driver.delete(res)


def _server(driver: Any, sub: Any) -> str:
    srv = driver.create("OS::Nova::Server", "srv", {"image": "cirros", "flavor": "m1.tiny",
                                                    "networks": [{"subnet": sub.resource_id}]})
    driver.servers = [srv]
    return srv.resource_id


def _cleanup_servers(driver: Any) -> None:
    for srv in getattr(driver, "servers", []):
        driver.delete(srv)
