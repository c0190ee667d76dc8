"""The sandbox Neutron's trunks, subnet pools, address scopes, segments, RBAC policies and
floating IP port forwardings (Neutron's ``trunk``, ``subnet_allocation``, ``address-scope``,
``segment``, ``rbac-policies`` and ``floating-ip-port-forwarding`` extensions), as
:mod:`app.sandbox.network_ext` tables plus the trunk's ``add_subports`` / ``remove_subports`` /
``get_subports`` actions.

A trunk is ``DOWN`` until its parent port is bound (then ``ACTIVE``); its subports' ports get
``device_owner: trunk:subport``. Segments are admin-only (Neutron's default policy).
"""
from __future__ import annotations

import ipaddress
from typing import Any

from flask import Blueprint

from app.sandbox import auth, network_rbac
from app.sandbox.http import SandboxError, body, reply
from app.sandbox.network_bodies import bad_request
from app.sandbox.network_ext import REQUIRED, Coll, find_ref, get, in_use_by, register, render
from app.sandbox.network_sg import stamp
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_trunks", __name__)


# ---- trunks -------------------------------------------------------------------------------------
def _subports(trunk: Obj, wanted: list[Any], old: list[Obj]) -> list[Obj]:
    st = store()
    out: list[Obj] = []
    seen = {(s["segmentation_type"], s["segmentation_id"]) for s in old}
    for sp in wanted:
        if not isinstance(sp, dict) or not sp.get("port_id"):
            raise bad_request("Invalid input for sub_ports. Reason: a subport needs a port_id.")
        port = find_ref("ports", sp["port_id"], "Port")
        for other in st.all("trunks"):
            if other["port_id"] == port["id"]:
                raise SandboxError(409, f"Port {port['id']} is currently in use and is not eligible for use "
                                   "as a subport.", "PortInUseAsTrunkParent")
            if any(s["port_id"] == port["id"] for s in other["sub_ports"]) or port["id"] == trunk["port_id"]:
                raise SandboxError(409, f"Port {port['id']} is currently a subport of trunk {other['id']}.",
                                   "PortInUseAsSubPort")
        kind, seg = sp.get("segmentation_type", "vlan"), sp.get("segmentation_id")
        if kind != "vlan" or not isinstance(seg, int) or not 1 <= seg <= 4094:
            raise bad_request(f"Invalid input for operation: Segmentation type {kind} with ID {seg} is not "
                              "valid (vlan, 1 to 4094).")
        if (kind, seg) in seen:
            raise SandboxError(409, f"segmentation_type {kind} and segmentation_id {seg} already in use "
                               f"on trunk {trunk['id']}.", "DuplicateSubPort")
        seen.add((kind, seg))
        out.append({"port_id": port["id"], "segmentation_type": kind, "segmentation_id": seg})
    return out


def _bind(subports: list[Obj], trunk_id: str | None) -> None:
    for sp in subports:
        port = store().get("ports", sp["port_id"])
        if port is not None:
            port.update(device_owner="trunk:subport" if trunk_id else "", device_id=trunk_id or "")


def _check_trunk(new: Obj, old: Obj | None) -> None:
    if old is not None:
        return
    parent = find_ref("ports", new["port_id"], "Port")
    for other in store().all("trunks"):
        if other["port_id"] == parent["id"] or any(s["port_id"] == parent["id"] for s in other["sub_ports"]):
            raise SandboxError(409, f"Port {parent['id']} is currently in use and is not eligible for use as "
                               "a parent port.", "TrunkPortInUse")
    new["sub_ports"] = _subports(new, new.get("sub_ports") or [], [])
    _bind(new["sub_ports"], new["id"])


def _trunk_view(trunk: Obj) -> Obj:
    port = store().get("ports", trunk["port_id"]) or {}
    return {"status": "ACTIVE" if port.get("device_id") else "DOWN"}


def _trunk_in_use(trunk: Obj) -> SandboxError | None:
    port = store().get("ports", trunk["port_id"]) or {}
    if str(port.get("device_owner", "")).startswith("compute:"):
        return SandboxError(409, f"Trunk {trunk['id']} is currently in use.", "TrunkInUse")
    return None


