"""The sandbox Neutron's service function chaining (``sfc``: ``/sfc/port_pairs``,
``/sfc/port_pair_groups``, ``/sfc/flow_classifiers``, ``/sfc/port_chains``), L2 gateways
(``l2-gateway``: ``/l2-gateways``, ``/l2-gateway-connections``, admin-only as networking-l2gw's
policy), network gateways (``network-gateway``: ``/network-gateways`` with its
``connect_network`` / ``disconnect_network`` actions) and tap-as-a-service (``taas``:
``/taas/tap_services``, ``/taas/tap_flows``, ``PENDING_CREATE`` then ``ACTIVE`` after the
``taas_create`` delay; deleting a tap service deletes its flows, as TaaS does).

What a chain, group or gateway connection uses cannot be deleted (409 ``PortPairInUse``,
``PortPairGroupInUse``, ``FlowClassifierInUse``, ``L2GatewayInUse``, ``GatewayInUse``), nor used
twice (a port pair in two groups, a group or classifier in two chains).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox.http import SandboxError, body, reply
from app.sandbox.network_bodies import bad_request
from app.sandbox.network_ext import REQUIRED, Coll, find_ref, get, in_use_by, ip_prefix_or_none, register
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_sfc", __name__)


def _used_elsewhere(collection: str, field: str, obj: Obj, ids: list[str], what: str, kind: str) -> None:
    for other in store().all(collection):
        if other["id"] != obj["id"]:
            for ident in ids:
                if ident in (other.get(field) or []):
                    raise SandboxError(409, f"{what} {ident} in use.", kind)


# ---- SFC -----------------------------------------------------------------------------------------
def _check_pair(new: Obj, old: Obj | None) -> None:
    if old is not None:
        return
    find_ref("ports", new["ingress"], "Port")
    find_ref("ports", new["egress"], "Port")
    for other in store().all("sfc_port_pairs"):
        if (other["ingress"], other["egress"]) == (new["ingress"], new["egress"]):
            raise SandboxError(409, f"Port pair with ingress port {new['ingress']} and egress port "
                               f"{new['egress']} is already used by another port pair {other['id']}.",
                               "PortPairIngressEgressInUse")
    new["service_function_parameters"] = {"correlation": None, "weight": 1,
                                          **(new.get("service_function_parameters") or {})}


PORT_PAIRS = Coll("sfc_port_pairs", "/sfc/port_pairs", "port_pair", "Port Pair",
                  {"ingress": REQUIRED, "egress": REQUIRED, "service_function_parameters": {}},
                  check=_check_pair, in_use=in_use_by("sfc_port_pair_groups", "port_pairs",
                                                      "Port Pair {id} in use.", "PortPairInUse", many=True))


def _check_group(new: Obj, old: Obj | None) -> None:
    pairs = list(new.get("port_pairs") or [])
    for pair in pairs:
        find_ref("sfc_port_pairs", pair, "Port Pair")
    _used_elsewhere("sfc_port_pair_groups", "port_pairs", new, pairs, "Port Pair", "PortPairInUse")
    new["port_pairs"] = pairs
    if old is None:
        new["group_id"] = len(store().all("sfc_port_pair_groups")) + 1
        new["port_pair_group_parameters"] = {"lb_fields": [], "ppg_n_tuple_mapping": {
            "ingress_n_tuple": {}, "egress_n_tuple": {}}, **(new.get("port_pair_group_parameters") or {})}


PORT_PAIR_GROUPS = Coll("sfc_port_pair_groups", "/sfc/port_pair_groups", "port_pair_group", "Port Pair Group",
                        {"port_pairs": [], "port_pair_group_parameters": {}, "tap_enabled": False},
                        updatable=("name", "description", "port_pairs"), check=_check_group,
                        in_use=in_use_by("sfc_port_chains", "port_pair_groups", "Port Pair Group {id} in use.",
                                         "PortPairGroupInUse", many=True))


def _check_classifier(new: Obj, old: Obj | None) -> None:
    if old is not None:
        return
    for key in ("logical_source_port", "logical_destination_port"):
        if new.get(key):
            find_ref("ports", new[key], "Port")
    if new["ethertype"] not in ("IPv4", "IPv6"):
        raise bad_request(f"Invalid input for ethertype. Reason: '{new['ethertype']}' is not in ['IPv4', 'IPv6'].")
    for key in ("source_ip_prefix", "destination_ip_prefix"):
        new[key] = ip_prefix_or_none(key, new.get(key))
    for side in ("source", "destination"):
        low, high = new.get(f"{side}_port_range_min"), new.get(f"{side}_port_range_max")
        if low is not None and high is not None and int(low) > int(high):
            raise bad_request(f"Invalid input for operation: {side} port range {low}-{high} is not valid.")


FLOW_CLASSIFIERS = Coll("sfc_flow_classifiers", "/sfc/flow_classifiers", "flow_classifier", "Flow Classifier",
                        {"ethertype": "IPv4", "protocol": None, "source_port_range_min": None,
                         "source_port_range_max": None, "destination_port_range_min": None,
                         "destination_port_range_max": None, "source_ip_prefix": None,
                         "destination_ip_prefix": None, "logical_source_port": None,
                         "logical_destination_port": None, "l7_parameters": {}},
                        check=_check_classifier,
                        in_use=in_use_by("sfc_port_chains", "flow_classifiers", "Flow Classifier {id} in use.",
                                         "FlowClassifierInUse", many=True))


def _check_chain(new: Obj, old: Obj | None) -> None:
    groups, classifiers = list(new.get("port_pair_groups") or []), list(new.get("flow_classifiers") or [])
    if not groups:
        raise bad_request("Invalid input for port_pair_groups. Reason: the chain needs a port pair group.")
    for group in groups:
        find_ref("sfc_port_pair_groups", group, "Port Pair Group")
    for classifier in classifiers:
        find_ref("sfc_flow_classifiers", classifier, "Flow Classifier")
    _used_elsewhere("sfc_port_chains", "port_pair_groups", new, groups, "Port Pair Group", "PortPairGroupInUse")
    _used_elsewhere("sfc_port_chains", "flow_classifiers", new, classifiers, "Flow Classifier",
                    "FlowClassifierInUse")
    new["port_pair_groups"], new["flow_classifiers"] = groups, classifiers
    if old is None:
        new["chain_id"] = len(store().all("sfc_port_chains")) + 1
        new["chain_parameters"] = {"correlation": "mpls", "symmetric": False, **(new.get("chain_parameters") or {})}


PORT_CHAINS = Coll("sfc_port_chains", "/sfc/port_chains", "port_chain", "Port Chain",
                   {"port_pair_groups": REQUIRED, "flow_classifiers": [], "chain_parameters": {}},
                   updatable=("name", "description", "port_pair_groups", "flow_classifiers"), check=_check_chain)


# ---- L2 gateways ---------------------------------------------------------------------------------
def _check_l2gw(new: Obj, old: Obj | None) -> None:
    devices = new.get("devices")
    if not isinstance(devices, list) or not devices:
        raise bad_request("Invalid input for devices. Reason: at least one device is needed.")
    for device in devices:
        if not isinstance(device, dict) or not device.get("device_name") or not device.get("interfaces"):
            raise bad_request("Invalid input for operation: a device needs a device_name and interfaces.")
        for iface in device["interfaces"]:
            if not isinstance(iface, dict) or not iface.get("name"):
                raise bad_request("Invalid input for operation: an interface needs a name.")


L2_GATEWAYS = Coll("l2_gateways", "/l2-gateways", "l2_gateway", "L2 Gateway", {"devices": REQUIRED},
                   updatable=("name", "devices"), admin_only=True, check=_check_l2gw,
                   in_use=in_use_by("l2_gateway_connections", "l2_gateway_id", "L2 Gateway {id} is in use",
                                    "L2GatewayInUse"))


def _check_l2gw_connection(new: Obj, old: Obj | None) -> None:
    gateway = find_ref("l2_gateways", new["l2_gateway_id"], "L2 Gateway")
    find_ref("networks", new["network_id"], "Network")
    if new.get("segmentation_id") is None and any(
            not iface.get("segmentation_id") for d in gateway["devices"] for iface in d["interfaces"]):
        raise bad_request("Invalid input for operation: segmentation_id is needed when an interface of the "
                          "gateway has none.")
    for other in store().find("l2_gateway_connections", l2_gateway_id=gateway["id"], network_id=new["network_id"],
                              segmentation_id=new.get("segmentation_id")):
        if other["id"] != new["id"]:
            raise SandboxError(409, f"The L2 Gateway connection of {gateway['id']} to network "
                               f"{new['network_id']} on segment {new.get('segmentation_id')} already exists.",
                               "L2GatewayConnectionExists")


L2_GATEWAY_CONNECTIONS = Coll("l2_gateway_connections", "/l2-gateway-connections", "l2_gateway_connection",
                              "L2 Gateway Connection",
                              {"l2_gateway_id": REQUIRED, "network_id": REQUIRED, "segmentation_id": None},
                              updatable=(), admin_only=True, check=_check_l2gw_connection)


# ---- network gateways ----------------------------------------------------------------------------
def _gateway_in_use(gateway: Obj) -> SandboxError | None:
    if gateway.get("_connections"):
        return SandboxError(409, f"Network Gateway '{gateway['id']}' still has active mappings with one or "
                            "more neutron networks.", "GatewayInUse")
    return None


NETWORK_GATEWAYS = Coll("network_gateways", "/network-gateways", "network_gateway", "Network Gateway",
                        {"devices": REQUIRED}, updatable=("name",), in_use=_gateway_in_use,
                        view=lambda g: {"default": False, "ports": [c["port_id"] for c in g.get("_connections", [])]})


def _connection(data: Obj) -> Obj:
    if not data.get("network_id"):
        raise bad_request("Invalid input for operation: network_id is required.")
    kind = data.get("segmentation_type", "flat")
    if kind not in ("flat", "vlan"):
        raise bad_request(f"Invalid input for segmentation_type. Reason: '{kind}' is not in ['flat', 'vlan'].")
    return {"network_id": str(data["network_id"]), "segmentation_type": kind,
            "segmentation_id": int(data.get("segmentation_id") or 0)}


@bp.put("/network-gateways/<gateway_id>/connect_network")
def connect_network(gateway_id: str) -> Any:
    """``{"network_id", "segmentation_type", "segmentation_id"}`` -> ``{"connection_info": ...}``."""
    gateway = get(NETWORK_GATEWAYS, gateway_id, owned=True)
    conn = _connection(body())
    find_ref("networks", conn["network_id"], "Network")
    for other in gateway.get("_connections", []):
        if {k: other[k] for k in conn} == conn:
            raise SandboxError(409, f"The network gateway {gateway_id} is already connected to network "
                               f"{conn['network_id']} with {conn['segmentation_type']}:{conn['segmentation_id']}.",
                               "GatewayConnectionInUse")
    conn["port_id"] = store().new_id()
    gateway.setdefault("_connections", []).append(conn)
    store().touch()
    return reply({"connection_info": {"network_gateway_id": gateway_id, "network_id": conn["network_id"],
                                      "port_id": conn["port_id"]}})


@bp.put("/network-gateways/<gateway_id>/disconnect_network")
def disconnect_network(gateway_id: str) -> Any:
    """The same body; 404 ``GatewayConnectionNotFound`` when not connected that way."""
    gateway = get(NETWORK_GATEWAYS, gateway_id, owned=True)
    conn = _connection(body())
    kept = [c for c in gateway.get("_connections", []) if {k: c[k] for k in conn} != conn]
    if len(kept) == len(gateway.get("_connections", [])):
        raise SandboxError(404, f"The connection of network {conn['network_id']} to gateway {gateway_id} "
                           "could not be found.", "GatewayConnectionNotFound")
    gateway["_connections"] = kept
    store().touch()
    return reply({})


# ---- tap as a service ----------------------------------------------------------------------------
def _check_tap_service(new: Obj, old: Obj | None) -> None:
    if old is None:
        find_ref("ports", new["port_id"], "Port")


def _drop_flows(service: Obj) -> None:
    for flow in store().find("tap_flows", tap_service_id=service["id"]):
        store().remove("tap_flows", flow["id"])


TAP_SERVICES = Coll("tap_services", "/taas/tap_services", "tap_service", "Tap Service", {"port_id": REQUIRED},
                    status="PENDING_CREATE", settle="taas_create", check=_check_tap_service, on_delete=_drop_flows)


def _check_tap_flow(new: Obj, old: Obj | None) -> None:
    if old is None:
        find_ref("tap_services", new["tap_service_id"], "Tap Service")
        find_ref("ports", new["source_port"], "Port")
    if new["direction"] not in ("IN", "OUT", "BOTH"):
        raise bad_request(f"Invalid input for direction. Reason: '{new['direction']}' is not in "
                          "['IN', 'OUT', 'BOTH'].")


TAP_FLOWS = Coll("tap_flows", "/taas/tap_flows", "tap_flow", "Tap Flow",
                 {"tap_service_id": REQUIRED, "source_port": REQUIRED, "direction": REQUIRED, "vlan_filter": None},
                 status="PENDING_CREATE", settle="taas_create", check=_check_tap_flow)

for _coll in (PORT_PAIRS, PORT_PAIR_GROUPS, FLOW_CLASSIFIERS, PORT_CHAINS, L2_GATEWAYS, L2_GATEWAY_CONNECTIONS,
              NETWORK_GATEWAYS, TAP_SERVICES, TAP_FLOWS):
    register(bp, _coll)
