"""Heat 27's schemas of the AWS::EC2 VPC types Heat maps onto Neutron, as ``resource_types.json``
records them (names, types, defaults, required, update_allowed, immutable, constraints), with our
own descriptions. Data only."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- AWS::EC2::VPC -----------------------------------------------------------------------------
VPC_PROPERTIES: dict[str, Any] = {
    "CidrBlock": s.prop("string", "Cidr block."),
    "Tags": s.prop(
        "list",
        "Tags.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Key.", required=True),
                    "Value": s.prop("string", "Value.", required=True),
                },
            )
        ),
    ),
}
VPC_ATTRIBUTES: dict[str, Any] = {}
VPC_SUPPORT = s.support_status(None)

# ---- AWS::EC2::Subnet --------------------------------------------------------------------------
SUBNET_PROPERTIES: dict[str, Any] = {
    "AvailabilityZone": s.prop("string", "Availability zone."),
    "CidrBlock": s.prop("string", "Cidr block.", required=True),
    "Tags": s.prop(
        "list",
        "Tags.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Key.", required=True),
                    "Value": s.prop("string", "Value.", required=True),
                },
            )
        ),
    ),
    "VpcId": s.prop("string", "Vpc id.", required=True),
}
SUBNET_ATTRIBUTES: dict[str, Any] = {
    "AvailabilityZone": s.attr("Availability zone.", "string"),
}
SUBNET_SUPPORT = s.support_status(None)

# ---- AWS::EC2::InternetGateway -----------------------------------------------------------------
INTERNET_GATEWAY_PROPERTIES: dict[str, Any] = {
    "Tags": s.prop(
        "list",
        "Tags.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Key.", required=True),
                    "Value": s.prop("string", "Value.", required=True),
                },
            )
        ),
    ),
}
INTERNET_GATEWAY_ATTRIBUTES: dict[str, Any] = {}
INTERNET_GATEWAY_SUPPORT = s.support_status(None)

# ---- AWS::EC2::VPCGatewayAttachment ------------------------------------------------------------
VPC_GATEWAY_ATTACHMENT_PROPERTIES: dict[str, Any] = {
    "InternetGatewayId": s.prop("string", "Internet gateway id."),
    "VpcId": s.prop("string", "Vpc id.", required=True),
}
VPC_GATEWAY_ATTACHMENT_ATTRIBUTES: dict[str, Any] = {}
VPC_GATEWAY_ATTACHMENT_SUPPORT = s.support_status(None)

# ---- AWS::EC2::RouteTable ----------------------------------------------------------------------
ROUTE_TABLE_PROPERTIES: dict[str, Any] = {
    "Tags": s.prop(
        "list",
        "Tags.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Key.", required=True),
                    "Value": s.prop("string", "Value.", required=True),
                },
            )
        ),
    ),
    "VpcId": s.prop("string", "Vpc id.", required=True),
}
ROUTE_TABLE_ATTRIBUTES: dict[str, Any] = {}
ROUTE_TABLE_SUPPORT = s.support_status("2014.1")

# ---- AWS::EC2::SubnetRouteTableAssociation -----------------------------------------------------
SUBNET_ROUTE_TABLE_ASSOCIATION_PROPERTIES: dict[str, Any] = {
    "RouteTableId": s.prop("string", "Route table id.", required=True),
    "SubnetId": s.prop(
        "string", "Subnet id.", required=True, constraints=[s.custom_constraint("neutron.subnet")]
    ),
}
SUBNET_ROUTE_TABLE_ASSOCIATION_ATTRIBUTES: dict[str, Any] = {}
SUBNET_ROUTE_TABLE_ASSOCIATION_SUPPORT = s.support_status(None)

# ---- AWS::EC2::NetworkInterface ----------------------------------------------------------------
NETWORK_INTERFACE_PROPERTIES: dict[str, Any] = {
    "Description": s.prop("string", "Description."),
    "GroupSet": s.prop("list", "Group set.", update_allowed=True),
    "PrivateIpAddress": s.prop("string", "Private ip address."),
    "SubnetId": s.prop(
        "string", "Subnet id.", required=True, constraints=[s.custom_constraint("neutron.subnet")]
    ),
    "Tags": s.prop(
        "list",
        "Tags.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Key.", required=True),
                    "Value": s.prop("string", "Value.", required=True),
                },
            )
        ),
    ),
}
NETWORK_INTERFACE_ATTRIBUTES: dict[str, Any] = {
    "PrivateIpAddress": s.attr("Private ip address.", "string"),
}
NETWORK_INTERFACE_SUPPORT = s.support_status(None)

# ---- Heat's implemented=False properties (shown in no schema; refused when given) ----------------
VPC_UNIMPLEMENTED: dict[str, Any] = {
    "InstanceTenancy": s.prop("string", "Instance tenancy.", default="default",
                              constraints=[s.allowed_values(["default", "dedicated"])]),
}
VPC_GATEWAY_ATTACHMENT_UNIMPLEMENTED: dict[str, Any] = {
    "VpnGatewayId": s.prop("string", "VPN gateway."),
}
NETWORK_INTERFACE_UNIMPLEMENTED: dict[str, Any] = {
    "SourceDestCheck": s.prop("boolean", "Source/destination check."),
}
