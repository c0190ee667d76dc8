"""Neutron service function chaining, L2 gateway, network gateway and tap-as-a-service
resource types: FlowClassifier, PortPair, PortPairGroup, PortChain, L2Gateway,
L2GatewayConnection, NetworkGateway, TaaS::TapService and TaaS::TapFlow (Heat 27,
``neutron/sfc/``, ``neutron/l2_gateway*.py``, ``neutron/network_gateway.py``, ``neutron/taas/``),
on :class:`NeutronExtResource`.

As Heat: names of ports, port pairs, groups, classifiers and tap services are resolved to ids;
null values are dropped at every level of an L2 gateway's ``devices``; a network gateway's
``connections`` are connected after the create and disconnected before the delete, a change of
its ``devices`` recreates it in place and a change of its connections reconnects them; tap
services and flows are complete once ``ACTIVE``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from app import errors
from app.clients import is_not_found
from app.resource_types._cloud import UNLISTED_DESCRIPTION
from app.resource_types._neutron_ext import NeutronExtResource
from app.resource_types._schemas import neutron_svc as sch
from app.resource_types.base import Resource


class FlowClassifier(NeutronExtResource):
    """The flows a port chain steers (logical ports resolved)."""

    type_name = "OS::Neutron::FlowClassifier"
    support_status = sch.FLOW_CLASSIFIER_SUPPORT
    properties_schema = sch.FLOW_CLASSIFIER_PROPERTIES
    attributes_schema = sch.FLOW_CLASSIFIER_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/sfc/flow_classifiers", "flow_classifier", "flow_classifiers", "sfc"
    lookups = {"logical_source_port": "neutron.port", "logical_destination_port": "neutron.port"}


class PortPair(NeutronExtResource):
    """A service function's ``ingress`` and ``egress`` ports."""

    type_name = "OS::Neutron::PortPair"
    support_status = sch.PORT_PAIR_SUPPORT
    properties_schema = sch.PORT_PAIR_PROPERTIES
    attributes_schema = sch.PORT_PAIR_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/sfc/port_pairs", "port_pair", "port_pairs", "sfc"
    lookups = {"ingress": "neutron.port", "egress": "neutron.port"}


class PortPairGroup(NeutronExtResource):
    """Port pairs serving one hop of a chain."""

    type_name = "OS::Neutron::PortPairGroup"
    support_status = sch.PORT_PAIR_GROUP_SUPPORT
    properties_schema = sch.PORT_PAIR_GROUP_PROPERTIES
    attributes_schema = sch.PORT_PAIR_GROUP_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/sfc/port_pair_groups", "port_pair_group", "port_pair_groups", "sfc"
    lookups = {"port_pairs": "neutron.port_pair"}


class PortChain(NeutronExtResource):
    """A chain of port pair groups the classified flows go through."""

    type_name = "OS::Neutron::PortChain"
    support_status = sch.PORT_CHAIN_SUPPORT
    properties_schema = sch.PORT_CHAIN_PROPERTIES
    attributes_schema = sch.PORT_CHAIN_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/sfc/port_chains", "port_chain", "port_chains", "sfc"
    lookups = {"port_pair_groups": "neutron.port_pair_group", "flow_classifiers": "neutron.flow_classifier"}


def _no_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value if v is not None]
    return value