TRUNKS = Coll("trunks", "/trunks", "trunk", "Trunk",
              {"port_id": REQUIRED, "admin_state_up": True, "sub_ports": []},
              updatable=("name", "description", "admin_state_up"), status="DOWN", check=_check_trunk,
              view=_trunk_view, in_use=_trunk_in_use, on_delete=lambda t: _bind(t["sub_ports"], None))


def _trunk(trunk_id: str) -> Obj:
    return get(TRUNKS, trunk_id, owned=True)


@bp.put("/trunks/<trunk_id>/add_subports")
def add_subports(trunk_id: str) -> Any:
    """``{"sub_ports": [{"port_id", "segmentation_type", "segmentation_id"}]}`` -> the trunk."""
    trunk = _trunk(trunk_id)
    new = _subports(trunk, body().get("sub_ports") or [], trunk["sub_ports"])
    _bind(new, trunk["id"])
    trunk["sub_ports"] = trunk["sub_ports"] + new
    stamp(trunk, trunk["project_id"])
    return reply(render(TRUNKS, trunk))


@bp.put("/trunks/<trunk_id>/remove_subports")
def remove_subports(trunk_id: str) -> Any:
    """``{"sub_ports": [{"port_id"}]}`` -> the trunk; 404 ``SubPortNotFound`` for a stranger."""
    trunk = _trunk(trunk_id)
    gone = {str(sp.get("port_id")) for sp in body().get("sub_ports") or [] if isinstance(sp, dict)}
    for port_id in gone:
        if not any(s["port_id"] == port_id for s in trunk["sub_ports"]):
            raise SandboxError(404, f"SubPort on trunk {trunk_id} with parent port {port_id} could not be "
                               "found.", "SubPortNotFound")
    _bind([s for s in trunk["sub_ports"] if s["port_id"] in gone], None)
    trunk["sub_ports"] = [s for s in trunk["sub_ports"] if s["port_id"] not in gone]
    stamp(trunk, trunk["project_id"])
    return reply(render(TRUNKS, trunk))


@bp.get("/trunks/<trunk_id>/get_subports")
def get_subports(trunk_id: str) -> Any:
    return reply({"sub_ports": get(TRUNKS, trunk_id)["sub_ports"]})


# ---- address scopes and subnet pools ------------------------------------------------------------
def _check_scope(new: Obj, old: Obj | None) -> None:
    if new["ip_version"] not in (4, 6):
        raise bad_request(f"Invalid input for ip_version. Reason: {new['ip_version']} is not in [4, 6].")
    if new.get("shared") and not auth.ctx().is_admin:
        raise SandboxError(403, "rule:create_address_scope:shared is disallowed by policy", "PolicyNotAuthorized")


ADDRESS_SCOPES = Coll("address_scopes", "/address-scopes", "address_scope", "Address scope",
                      {"ip_version": REQUIRED, "shared": False}, updatable=("name", "description", "shared"),
                      check=_check_scope,
                      in_use=in_use_by("subnetpools", "address_scope_id", "Unable to complete operation on "
                                       "address scope {id}. There are one or more subnet pools in use on the "
                                       "address scope.", "AddressScopeInUse"))


