"""Neutron v2.0 ports for the sandbox: fixed-IP allocation from a network's subnets (Neutron's
IPAM: IP in use, IP outside the subnet), allowed address pairs, security groups, binding.

:func:`create_port`, :func:`bind_port` and :func:`release_port` are also used by Nova (server NICs),
the L3 module (router interfaces, floating IPs), Zun and Octavia (VIP ports).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, ipam, quotas
from app.sandbox.http import SandboxError, filter_by_args, no_content, paginate, public, reply
from app.sandbox.network_bodies import created, one_body
from app.sandbox.network_core import get_network, ips_in_subnet
from app.sandbox.network_sg import ensure_default_sg, resolve_sg, stamp
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_ports", __name__)

PORT_FIELDS = ("id", "name", "network_id", "device_id", "device_owner", "mac_address", "status",
               "project_id", "tenant_id", "admin_state_up", "description")


def get_port(port_id: str) -> Obj:
    return auth.owned(store(), "ports", port_id, "Port", kind="PortNotFound")


def _allocate_ips(net: Obj, requested: list[Obj] | None) -> list[Obj]:
    st = store()
    subnets = st.find("subnets", network_id=net["id"])
    out: list[Obj] = []
    if requested is None:
        for version in (4, 6):
            for candidate in subnets:
                if candidate["ip_version"] == version:
                    requested = (requested or []) + [{"subnet_id": candidate["id"]}]
                    break
        requested = requested or []
    for req in requested:
        ip, subnet_id = req.get("ip_address"), req.get("subnet_id")
        if subnet_id:
            sub: Obj | None = next((s for s in subnets if s["id"] == subnet_id), None)
            if sub is None:
                raise SandboxError(400, f"Invalid input for operation: Failed to create port on network "
                                   f"{net['id']}, because fixed_ips included invalid subnet {subnet_id}.",
                                   "InvalidInput")
        elif ip:
            sub = next((s for s in subnets if ipam.in_subnet(ip, s["cidr"])), None)
            if sub is None:
                raise SandboxError(400, f"IP address {ip} is not a valid IP for the specified subnet.",
                                   "InvalidIpForNetwork")
        else:
            raise SandboxError(400, "Invalid input for operation: fixed_ips requires subnet_id or ip_address.",
                               "InvalidInput")
        used = ips_in_subnet(sub["id"]) + [o["ip_address"] for o in out if o["subnet_id"] == sub["id"]]
        if ip:
            if not ipam.valid_ip(ip) or not ipam.in_subnet(ip, sub["cidr"]):
                raise SandboxError(400, f"IP address {ip} is not a valid IP for the specified subnet.",
                                   "InvalidIpForSubnet")
            if ip in used:
                raise SandboxError(409, f"IP address {ip} already allocated in subnet {sub['id']}",
                                   "IpAddressAlreadyAllocated")
        else:
            ip = ipam.allocate(sub["allocation_pools"], used)
            if ip is None:
                raise SandboxError(409, f"No more IP addresses available on network {net['id']}.",
                                   "IpAddressGenerationFailure")
        out.append({"subnet_id": sub["id"], "ip_address": ip})
    return out


def create_port(data: Obj, project_id: str | None, *, check_quota: bool = True) -> Obj:
    """Create a port on ``data["network_id"]`` with Neutron's defaults and IP allocation.

    :raises SandboxError: 404 NetworkNotFound, 409 IpAddressAlreadyAllocated /
        IpAddressGenerationFailure / MacAddressInUse / OverQuota, 400 InvalidIpForSubnet.
    """
    st = store()
    net = get_network(str(data.get("network_id")))
    if check_quota:
        quotas.check(st, project_id, "network", "port", len(st.find("ports", project_id=project_id)))
    mac = data.get("mac_address") or ipam.mac_address(st.next_number("mac"))
    if any(p["mac_address"] == mac and p["network_id"] == net["id"] for p in st.all("ports")):
        raise SandboxError(409, f"Unable to complete operation for network {net['id']}. The mac address "
                           f"{mac} is in use.", "MacAddressInUse")
    fixed_ips = _allocate_ips(net, data.get("fixed_ips"))
    owner = data.get("device_owner", "") or ""
    port_security = data.get("port_security_enabled", net.get("port_security_enabled", True))
    if "security_groups" in data and data["security_groups"] is not None:
        sgs = [resolve_sg(s, project_id)["id"] for s in data["security_groups"]]
    elif port_security and not owner.startswith("network:"):
        default = ensure_default_sg(project_id)
        sgs = [default["id"]] if default else []
    else:
        sgs = []
    device_id = data.get("device_id", "") or ""
    port = stamp({"id": st.new_id(), "name": data.get("name", ""), "network_id": net["id"],
                  "admin_state_up": data.get("admin_state_up", True), "mac_address": mac,
                  "fixed_ips": fixed_ips, "device_id": device_id, "device_owner": owner,
                  "status": "ACTIVE" if device_id else "DOWN", "security_groups": sgs,
                  "allowed_address_pairs": [_pair(p, mac) for p in data.get("allowed_address_pairs", [])],
                  "port_security_enabled": port_security, "binding:vnic_type": data.get("binding:vnic_type", "normal"),
                  "binding:host_id": data.get("binding:host_id", "sandbox" if device_id else ""),
                  "binding:profile": data.get("binding:profile", {}), "binding:vif_type": "ovs" if device_id else "unbound",
                  "binding:vif_details": {}, "extra_dhcp_opts": data.get("extra_dhcp_opts", []),
                  "dns_name": data.get("dns_name", ""), "dns_assignment": [], "qos_policy_id": data.get("qos_policy_id"),
                  "qos_network_policy_id": None, "propagate_uplink_status": False,
                  "description": data.get("description", "")}, project_id)
    return st.add("ports", port)


def _pair(pair: Obj, mac: str) -> Obj:
    if "ip_address" not in pair:
        raise SandboxError(400, "Invalid input for allowed_address_pairs: ip_address is required.",
                           "InvalidInput")
    return {"ip_address": pair["ip_address"], "mac_address": pair.get("mac_address") or mac}


def bind_port(port: Obj, device_id: str, device_owner: str) -> None:
    port.update(device_id=device_id, device_owner=device_owner, status="ACTIVE" if device_id else "DOWN",
                **{"binding:host_id": "sandbox" if device_id else "",
                   "binding:vif_type": "ovs" if device_id else "unbound"})
    stamp(port, port["project_id"])


def release_port(port_id: str) -> None:
    """Delete a port and whatever hangs on it (floating IP associations)."""
    st = store()
    for fip in st.find("floatingips", port_id=port_id):
        fip.update(port_id=None, fixed_ip_address=None, router_id=None, status="DOWN")
    st.remove("ports", port_id)


def port_view(port: Obj) -> Obj:
    """A port as Neutron shows it: a trunk's parent port has ``trunk_details`` (the
    ``trunk-details`` extension: ``trunk_id`` and its ``sub_ports`` with each one's
    ``mac_address``)."""
    out = public(port)
    st = store()
    trunk = next((t for t in st.all("trunks") if t["port_id"] == port["id"]), None)
    if trunk is not None:
        subs = []
        for sp in trunk["sub_ports"]:
            sub = st.get("ports", sp["port_id"])
            subs.append({**sp, "mac_address": sub["mac_address"] if sub else None})
        out["trunk_details"] = {"trunk_id": trunk["id"], "sub_ports": subs}
    return out


@bp.get("/ports")
def list_ports() -> Any:
    items = auth.visible(store().all("ports"), admin_sees_all=True)
    items = filter_by_args(items, PORT_FIELDS)
    for wanted in request.args.getlist("fixed_ips"):   # "ip_address=10.0.0.5" / "subnet_id=..."
        key, _, value = wanted.partition("=")
        items = [p for p in items if any(str(ip.get(key)) == value for ip in p["fixed_ips"])]
    return reply({"ports": [port_view(p) for p in paginate(items)]})


@bp.post("/ports")
def post_port() -> Any:
    """``{"port": {...}}`` or the bulk ``{"ports": [...]}``."""
    return created("port", _make_port)


def _make_port(data: Obj) -> Obj:
    project = data.get("project_id") or data.get("tenant_id") or auth.ctx().project_id
    return port_view(create_port(data, project))


@bp.get("/ports/<port_id>")
def show_port(port_id: str) -> Any:
    return reply({"port": port_view(get_port(port_id))})


@bp.put("/ports/<port_id>")
def update_port(port_id: str) -> Any:
    port = get_port(port_id)
    data = one_body("port")
    st = store()
    if "fixed_ips" in data:
        net = get_network(port["network_id"])
        old = port["fixed_ips"]
        port["fixed_ips"] = []
        try:
            port["fixed_ips"] = _allocate_ips(net, data["fixed_ips"])
        except SandboxError:
            port["fixed_ips"] = old
            raise
    if "security_groups" in data:
        port["security_groups"] = [resolve_sg(s, port["project_id"])["id"] for s in data["security_groups"] or []]
    if "allowed_address_pairs" in data:
        port["allowed_address_pairs"] = [_pair(p, port["mac_address"]) for p in data["allowed_address_pairs"] or []]
    if "port_security_enabled" in data:
        if not data["port_security_enabled"] and port["security_groups"] and "security_groups" not in data:
            raise SandboxError(409, f"Port {port_id} has security groups; port security cannot be disabled.",
                               "PortSecurityPortHasSecurityGroup")
        port["port_security_enabled"] = data["port_security_enabled"]
    for key in ("name", "description", "admin_state_up", "binding:host_id", "binding:profile",
                "binding:vnic_type", "dns_name", "extra_dhcp_opts", "qos_policy_id"):
        if key in data:
            port[key] = data[key]
    if "device_id" in data or "device_owner" in data:
        bind_port(port, str(data.get("device_id", port["device_id"]) or ""),
                  str(data.get("device_owner", port["device_owner"]) or ""))
    stamp(port, port["project_id"])
    st.touch()
    return reply({"port": port_view(port)})


@bp.delete("/ports/<port_id>")
def delete_port(port_id: str) -> Any:
    port = get_port(port_id)
    if port.get("device_owner") == "network:router_interface":
        raise SandboxError(409, f"Port {port_id} cannot be deleted directly via the port API: has device "
                           "owner network:router_interface.", "L3PortInUse")
    release_port(port["id"])
    return no_content()
