"""The AWS::EC2 VPC types and AWS::RDS::DBInstance through the API with real workers: a VPC
(network + router), a subnet on it, a route table that an association moves the subnet onto,
an internet gateway attached (the external network as the route table's gateway), a network
interface; updated in place (its security groups) and by replacement (the subnet's CIDR, and
what sits on the subnet with it); deleted with nothing left. The DBInstance is Heat's global
template: a child stack whose instance signals its wait condition, updated in place (its port)."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("api_no_leaks")

TEMPLATE = """
AWSTemplateFormatVersion: '2010-09-09'
Parameters:
  Cidr: {Type: String, Default: 10.20.1.0/24}
  Group: {Type: String, Default: sg-a}
  Ip: {Type: String, Default: 10.20.1.50}
Resources:
  Vpc:
    Type: AWS::EC2::VPC
    Properties: {CidrBlock: 10.20.0.0/16}
  Subnet:
    Type: AWS::EC2::Subnet
    Properties: {VpcId: {Ref: Vpc}, CidrBlock: {Ref: Cidr}, AvailabilityZone: nova}
  Gateway:
    Type: AWS::EC2::InternetGateway
  Attachment:
    Type: AWS::EC2::VPCGatewayAttachment
    Properties: {VpcId: {Ref: Vpc}, InternetGatewayId: {Ref: Gateway}}
  Routes:
    Type: AWS::EC2::RouteTable
    Properties: {VpcId: {Ref: Vpc}}
  Association:
    Type: AWS::EC2::SubnetRouteTableAssociation
    Properties: {RouteTableId: {Ref: Routes}, SubnetId: {Ref: Subnet}}
  SgA:
    Type: OS::Neutron::SecurityGroup
    Properties: {name: sg-a}
  SgB:
    Type: OS::Neutron::SecurityGroup
    Properties: {name: sg-b}
  Nic:
    Type: AWS::EC2::NetworkInterface
    DependsOn: [SgA, SgB]
    Properties: {SubnetId: {Ref: Subnet}, PrivateIpAddress: {Ref: Ip}, GroupSet: [{Ref: Group}]}
Outputs:
  Ip: {Value: {'Fn::GetAtt': [Nic, PrivateIpAddress]}}
  Az: {Value: {'Fn::GetAtt': [Subnet, AvailabilityZone]}}
"""


def test_vpc_types_on_neutron(api: Any) -> None:
    net = api.cloud("network")

    def get(kind: str, obj_id: str) -> Any:
        return net.get(f"/v2.0/{kind}s/{obj_id}").json()[kind]

    public = net.get("/v2.0/networks?router:external=True").json()["networks"][0]["id"]
    stack = api.create(TEMPLATE)
    res = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    vpc = get("network", res["Vpc"])
    (vpc_router,) = net.get(f"/v2.0/routers?name={vpc['name']}").json()["routers"]
    assert get("subnet", res["Subnet"])["network_id"] == res["Vpc"]
    routes = get("router", res["Routes"])
    assert routes["external_gateway_info"]["network_id"] == public
    ports = net.get(f"/v2.0/ports?device_id={res['Routes']}").json()["ports"]
    assert [p["fixed_ips"][0]["subnet_id"] for p in ports
            if p["device_owner"] == "network:router_interface"] == [res["Subnet"]]
    assert not [p for p in net.get(f"/v2.0/ports?device_id={vpc_router['id']}").json()["ports"]
                if p["device_owner"] == "network:router_interface"]   # moved to the route table
    nic = get("port", res["Nic"])
    assert nic["security_groups"] == [res["SgA"]]
    assert api.output(stack, "Ip") == "10.20.1.50" and api.output(stack, "Az") == "nova"

    stack = api.update(stack, TEMPLATE, {"Group": "sg-b"})
    assert get("port", res["Nic"])["security_groups"] == [res["SgB"]]     # in place
    stack = api.update(stack, TEMPLATE, {"Group": "sg-b", "Cidr": "10.20.2.0/24",
                                         "Ip": "10.20.2.50"})
    after = {name: r["physical_resource_id"] for name, r in api.resources(stack).items()}
    assert {n for n in res if after[n] != res[n]} >= {"Subnet", "Nic"}
    assert get("subnet", after["Subnet"])["cidr"] == "10.20.2.0/24"
    api.delete(stack)


RDS = """
AWSTemplateFormatVersion: '2010-09-09'
Resources:
  Db:
    Type: AWS::RDS::DBInstance
    Properties:
      DBName: wiki
      Engine: MySQL
      MasterUsername: admin
      MasterUserPassword: secret
      DBInstanceClass: db.m1.small
      AllocatedStorage: '5'
      KeyName: rds-key