def _check_pool(new: Obj, old: Obj | None) -> None:
    try:
        nets = [ipaddress.ip_network(str(p), strict=False) for p in new["prefixes"] or []]
    except ValueError as exc:
        raise bad_request(f"Invalid input for prefixes. Reason: {exc}.") from None
    versions = {n.version for n in nets}
    if len(versions) != 1:
        raise bad_request("Illegal subnetpool prefixes: the prefixes must be of one IP version.")
    version = versions.pop()
    new["ip_version"] = version
    new["prefixes"] = [str(n) for n in ipaddress.collapse_addresses(nets)]  # type: ignore[arg-type]
    if old is not None and not all(any(ipaddress.ip_network(p).subnet_of(ipaddress.ip_network(q))  # type: ignore[arg-type]
                                       for q in new["prefixes"]) for p in old["prefixes"]):
        raise bad_request(f"Illegal update to prefixes: {', '.join(new['prefixes'])} do not cover "
                          f"{', '.join(old['prefixes'])}.")
    top = 32 if version == 4 else 128
    new["min_prefixlen"] = int(new.get("min_prefixlen") or (8 if version == 4 else 64))
    new["max_prefixlen"] = int(new.get("max_prefixlen") or top)
    new["default_prefixlen"] = int(new.get("default_prefixlen") or new["min_prefixlen"])
    if not new["min_prefixlen"] <= new["default_prefixlen"] <= new["max_prefixlen"] <= top:
        raise bad_request(f"Illegal prefix bounds: min_prefixlen={new['min_prefixlen']}, default_prefixlen="
                          f"{new['default_prefixlen']}, max_prefixlen={new['max_prefixlen']}.")
    if new.get("address_scope_id"):
        scope = find_ref("address_scopes", new["address_scope_id"], "Address scope")
        if scope["ip_version"] != version:
            raise bad_request(f"Illegal subnetpool association: subnetpool {new['id']} cannot be associated "
                              f"with address scope {scope['id']} because subnetpool ip_version is not "
                              f"{scope['ip_version']}.")
    if new.get("shared") and not auth.ctx().is_admin:
        raise SandboxError(403, "rule:create_subnetpool:shared is disallowed by policy", "PolicyNotAuthorized")


SUBNET_POOLS = Coll("subnetpools", "/subnetpools", "subnetpool", "Subnet pool",
                    {"prefixes": REQUIRED, "default_prefixlen": None, "min_prefixlen": None,
                     "max_prefixlen": None, "default_quota": None, "address_scope_id": None,
                     "is_default": False, "shared": False},
                    updatable=("name", "description", "prefixes", "default_prefixlen", "min_prefixlen",
                               "max_prefixlen", "default_quota", "address_scope_id", "is_default"),
                    check=_check_pool, kind="SubnetPoolNotFound",
                    in_use=in_use_by("subnets", "subnetpool_id", "Unable to complete operation on subnet "
                                     "pool {id}. Subnet pool in use by one or more subnets.", "SubnetPoolInUse"))


# ---- segments ------------------------------------------------------------------------------------
NETWORK_TYPES = ("local", "vlan", "vxlan", "gre", "geneve", "flat")


def _check_segment(new: Obj, old: Obj | None) -> None:
    if old is not None:
        return
    find_ref("networks", new["network_id"], "Network")
    kind, physnet, seg = new["network_type"], new.get("physical_network"), new.get("segmentation_id")
    if kind not in NETWORK_TYPES:
        raise bad_request(f"Invalid input for network_type. Reason: '{kind}' is not in {list(NETWORK_TYPES)}.")
    if kind == "vlan" and (not physnet or seg is None or not 1 <= int(seg) <= 4094):
        raise bad_request("Invalid input for operation: a vlan segment needs a physical_network and a "
                          "segmentation_id from 1 to 4094.")
    if kind in ("flat", "local") and seg is not None:
        raise bad_request(f"Invalid input for operation: segmentation_id is not allowed for a {kind} segment.")
    for other in store().all("segments"):
        if (other["network_type"], other["physical_network"], other["segmentation_id"]) == (kind, physnet, seg) \
                and seg is not None:
            raise SandboxError(409, f"Unable to create the network. The VLAN {seg} on physical network "
                               f"{physnet} is in use.", "SegmentationIdInUse")


SEGMENTS = Coll("segments", "/segments", "segment", "Segment",
                {"network_id": REQUIRED, "network_type": REQUIRED, "physical_network": None,
                 "segmentation_id": None, "name": None},
                admin_only=True, check=_check_segment)


# ---- RBAC policies -------------------------------------------------------------------------------
RBAC_OBJECTS = {"network": ("networks", "Network", ("access_as_shared", "access_as_external")),
                "qos_policy": ("qos_policies", "QoS policy", ("access_as_shared",)),
                "security_group": ("security_groups", "Security group", ("access_as_shared",)),
                "address_scope": ("address_scopes", "Address scope", ("access_as_shared",)),
                "subnetpool": ("subnetpools", "Subnet pool", ("access_as_shared",))}


