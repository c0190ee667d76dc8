"""AWS::EC2 VPC types as Heat maps them onto Neutron (``heat/engine/resources/aws/ec2/``).

More in docs/code/resource_types.md (app.resource_types.aws_vpc).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import CloudResource
from app.resource_types._dependencies import StackView, ref_of
from app.resource_types._schemas import aws_vpc as sch
from app.resource_types.base import Resource


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(...)``, a 404 ignored (Heat's ``ignore_not_found``)."""
    try:
        return fn(*args, **kwargs)
    except errors.CloudError as exc:
        if not is_not_found(exc):
            raise
        return None


def _built(obj: Any) -> bool:
    status = str(getattr(obj, "status", "") or "").upper()
    if status == "ERROR":
        raise errors.StokerError(f"Went to status {status} due to \"Unknown\"",
                                 heat_type="ResourceInError")
    return status in ("ACTIVE", "DOWN", "")


def router_for_vpc(net: Any, network_id: str) -> Any:
    """The VPC's router: the one named as its network (Heat's ``router_for_vpc``); ``None``."""
    network = net.get_network(network_id)
    routers = list(net.routers(name=network.name))
    if len(routers) > 1:
        raise errors.StokerError(f"Multiple routers found with name {network.name}")
    return routers[0] if routers else None


def _external_network(net: Any) -> str:
    found = list(net.networks(**{"router:external": True}))
    if len(found) != 1:
        raise errors.StokerError(f"Expected 1 external network, found {len(found)}")
    return str(found[0].id)


def _vpc_mark(vpc_id: str) -> str:
    return f"AWS::EC2::RouteTable of VPC {vpc_id}"


class VPC(CloudResource):
    """A Neutron network and its router."""

    type_name = "AWS::EC2::VPC"
    support_status = sch.VPC_SUPPORT
    properties_schema = sch.VPC_PROPERTIES
    attributes_schema = sch.VPC_ATTRIBUTES
    unimplemented_properties: ClassVar[dict[str, Any]] = sch.VPC_UNIMPLEMENTED

    def handle_create(self) -> None:
        net = self.cloud().network
        name = self.physical_resource_name()
        self.resource_id = str(net.create_network(name=name).id)
        net.create_router(name=name)

    def check_create_complete(self, handle: Any) -> bool:
        net = self.cloud().network
        if not _built(net.get_network(self.resource_id)):
            return False
        router = router_for_vpc(net, str(self.resource_id))
        return router is not None and _built(router)

    def _fetch(self) -> Any:
        return self.cloud().network.get_network(self.resource_id)

    def _delete(self) -> None:
        net = self.cloud().network
        router = _quiet(router_for_vpc, net, str(self.resource_id))
        if router is not None:
            _quiet(net.delete_router, router.id, ignore_missing=False)
        net.delete_network(self.resource_id, ignore_missing=False)


class Subnet(CloudResource):
    """A subnet of the VPC, on the VPC's router."""

    type_name = "AWS::EC2::Subnet"
    support_status = sch.SUBNET_SUPPORT
    properties_schema = sch.SUBNET_PROPERTIES
    attributes_schema = sch.SUBNET_ATTRIBUTES

    def handle_create(self) -> None:
        net = self.cloud().network
        vpc = str(self.properties["VpcId"])
        subnet = net.create_subnet(network_id=vpc, cidr=self.properties["CidrBlock"],
                                   name=self.physical_resource_name(), ip_version=4)
        self.resource_id = str(subnet.id)
        router = router_for_vpc(net, vpc)
        if router is not None:
            net.add_interface_to_router(router, subnet_id=subnet.id)

    def _fetch(self) -> Any:
        return self.cloud().network.get_subnet(self.resource_id)

    def _delete(self) -> None:
        net = self.cloud().network
        router = _quiet(router_for_vpc, net, str(self.properties["VpcId"]))
        if router is not None:
            _quiet(net.remove_interface_from_router, router, subnet_id=self.resource_id)
        net.delete_subnet(self.resource_id, ignore_missing=False)

    def _resolve_attribute(self, name: str) -> Any:
        return self.properties.get("AvailabilityZone") if name == "AvailabilityZone" else None


