"""The CloudFormation-compatible EC2 types, on the same clouds as Heat maps them
(``heat/engine/resources/aws/ec2/``).

More in docs/code/resource_types.md (app.resource_types.aws).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import cloud_error, is_not_found
from app.resource_types import cinder, neutron_l3, neutron_sg, nova
from app.resource_types._cloud import CloudResource
from app.resource_types._schemas import aws as sch
from app.resource_types.base import Resource


def _pairs(items: Any) -> dict[str, str]:
    return {str(i["Key"]): str(i["Value"]) for i in items or [] if i.get("Key") is not None}


class Instance(CloudResource):
    """An EC2 instance as a Nova server (a :class:`nova.Server` does the work)."""

    type_name = "AWS::EC2::Instance"
    support_status = sch.EC2_INSTANCE_SUPPORT
    properties_schema = sch.EC2_INSTANCE_PROPERTIES
    attributes_schema = sch.EC2_INSTANCE_ATTRIBUTES
    poll_initial: ClassVar[float] = 0.1

    def server_properties(self) -> dict[str, Any]:
        """OS::Nova::Server properties for these EC2 properties (Heat's mapping)."""
        p = self.properties
        props: dict[str, Any] = {"image": p.get("ImageId"), "flavor": p.get("InstanceType"),
                                 "key_name": p.get("KeyName"),
                                 "availability_zone": p.get("AvailabilityZone"),
                                 "user_data": p.get("UserData") or "",
                                 "user_data_format": "HEAT_CFNTOOLS",
                                 "metadata": _pairs(p.get("Tags")),
                                 "scheduler_hints": _pairs(p.get("NovaSchedulerHints")) or None}
        groups = list(p.get("SecurityGroups") or []) + list(p.get("SecurityGroupIds") or [])
        if groups:
            props["security_groups"] = groups
        if p.get("NetworkInterfaces"):
            props["networks"] = [{"port": n.get("NetworkInterfaceId") if isinstance(n, dict)
                                  else n} for n in p["NetworkInterfaces"]]
        elif p.get("SubnetId"):
            props["networks"] = [{"subnet": p["SubnetId"]}]
        bdm = []
        for m in p.get("BlockDeviceMappings") or []:
            ebs = m.get("Ebs") or {}
            if ebs.get("SnapshotId"):
                bdm.append({"device_name": m.get("DeviceName"), "snapshot_id": ebs["SnapshotId"],
                            "volume_size": ebs.get("VolumeSize"),
                            "delete_on_termination": ebs.get("DeleteOnTermination")})
        if bdm:
            props["block_device_mapping"] = bdm
        return props

    def _server(self) -> nova.Server:
        return nova.Server(self.name, self.server_properties(), resource_id=self.resource_id,
                           data=self.data, stack=self.stack, clients=self.clients, uuid=self.uuid)

    def handle_create(self) -> None:
        server = self._server()
        server.handle_create()
        self.resource_id = server.resource_id

    def check_create_complete(self, handle: Any) -> bool:
        """The server ACTIVE, then each of ``Volumes`` attached and ``in-use``."""
        if not self.data.get("server_active"):
            if not self._server().check_create_complete(handle):
                return False
            self.data["server_active"] = True
        attached = self.data.setdefault("volumes", [])
        cloud = self.cloud()
        for vol in self.properties.get("Volumes") or []:
            volume_id = self.resolve("cinder.volume", vol["VolumeId"])
            if volume_id not in attached:
                cloud.compute.create_volume_attachment(self.resource_id, volume_id=volume_id,
                                                       device=vol.get("Device"))
                attached.append(volume_id)
        for volume_id in attached:
            if str(cloud.block_storage.get_volume(volume_id).status).lower() != "in-use":
                return False
        return True

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> Any:
        """Through the server: ``InstanceType`` resizes, ``Tags`` replace the metadata;
        ``NetworkInterfaces`` / ``SubnetId`` are not supported in place (as the server's
        ``networks``)."""
        self.check_replace(changed, new_properties)
        before = self.server_properties()
        self.properties = dict(new_properties)
        after = self.server_properties()
        server_changed = {k: v for k, v in after.items() if before.get(k) != v}
        return self._server().handle_update(after, server_changed)

    def check_update_complete(self, handle: Any) -> bool:
        return self._server().check_update_complete(handle)

    def handle_delete(self) -> Any:
        """Detach ``Volumes`` (already detached or gone is fine), then delete the server."""
        for volume_id in self.data.get("volumes") or []:
            try:
                self.cloud().compute.delete_volume_attachment(self.resource_id, volume_id)
            except errors.CloudError as exc:
                if not is_not_found(exc):
                    raise
        self.data["volumes"] = []
        return self._server().handle_delete()

    def check_delete_complete(self, handle: Any) -> bool:
        return self._server().check_delete_complete(handle)

    def _fetch(self) -> Any:
        return self._server()._fetch()

    def _first_ip(self) -> str | None:
        shown = self.show_resource() or {}
        for addrs in (shown.get("addresses") or {}).values():
            for a in addrs:
                if a.get("addr"):
                    return str(a["addr"])
        return None

    def _resolve_attribute(self, name: str) -> Any:
        if name == "AvailabilityZone":
            return (self.show_resource() or {}).get("OS-EXT-AZ:availability_zone")
        if name in ("PrivateDnsName", "PrivateIp", "PublicDnsName", "PublicIp"):
            return self._first_ip()
        return None


# ---- security groups ----------------------------------------------------------------------------
def _rule(rule: dict[str, Any], direction: str, resolve: Any) -> dict[str, Any]:
    """A Heat (Neutron) rule map for one EC2 rule, as Heat's ``NeutronSecurityGroup``."""
    out: dict[str, Any] = {"direction": direction, "ethertype": "IPv4"}
    proto = rule.get("IpProtocol")
    if proto not in (None, "-1", -1):
        out["protocol"] = str(proto)
    for key, api in (("FromPort", "port_range_min"), ("ToPort", "port_range_max")):
        value = rule.get(key)
        if value not in (None, "", "-1", -1):
            out[api] = int(value)
    source = rule.get("SourceSecurityGroupId") or rule.get("SourceSecurityGroupName")
    if source:
        out["remote_mode"] = "remote_group_id"
        out["remote_group_id"] = resolve(source)
    else:
        out["remote_ip_prefix"] = rule.get("CidrIp") or "0.0.0.0/0"
    return out


class SecurityGroup(neutron_sg.SecurityGroup):
    """An EC2 security group as a Neutron one."""

    type_name = "AWS::EC2::SecurityGroup"
    support_status = sch.EC2_SECURITY_GROUP_SUPPORT
    properties_schema = sch.EC2_SECURITY_GROUP_PROPERTIES
    attributes_schema = sch.EC2_SECURITY_GROUP_ATTRIBUTES

    def handle_create(self) -> None:
        p = self.properties
        group = self._create({"name": self.physical_resource_name(),
                              "description": p.get("GroupDescription") or ""})
        self.create_rules(group.id, self._rules())

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """New ingress / egress rules replace all the group's rules."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        self.replace_rules(self._rules())
        self.refresh()

    def _rules(self) -> list[dict[str, Any]]:
        p = self.properties

        def resolve(value: str) -> str:
            return self.resolve("neutron.security_group", value) or value
        rules = [_rule(r, "ingress", resolve) for r in p.get("SecurityGroupIngress") or []]
        return rules + [_rule(r, "egress", resolve) for r in p.get("SecurityGroupEgress") or []]

    def get_reference_id(self) -> str:
        """The group's name (what ``SecurityGroups`` of an instance takes), the id in a VPC."""
        if self.properties.get("VpcId") or self.resource_id is None:
            return super().get_reference_id()
        return self.physical_resource_name()


# ---- elastic IPs --------------------------------------------------------------------------------
def first_port(resource: CloudResource, server_id: str | None) -> str:
    """The first Neutron port of server ``server_id`` (Heat associates EIPs with it)."""
    ports = resource.cloud().network.ports(device_id=server_id)
    if not ports:
        raise cloud_error(f"The server ({server_id}) has no port to associate an address with.",
                          404)
    return str(min(ports, key=lambda p: p.created_at or "").id)


class EIP(neutron_l3.FloatingIP):
    """A floating IP on the cloud's external network. Reference id: the address."""

    type_name = "AWS::EC2::EIP"
    support_status = sch.EC2_EIP_SUPPORT
    properties_schema = sch.EC2_EIP_PROPERTIES
    attributes_schema = sch.EC2_EIP_ATTRIBUTES
    hidden_properties: ClassVar[dict[str, str]] = {}

    def handle_create(self) -> None:
        net = self.cloud().network
        external = [n for n in net.networks(**{"router:external": True})]
        if len(external) != 1:
            raise errors.StokerError(f"Expected 1 external network, found {len(external)}",
                                     heat_type="Error")
        fip = self._create({"floating_network_id": external[0].id})
        self.data["address"] = fip.floating_ip_address
        if self.properties.get("InstanceId"):
            port = first_port(self, self.resolve("nova.server", self.properties["InstanceId"]))
            self.data["associate"] = {"port_id": port}    # done by the check

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """A new ``InstanceId`` moves the address to that server's first port (none: released
        from its port)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        server = self.properties.get("InstanceId")
        port = first_port(self, self.resolve("nova.server", server)) if server else None
        self.cloud().network.update_ip(self.resource_id, port_id=port)
        self.refresh()

    def check_update_complete(self, handle: Any) -> bool:
        return True

    def get_reference_id(self) -> str:
        return str(self.data.get("address") or self.name)

    def _resolve_attribute(self, name: str) -> Any:
        return str(self.resource_id) if name == "AllocationId" and self.resource_id else None


class EIPAssociation(CloudResource):
    """Associates an EIP with an instance's first port or a network interface."""

    type_name = "AWS::EC2::EIPAssociation"
    support_status = sch.EC2_EIP_ASSOCIATION_SUPPORT
    properties_schema = sch.EC2_EIP_ASSOCIATION_PROPERTIES
    attributes_schema = sch.EC2_EIP_ASSOCIATION_ATTRIBUTES

    def validate(self) -> None:
        """:raises errors.ValidationError: neither ``EIP`` nor ``AllocationId``, or no target."""
        p = self.properties
        if bool(p.get("EIP")) == bool(p.get("AllocationId")):
            raise errors.ValidationError("Either 'EIP' or 'AllocationId' must be provided.")
        if not (p.get("InstanceId") or p.get("NetworkInterfaceId")):
            raise errors.ValidationError(
                "Must specify 'InstanceId' if you specify 'EIP'." if p.get("EIP") else
                "Must specify at least one of 'InstanceId' or 'NetworkInterfaceId'.")
        super().validate()

    def handle_create(self) -> None:
        p = self.properties
        net = self.cloud().network
        if p.get("AllocationId"):
            fip_id = str(p["AllocationId"])
        else:
            found = list(net.ips(floating_ip_address=p["EIP"]))
            if not found:
                raise cloud_error(f"No floating IP {p['EIP']} in this project.", 404)
            fip_id = str(found[0].id)
        if p.get("NetworkInterfaceId"):
            port = self.resolve("neutron.port", p["NetworkInterfaceId"])
        else:
            port = first_port(self, self.resolve("nova.server", p["InstanceId"]))
        self.data["floatingip_id"] = fip_id
        self.data["associate"] = {"port_id": port}
        self.resource_id = self.physical_resource_name()

    def check_create_complete(self, handle: Any) -> bool:
        """Associated; Neutron's refusal (e.g. the port's subnet not routed to the external
        network) fails the resource at once, as in Heat."""
        wanted = self.data.get("associate")
        if wanted:
            neutron_l3.associate(self, self.data["floatingip_id"], wanted)
        self.data.pop("associate", None)
        return True

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """Disassociate, then associate as the new properties say."""
        self.check_replace(changed, new_properties)
        try:
            self._delete()
        except errors.CloudError as exc:
            if not is_not_found(exc):
                raise
        self.properties = dict(new_properties)
        resource_id = self.resource_id
        self.handle_create()
        self.resource_id = resource_id

    def check_update_complete(self, handle: Any) -> bool:
        return self.check_create_complete(handle)

    def _fetch(self) -> Any:
        return self.cloud().network.get_ip(self.data.get("floatingip_id"))

    def _delete(self) -> None:
        if self.data.get("floatingip_id"):
            self.cloud().network.update_ip(self.data["floatingip_id"], port_id=None)

    def _gone(self) -> bool:
        return True

    def show_resource(self) -> dict[str, Any] | None:
        return None


# ---- volumes ------------------------------------------------------------------------------------
class Volume(cinder.Volume):
    """An EC2 volume as a Cinder volume (``Tags`` become its metadata)."""

    type_name = "AWS::EC2::Volume"
    support_status = sch.EC2_VOLUME_SUPPORT
    properties_schema = sch.EC2_VOLUME_PROPERTIES
    attributes_schema = sch.EC2_VOLUME_ATTRIBUTES

    def check_create_sources(self) -> None:
        """Heat's AWS volume has no such check (its ``Size`` is its own schema's matter)."""

    def handle_create(self) -> None:
        p = self.properties
        props = {"size": p.get("Size"), "availability_zone": p.get("AvailabilityZone"),
                 "backup_id": p.get("SnapshotId"), "metadata": _pairs(p.get("Tags"))}
        delegate = cinder.Volume(self.name, props, data=self.data, stack=self.stack,
                                 clients=self.clients, uuid=self.uuid)
        delegate.handle_create()
        self.resource_id = delegate.resource_id

    def _resolve_attribute(self, name: str) -> Any:
        return None


class VolumeAttachment(cinder.VolumeAttachment):
    """An EC2 volume attachment (Nova's os-volume_attachments)."""

    type_name = "AWS::EC2::VolumeAttachment"
    support_status = sch.EC2_VOLUME_ATTACHMENT_SUPPORT
    properties_schema = sch.EC2_VOLUME_ATTACHMENT_PROPERTIES
    attributes_schema = sch.EC2_VOLUME_ATTACHMENT_ATTRIBUTES
    server_prop = "InstanceId"
    volume_prop = "VolumeId"
    device_prop = "Device"


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (Instance, SecurityGroup, EIP, EIPAssociation, Volume,
                                           VolumeAttachment)
    return {cls.type_name: cls for cls in classes}