Outputs:
  Address: {Value: {'Fn::GetAtt': [Db, Endpoint.Address]}}
  Port: {Value: {'Fn::GetAtt': [Db, Endpoint.Port]}}
"""


def test_rds_db_instance_is_heats_global_template(api: Any) -> None:
    image, compute = api.cloud("image"), api.cloud("compute")
    created = image.post("/v2/images", json={"name": "F19-x86_64-cfntools",
                                             "container_format": "bare",
                                             "disk_format": "qcow2"}).json()
    compute.post("/os-keypairs", json={"keypair": {"name": "rds-key"}})
    try:
        image.post(f"/v2/images/{created['id']}/import",
                   json={"method": {"name": "web-download", "uri": "http://127.0.0.1:1/i"}})
        stack = api.create(RDS)
        db = api.resources(stack)["Db"]
        assert db["resource_type"] == "AWS::RDS::DBInstance"
        inner = {r.resource_name: r.resource_type
                 for r in api.heat.resources.list(db["physical_resource_id"])}
        assert inner == {"ServerSecurityGroup": "AWS::EC2::SecurityGroup",
                         "DatabaseInstance": "AWS::EC2::Instance",
                         "WaitHandle": "AWS::CloudFormation::WaitConditionHandle",
                         "WaitCondition": "AWS::CloudFormation::WaitCondition"}
        assert api.output(stack, "Port") == "3306" and api.output(stack, "Address")
        stack = api.update(stack, RDS.replace("      KeyName: rds-key", "      KeyName: rds-key\n      Port: '3307'"))
        assert api.resources(stack)["Db"]["physical_resource_id"] == db["physical_resource_id"]
        assert api.output(stack, "Port") == "3307"                # the child stack updated in place
        api.delete(stack)
    finally:
        image.delete(f"/v2/images/{created['id']}")
        compute.delete("/os-keypairs/rds-key")


@pytest.mark.parametrize(("resource", "message"), [
    ("{Type: 'AWS::EC2::VPC', Properties: {CidrBlock: 10.0.0.0/16, InstanceTenancy: dedicated}}",
     "Property error: Resources.R.Properties: Property InstanceTenancy not implemented yet"),
    ("{Type: 'AWS::EC2::VPC', Properties: {CidrBlock: 10.0.0.0/16, InstanceTenancy: bogus}}",
     'Resources.R.Properties.InstanceTenancy: "bogus" is not an allowed value'),
    ("{Type: 'AWS::EC2::VPCGatewayAttachment', Properties: {VpcId: v, VpnGatewayId: g}}",
     "Property error: Resources.R.Properties: Property VpnGatewayId not implemented yet"),
    ("{Type: 'AWS::EC2::NetworkInterface', Properties: {SubnetId: private-subnet, SourceDestCheck: true}}",
     "Property error: Resources.R.Properties: Property SourceDestCheck not implemented yet"),
], ids=["tenancy", "tenancy-value", "vpn-gateway", "source-dest-check"])
def test_heats_unimplemented_properties_are_refused_with_its_message(api: Any, resource: str,
                                                                     message: str) -> None:
    from heatclient import exc
    template = f"AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  R: {resource}\n"
    with pytest.raises(exc.HTTPBadRequest) as refused:
        api.heat.stacks.create(stack_name="t-unimplemented", template=template)
    assert message in str(refused.value)
    assert "InstanceTenancy" not in api.heat.resource_types.get("AWS::EC2::VPC")["properties"]