class InternetGateway(CloudResource):
    """Nothing in the cloud: the VPCGatewayAttachment does the work."""

    type_name = "AWS::EC2::InternetGateway"
    support_status = sch.INTERNET_GATEWAY_SUPPORT
    properties_schema = sch.INTERNET_GATEWAY_PROPERTIES
    attributes_schema = sch.INTERNET_GATEWAY_ATTRIBUTES

    def handle_create(self) -> None:
        self.resource_id = self.physical_resource_name()

    def handle_delete(self) -> None:
        return None

    def show_resource(self) -> dict[str, Any] | None:
        return None


class VPCGatewayAttachment(CloudResource):
    """The external network as the gateway of the VPC's route tables."""

    type_name = "AWS::EC2::VPCGatewayAttachment"
    support_status = sch.VPC_GATEWAY_ATTACHMENT_SUPPORT
    properties_schema = sch.VPC_GATEWAY_ATTACHMENT_PROPERTIES
    attributes_schema = sch.VPC_GATEWAY_ATTACHMENT_ATTRIBUTES
    unimplemented_properties: ClassVar[dict[str, Any]] = sch.VPC_GATEWAY_ATTACHMENT_UNIMPLEMENTED

    @classmethod
    def implicit_requirements(cls, name: str, view: StackView) -> set[str]:
        """Heat's add_dependencies: the RouteTables of the same VpcId."""
        vpc = ref_of(view.prop(name, "VpcId"))
        return {rt for rt in view.of_type("AWS::EC2::RouteTable")
                if vpc is not None and ref_of(view.prop(rt, "VpcId")) == vpc}

    def _route_tables(self) -> list[Any]:
        net = self.cloud().network
        return list(net.routers(description=_vpc_mark(str(self.properties["VpcId"]))))

    def handle_create(self) -> None:
        net = self.cloud().network
        external = _external_network(net)
        for router in self._route_tables():
            net.update_router(router, external_gateway_info={"network_id": external})
        self.resource_id = self.physical_resource_name()

    def handle_delete(self) -> None:
        if not self.resource_id:
            return
        net = self.cloud().network
        for router in self._route_tables():
            _quiet(net.update_router, router, external_gateway_info={})

    def show_resource(self) -> dict[str, Any] | None:
        return None


class RouteTable(CloudResource):
    """A router for the VPC's subnets that an association moves onto it."""

    type_name = "AWS::EC2::RouteTable"
    support_status = sch.ROUTE_TABLE_SUPPORT
    properties_schema = sch.ROUTE_TABLE_PROPERTIES
    attributes_schema = sch.ROUTE_TABLE_ATTRIBUTES

    def handle_create(self) -> None:
        router = self.cloud().network.create_router(
            name=self.physical_resource_name(),
            description=_vpc_mark(str(self.properties["VpcId"])))
        self.resource_id = str(router.id)

    def check_create_complete(self, handle: Any) -> bool:
        net = self.cloud().network
        if not _built(net.get_router(self.resource_id)):
            return False
        default = router_for_vpc(net, str(self.properties["VpcId"]))
        gateway = getattr(default, "external_gateway_info", None) if default else None
        if gateway and gateway.get("network_id"):
            net.update_router(self.resource_id,
                              external_gateway_info={"network_id": gateway["network_id"]})
        return True

    def _fetch(self) -> Any:
        return self.cloud().network.get_router(self.resource_id)

    def _delete(self) -> None:
        net = self.cloud().network
        _quiet(net.update_router, self.resource_id, external_gateway_info={})
        net.delete_router(self.resource_id, ignore_missing=False)


