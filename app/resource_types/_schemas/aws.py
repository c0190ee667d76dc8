"""Heat 27's schemas of the aws resource types, as ``resource_types.json`` records them
(names, types, defaults, required, update_allowed, immutable, constraints), with our own
descriptions. Data only; the plugins are in ``app.resource_types.aws``."""

from __future__ import annotations

from typing import Any

from app.resource_types import schema as s

# ---- AWS::EC2::Instance ------------------------------------------------------------------------
EC2_INSTANCE_PROPERTIES: dict[str, Any] = {
    "AvailabilityZone": s.prop("string", "Availability zone."),
    "BlockDeviceMappings": s.prop(
        "list",
        "Block device mappings.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "DeviceName": s.prop("string", "Device name.", required=True),
                    "Ebs": s.prop(
                        "map",
                        "EBS volume of the mapping.",
                        schema={
                            "DeleteOnTermination": s.prop(
                                "boolean", "Delete the volume with the instance.", default=True
                            ),
                            "Iops": s.prop("number", "Provisioned IOPS (ignored)."),
                            "SnapshotId": s.prop(
                                "string",
                                "ID of the snapshot.",
                                constraints=[s.custom_constraint("cinder.snapshot")],
                            ),
                            "VolumeSize": s.prop("string", "Size of the volume in GB."),
                            "VolumeType": s.prop("string", "Volume type."),
                        },
                    ),
                    "NoDevice": s.prop("map", "Suppress the device (ignored)."),
                    "VirtualName": s.prop("string", "Virtual device name."),
                },
            )
        ),
    ),
    "ImageId": s.prop(
        "string", "Name or ID of the image.", required=True, constraints=[s.custom_constraint("glance.image")]
    ),
    "InstanceType": s.prop(
        "string",
        "Name or ID of the flavor.",
        required=True,
        update_allowed=True,
        constraints=[s.custom_constraint("nova.flavor")],
    ),
    "KeyName": s.prop("string", "Name of the key pair.", constraints=[s.custom_constraint("nova.keypair")]),
    "NetworkInterfaces": s.prop("list", "Network interfaces (port IDs).", update_allowed=True),
    "NovaSchedulerHints": s.prop(
        "list",
        "Hints for the Nova scheduler.",
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Tag key.", required=True),
                    "Value": s.prop("string", "Tag value.", required=True),
                },
            )
        ),
    ),
    "SecurityGroupIds": s.prop("list", "Security group IDs."),
    "SecurityGroups": s.prop("list", "Security group names."),
    "SubnetId": s.prop("string", "ID of the subnet.", update_allowed=True),
    "Tags": s.prop(
        "list",
        "Tags (key/value pairs).",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Tag key.", required=True),
                    "Value": s.prop("string", "Tag value.", required=True),
                },
            )
        ),
    ),
    "UserData": s.prop("string", "User data."),
    "Volumes": s.prop(
        "list",
        "Volumes to attach.",
        default=[],
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Device": s.prop("string", "Device the volume appears as.", required=True),
                    "VolumeId": s.prop(
                        "string",
                        "ID of the volume.",
                        required=True,
                        constraints=[s.custom_constraint("cinder.volume")],
                    ),
                },
            )
        ),
    ),
}
EC2_INSTANCE_ATTRIBUTES: dict[str, Any] = {
    "AvailabilityZone": s.attr("Availability zone.", "string"),
    "PrivateDnsName": s.attr("Private DNS name (the private IP).", "string"),
    "PrivateIp": s.attr("Private IP.", "string"),
    "PublicDnsName": s.attr("Public DNS name (the public IP).", "string"),
    "PublicIp": s.attr("Public IP.", "string"),
}
EC2_INSTANCE_SUPPORT = s.support_status(None)