class L2Gateway(NeutronExtResource):
    """An L2 gateway of ``devices`` and their interfaces (admin in networking-l2gw)."""

    type_name = "OS::Neutron::L2Gateway"
    support_status = sch.L2_GATEWAY_SUPPORT
    properties_schema = sch.L2_GATEWAY_PROPERTIES
    attributes_schema = sch.L2_GATEWAY_ATTRIBUTES
    path, key, plural, extension = "/l2-gateways", "l2_gateway", "l2_gateways", "l2-gateway"

    def api_body(self, props: Mapping[str, Any], keys: Iterable[str] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = _no_nulls(super().api_body(props, keys))
        return out


class L2GatewayConnection(NeutronExtResource):
    """Connects ``network_id`` to an L2 gateway; any change replaces it."""

    type_name = "OS::Neutron::L2GatewayConnection"
    support_status = sch.L2_GATEWAY_CONNECTION_SUPPORT
    properties_schema = sch.L2_GATEWAY_CONNECTION_PROPERTIES
    attributes_schema = sch.L2_GATEWAY_CONNECTION_ATTRIBUTES
    path, key, extension = "/l2-gateway-connections", "l2_gateway_connection", "l2-gateway-connection"
    lookups = {"network_id": "neutron.network"}


class NetworkGateway(NeutronExtResource):
    """A network gateway of ``devices``, with networks connected through it."""

    type_name = "OS::Neutron::NetworkGateway"
    support_status = sch.NETWORK_GATEWAY_SUPPORT
    properties_schema = sch.NETWORK_GATEWAY_PROPERTIES
    attributes_schema = sch.NETWORK_GATEWAY_ATTRIBUTES
    path, key, plural = "/network-gateways", "network_gateway", "network_gateways"
    omit = frozenset({"connections"})

    def validate(self) -> None:
        """:raises errors.ValidationError: Heat's segmentation rules of a connection."""
        for conn in self.properties.get("connections") or []:
            kind, seg = conn.get("segmentation_type"), conn.get("segmentation_id")
            if kind == "vlan" and seg is None:
                raise errors.ValidationError("segmentation_id must be specified for using vlan")
            if kind == "flat" and seg:
                raise errors.ValidationError("segmentation_id cannot be specified except 0 for using flat")
        super().validate()

    def _connection(self, conn: Mapping[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in conn.items() if v is not None and k != "network"}
        out["network_id"] = self.resolve("neutron.network", conn.get("network") or conn.get("network_id"))
        return out

    def _connect(self, conns: list[Mapping[str, Any]], action: str) -> None:
        for conn in conns:
            try:
                self.call("PUT", f"{self.url(self.resource_id)}/{action}_network", self._connection(conn))
            except errors.CloudError as exc:
                if action == "connect" or not is_not_found(exc):
                    raise

    def handle_create(self) -> None:
        super().handle_create()
        self._connect(list(self.properties.get("connections") or []), "connect")

    def handle_update(self, new_properties: Mapping[str, Any], changed: Mapping[str, Any]) -> None:
        """``devices`` changed: deleted and created again; ``connections``: reconnected (Heat)."""
        self.check_replace(changed, new_properties)
        old = list(self.properties.get("connections") or [])
        if "devices" in changed:
            self._connect(old, "disconnect")
            self._delete()
            self.properties = dict(new_properties)
            self.resource_id = None
            self.create_object(self.api_body(self.properties))
            self._connect(list(self.properties.get("connections") or []), "connect")
            return
        self.properties = dict(new_properties)
        self.update_object(self.api_body(self.properties, [k for k in changed if k != "connections"]))
        if "connections" in changed:
            self._connect(old, "disconnect")
            self._connect(list(self.properties.get("connections") or []), "connect")

    def _delete(self) -> None:
        self._connect(list(self.properties.get("connections") or []), "disconnect")
        super()._delete()


class TapService(NeutronExtResource):
    """A tap service sending mirrored traffic to ``port``; complete once ``ACTIVE``."""

    type_name = "OS::Neutron::TaaS::TapService"
    support_status = sch.TAP_SERVICE_SUPPORT
    properties_schema = sch.TAP_SERVICE_PROPERTIES
    attributes_schema = sch.TAP_SERVICE_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/taas/tap_services", "tap_service", "tap_services", "taas"
    renames = {"port": "port_id"}
    lookups = {"port": "neutron.port"}
    built = ("ACTIVE",)


class TapFlow(NeutronExtResource):
    """Mirrors ``port``'s traffic to ``tap_service``; complete once ``ACTIVE``."""

    type_name = "OS::Neutron::TaaS::TapFlow"
    support_status = sch.TAP_FLOW_SUPPORT
    properties_schema = sch.TAP_FLOW_PROPERTIES
    attributes_schema = sch.TAP_FLOW_ATTRIBUTES
    unlisted_properties = UNLISTED_DESCRIPTION
    path, key, plural, extension = "/taas/tap_flows", "tap_flow", "tap_flows", "taas"
    renames = {"port": "source_port", "tap_service": "tap_service_id"}
    lookups = {"port": "neutron.port", "tap_service": "neutron.taas.tap_service"}
    built = ("ACTIVE",)


def resource_mapping() -> dict[str, type[Resource]]:
    """This module's types, for :mod:`app.resource_types.registry`."""
    classes: tuple[type[Resource], ...] = (FlowClassifier, PortPair, PortPairGroup, PortChain, L2Gateway,
                                           L2GatewayConnection, NetworkGateway, TapService, TapFlow)
    return {cls.type_name: cls for cls in classes}