class SubnetRouteTableAssociation(CloudResource):
    """The subnet moved from the VPC's router to the route table's."""

    type_name = "AWS::EC2::SubnetRouteTableAssociation"
    support_status = sch.SUBNET_ROUTE_TABLE_ASSOCIATION_SUPPORT
    properties_schema = sch.SUBNET_ROUTE_TABLE_ASSOCIATION_PROPERTIES
    attributes_schema = sch.SUBNET_ROUTE_TABLE_ASSOCIATION_ATTRIBUTES

    def _subnet(self) -> str:
        return str(self.resolve("neutron.subnet", self.properties["SubnetId"]))

    def _default_router(self) -> Any:
        net = self.cloud().network
        subnet = net.get_subnet(self._subnet())
        return router_for_vpc(net, str(subnet.network_id))

    def handle_create(self) -> None:
        net = self.cloud().network
        subnet = self._subnet()
        previous = _quiet(self._default_router)
        if previous is not None:
            _quiet(net.remove_interface_from_router, previous, subnet_id=subnet)
        net.add_interface_to_router(str(self.properties["RouteTableId"]), subnet_id=subnet)
        self.resource_id = self.physical_resource_name()

    def handle_delete(self) -> None:
        if not self.resource_id:
            return
        net = self.cloud().network
        subnet = _quiet(self._subnet)
        if subnet is None:
            return
        _quiet(net.remove_interface_from_router, str(self.properties["RouteTableId"]),
               subnet_id=subnet)
        default = _quiet(self._default_router)
        if default is not None:
            _quiet(net.add_interface_to_router, default, subnet_id=subnet)

    def show_resource(self) -> dict[str, Any] | None:
        return None


class NetworkInterface(CloudResource):
    """A port on ``SubnetId``'s network."""

    type_name = "AWS::EC2::NetworkInterface"
    support_status = sch.NETWORK_INTERFACE_SUPPORT
    properties_schema = sch.NETWORK_INTERFACE_PROPERTIES
    attributes_schema = sch.NETWORK_INTERFACE_ATTRIBUTES
    unimplemented_properties: ClassVar[dict[str, Any]] = sch.NETWORK_INTERFACE_UNIMPLEMENTED
    attribute_keys: ClassVar[dict[str, str]] = {}

    def _groups(self, names: Any) -> list[str]:
        return [str(self.resolve("neutron.security_group", g)) for g in names or []]

    def handle_create(self) -> None:
        p = self.properties
        net = self.cloud().network
        subnet = str(self.resolve("neutron.subnet", p["SubnetId"]))
        fixed: dict[str, Any] = {"subnet_id": subnet}
        if p.get("PrivateIpAddress"):
            fixed["ip_address"] = p["PrivateIpAddress"]
        attrs: dict[str, Any] = {"name": self.physical_resource_name(), "admin_state_up": True,
                                 "network_id": net.get_subnet(subnet).network_id,
                                 "fixed_ips": [fixed]}
        if p.get("GroupSet") is not None:
            attrs["security_group_ids"] = self._groups(p["GroupSet"])
        self.resource_id = str(net.create_port(**attrs).id)

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``GroupSet`` in place (none given: the project's default group, as Heat)."""
        self.check_replace(changed, new_properties)
        self.properties = dict(new_properties)
        if "GroupSet" in changed:
            groups = self.properties.get("GroupSet")
            ids = self._groups(groups if groups is not None else ["default"])
            self.cloud().network.update_port(self.resource_id, security_group_ids=ids)
            self.refresh()

    def _fetch(self) -> Any:
        return self.cloud().network.get_port(self.resource_id)

    def _delete(self) -> None:
        self.cloud().network.delete_port(self.resource_id, ignore_missing=False)

    def _resolve_attribute(self, name: str) -> Any:
        if name == "PrivateIpAddress":
            ips = (self.show_resource() or {}).get("fixed_ips") or []
            return ips[0].get("ip_address") if ips else None
        return None


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    return {cls.type_name: cls for cls in (VPC, Subnet, InternetGateway, VPCGatewayAttachment,
                                           RouteTable, SubnetRouteTableAssociation,
                                           NetworkInterface)}