# ---- AWS::EC2::SecurityGroup -------------------------------------------------------------------
EC2_SECURITY_GROUP_PROPERTIES: dict[str, Any] = {
    "GroupDescription": s.prop("string", "Description of the security group.", required=True),
    "SecurityGroupEgress": s.prop(
        "list",
        "Egress rules.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "CidrIp": s.prop("string", "Remote CIDR."),
                    "FromPort": s.prop("string", "Lowest port."),
                    "IpProtocol": s.prop("string", "Protocol."),
                    "SourceSecurityGroupId": s.prop("string", "Remote security group ID."),
                    "SourceSecurityGroupName": s.prop("string", "Remote security group name."),
                    "SourceSecurityGroupOwnerId": s.prop("string", "Owner of the remote security group."),
                    "ToPort": s.prop("string", "Highest port."),
                },
            )
        ),
    ),
    "SecurityGroupIngress": s.prop(
        "list",
        "Ingress rules.",
        update_allowed=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "CidrIp": s.prop("string", "Remote CIDR."),
                    "FromPort": s.prop("string", "Lowest port."),
                    "IpProtocol": s.prop("string", "Protocol."),
                    "SourceSecurityGroupId": s.prop("string", "Remote security group ID."),
                    "SourceSecurityGroupName": s.prop("string", "Remote security group name."),
                    "SourceSecurityGroupOwnerId": s.prop("string", "Owner of the remote security group."),
                    "ToPort": s.prop("string", "Highest port."),
                },
            )
        ),
    ),
    "VpcId": s.prop("string", "ID of the VPC (network)."),
}
EC2_SECURITY_GROUP_ATTRIBUTES: dict[str, Any] = {}
EC2_SECURITY_GROUP_SUPPORT = s.support_status(None)

# ---- AWS::EC2::EIP -----------------------------------------------------------------------------
EC2_EIP_PROPERTIES: dict[str, Any] = {
    "Domain": s.prop("string", "Set to vpc for a VPC address.", constraints=[s.allowed_values(["vpc"])]),
    "InstanceId": s.prop(
        "string", "ID of the instance.", update_allowed=True, constraints=[s.custom_constraint("nova.server")]
    ),
}
EC2_EIP_ATTRIBUTES: dict[str, Any] = {
    "AllocationId": s.attr("Allocation ID.", "string"),
}
EC2_EIP_SUPPORT = s.support_status(None)

# ---- AWS::EC2::EIPAssociation ------------------------------------------------------------------
EC2_EIP_ASSOCIATION_PROPERTIES: dict[str, Any] = {
    "AllocationId": s.prop("string", "Allocation ID of the address.", update_allowed=True),
    "EIP": s.prop(
        "string", "The elastic IP address.", update_allowed=True, constraints=[s.custom_constraint("ip_addr")]
    ),
    "InstanceId": s.prop(
        "string", "ID of the instance.", update_allowed=True, constraints=[s.custom_constraint("nova.server")]
    ),
    "NetworkInterfaceId": s.prop("string", "ID of the network interface (port).", update_allowed=True),
}
EC2_EIP_ASSOCIATION_ATTRIBUTES: dict[str, Any] = {}
EC2_EIP_ASSOCIATION_SUPPORT = s.support_status(None)

# ---- AWS::EC2::Volume --------------------------------------------------------------------------
EC2_VOLUME_PROPERTIES: dict[str, Any] = {
    "AvailabilityZone": s.prop("string", "Availability zone.", required=True, immutable=True),
    "Size": s.prop("integer", "Size in GB.", immutable=True, constraints=[s.value_range(min=1)]),
    "SnapshotId": s.prop(
        "string", "ID of the snapshot.", immutable=True, constraints=[s.custom_constraint("cinder.backup")]
    ),
    "Tags": s.prop(
        "list",
        "Tags (key/value pairs).",
        immutable=True,
        schema=s.list_of(
            s.prop(
                "map",
                schema={
                    "Key": s.prop("string", "Tag key.", required=True),
                    "Value": s.prop("string", "Tag value.", required=True),
                },
            )
        ),
    ),
}
EC2_VOLUME_ATTRIBUTES: dict[str, Any] = {}
EC2_VOLUME_SUPPORT = s.support_status(None)

# ---- AWS::EC2::VolumeAttachment ----------------------------------------------------------------
EC2_VOLUME_ATTACHMENT_PROPERTIES: dict[str, Any] = {
    "Device": s.prop(
        "string",
        "Device the volume appears as.",
        required=True,
        immutable=True,
        constraints=[s.allowed_pattern("/dev/vd[b-z]")],
    ),
    "InstanceId": s.prop(
        "string",
        "ID of the instance.",
        required=True,
        immutable=True,
        constraints=[s.custom_constraint("nova.server")],
    ),
    "VolumeId": s.prop(
        "string",
        "ID of the volume.",
        required=True,
        immutable=True,
        constraints=[s.custom_constraint("cinder.volume")],
    ),
}
EC2_VOLUME_ATTACHMENT_ATTRIBUTES: dict[str, Any] = {}
EC2_VOLUME_ATTACHMENT_SUPPORT = s.support_status(None)