def _check_rbac(new: Obj, old: Obj | None) -> None:
    kind = new["object_type"]
    if kind not in RBAC_OBJECTS:
        raise bad_request(f"Invalid input for object_type. Reason: '{kind}' is not in {sorted(RBAC_OBJECTS)}.")
    collection, what, actions = RBAC_OBJECTS[kind]
    if new["action"] not in actions:
        raise bad_request(f"Invalid input for operation: action {new['action']} is not supported for "
                          f"object type {kind}.")
    target = store().get(collection, new["object_id"])
    if target is None or not auth.can_see(target):
        raise SandboxError(404, f"{what} {new['object_id']} could not be found.",
                           f"{what.replace(' ', '')}NotFound")
    for other in store().all("rbac_policies"):
        if other["id"] != new["id"] and all(other[k] == new[k] for k in ("object_type", "object_id",
                                                                        "action", "target_tenant")):
            raise SandboxError(409, "An RBAC policy already exists with those values.", "DuplicateRbacPolicy")


RBAC_POLICIES = Coll("rbac_policies", "/rbac-policies", "rbac_policy", "RBAC policy",
                     {"object_type": REQUIRED, "object_id": REQUIRED, "action": REQUIRED,
                      "target_tenant": REQUIRED},
                     updatable=("target_tenant",), check=_check_rbac, plural="rbac_policies",
                     kind="RbacPolicyNotFound", in_use=network_rbac.check_removable)


# ---- floating IP port forwardings ----------------------------------------------------------------
def _check_forward(new: Obj, old: Obj | None) -> None:
    fip = store().get("floatingips", new["floatingip_id"]) or {}
    if fip.get("port_id"):
        raise SandboxError(409, f"Floating IP {fip['id']} is associated with port {fip['port_id']}; it cannot "
                           "have port forwardings.", "FipInUseByPortForwarding")
    port = find_ref("ports", new["internal_port_id"], "Port")
    if new["internal_ip_address"] not in [ip["ip_address"] for ip in port["fixed_ips"]]:
        raise bad_request(f"Bad port_forwarding request: the internal_ip_address {new['internal_ip_address']} "
                          f"is not on port {port['id']}.")
    if new["protocol"] not in ("tcp", "udp", "udplite", "sctp"):
        raise bad_request(f"Invalid input for protocol. Reason: '{new['protocol']}' is not in "
                          "['tcp', 'udp', 'udplite', 'sctp'].")
    for key in ("internal_port", "external_port"):
        if not 1 <= int(new[key]) <= 65535:
            raise bad_request(f"Invalid input for {key}. Reason: {new[key]} is not a valid port number.")
    for other in store().find("port_forwardings", floatingip_id=new["floatingip_id"]):
        if other["id"] != new["id"] and (other["external_port"], other["protocol"]) == \
                (new["external_port"], new["protocol"]):
            raise bad_request("Bad port_forwarding request: A duplicate port forwarding entry with same "
                              f"attributes already exists, conflicting values are {{'floatingip_id': "
                              f"'{new['floatingip_id']}', 'external_port': {new['external_port']}, "
                              f"'protocol': '{new['protocol']}'}}.")


PORT_FORWARDINGS = Coll("port_forwardings", "/floatingips/<parent_id>/port_forwardings", "port_forwarding",
                        "Port forwarding", {"internal_port_id": REQUIRED, "internal_ip_address": REQUIRED,
                                            "internal_port": REQUIRED, "external_port": REQUIRED,
                                            "protocol": REQUIRED},
                        updatable=("internal_port_id", "internal_ip_address", "internal_port", "external_port",
                                   "protocol", "description"),
                        parent=("floatingip_id", "floatingips", "Floating IP"), check=_check_forward,
                        kind="PortForwardingNotFound")

for _coll in (TRUNKS, ADDRESS_SCOPES, SUBNET_POOLS, SEGMENTS, RBAC_POLICIES, PORT_FORWARDINGS):
    register(bp, _coll)
