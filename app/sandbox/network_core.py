"""Neutron v2.0 networks and subnets for the sandbox, with Neutron's subnet checks (overlap, pools,
gateway) and in-use conflicts, and the network IP availability report; ports are in
:mod:`app.sandbox.network_ports`.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import auth, ipam, network_rbac, quotas, subnet_alloc
from app.sandbox.http import SandboxError, filter_by_args, no_content, paginate, public, reply
from app.sandbox.network_bodies import created, one_body
from app.sandbox.network_sg import ensure_default_sg, stamp
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network", __name__)

NET_FIELDS = ("id", "name", "status", "shared", "router:external", "admin_state_up", "project_id",
              "tenant_id", "description", "mtu", "is_default")
SUBNET_FIELDS = ("id", "name", "network_id", "cidr", "ip_version", "gateway_ip", "enable_dhcp",
                 "project_id", "tenant_id", "description", "subnetpool_id")


def net_visible(net: Obj) -> bool:
    """The caller may see and use ``net``: shared, external, its own, or granted to it by an
    RBAC policy."""
    return bool(net.get("shared") or net.get("router:external") or auth.can_see(net)
                or network_rbac.granted(net) or network_rbac.granted(net, network_rbac.EXTERNAL))


def get_network(net_id: str) -> Obj:
    net = store().get("networks", net_id)
    if net is None or not net_visible(net):
        raise SandboxError(404, f"Network {net_id} could not be found.", "NetworkNotFound")
    return net


def get_subnet(subnet_id: str) -> Obj:
    sub = store().get("subnets", subnet_id)
    if sub is None or not (auth.can_see(sub) or net_visible(store().get("networks", sub["network_id"]) or {})):
        raise SandboxError(404, f"Subnet {subnet_id} could not be found.", "SubnetNotFound")
    return sub


def net_view(net: Obj) -> Obj:
    out = public(net)
    out["shared"], out["router:external"] = network_rbac.shared_view(net), network_rbac.external_view(net)
    out["subnets"] = [s["id"] for s in store().find("subnets", network_id=net["id"])]
    return out


# ---- networks -------------------------------------------------------------------------------
def create_network(data: Obj, project_id: str | None) -> Obj:
    st = store()
    quotas.check(st, project_id, "network", "network", len(st.find("networks", project_id=project_id)))
    net = stamp({"id": st.new_id(), "name": data.get("name", ""), "status": "ACTIVE",
                 "admin_state_up": data.get("admin_state_up", True), "shared": bool(data.get("shared", False)),
                 "router:external": bool(data.get("router:external", False)), "mtu": int(data.get("mtu", 1450)),
                 "port_security_enabled": data.get("port_security_enabled", True),
                 "provider:network_type": data.get("provider:network_type", "vxlan"),
                 "provider:physical_network": data.get("provider:physical_network"),
                 "provider:segmentation_id": data.get("provider:segmentation_id", st.next_number("vni")),
                 "availability_zones": ["nova"], "availability_zone_hints": data.get("availability_zone_hints", []),
                 "ipv4_address_scope": None, "ipv6_address_scope": None, "qos_policy_id": None,
                 "is_default": bool(data.get("is_default", False)), "l2_adjacency": True,
                 "dns_domain": data.get("dns_domain", ""), "description": data.get("description", "")},
                project_id)
    return st.add("networks", net)


@bp.get("/networks")
def list_networks() -> Any:
    c = auth.ctx()
    items = [n for n in store().all("networks") if c.is_admin or net_visible(n)]
    items = filter_by_args(items, NET_FIELDS)
    return reply({"networks": [net_view(n) for n in paginate(items)]})


@bp.post("/networks")
def post_network() -> Any:
    """``{"network": {...}}`` or the bulk ``{"networks": [...]}`` (Neutron's bulk create)."""
    return created("network", _make_network)


def _make_network(data: Obj) -> Obj:
    c = auth.ctx()
    if (data.get("router:external") or data.get("shared") or data.get("provider:network_type")) and not c.is_admin:
        auth.require_admin("(rule:create_network and rule:create_network:router:external) is disallowed by policy")
    project = data.get("project_id") or data.get("tenant_id") or c.project_id
    ensure_default_sg(project)
    return net_view(create_network(data, project))


@bp.get("/networks/<net_id>")
def show_network(net_id: str) -> Any:
    return reply({"network": net_view(get_network(net_id))})


@bp.put("/networks/<net_id>")
def update_network(net_id: str) -> Any:
    net = get_network(net_id)
    if not auth.can_see(net):
        raise SandboxError(403, "rule:update_network is disallowed by policy", "PolicyNotAuthorized")
    data = one_body("network")
    for key in ("name", "admin_state_up", "description", "mtu", "port_security_enabled", "shared",
                "router:external", "dns_domain", "is_default", "qos_policy_id"):
        if key in data:
            net[key] = data[key]
    stamp(net, net["project_id"])
    return reply({"network": net_view(net)})


@bp.delete("/networks/<net_id>")
def delete_network(net_id: str) -> Any:
    st = store()
    net = get_network(net_id)
    if not auth.can_see(net):
        raise SandboxError(403, "rule:delete_network is disallowed by policy", "PolicyNotAuthorized")
    ports = st.find("ports", network_id=net_id)
    if any(not (p.get("device_owner") or "").startswith("network:dhcp") for p in ports):
        raise SandboxError(409, f"Unable to complete operation on network {net_id}. There are one or more "
                           "ports still in use on the network.", "NetworkInUse")
    for sub in st.find("subnets", network_id=net_id):
        st.remove("subnets", sub["id"])
    st.remove("networks", net_id)
    return no_content()


# ---- subnets --------------------------------------------------------------------------------
def create_subnet(data: Obj, project_id: str | None) -> Obj:
    st = store()
    net = get_network(str(data.get("network_id")))
    if net["project_id"] != project_id and not auth.ctx().is_admin:
        raise SandboxError(403, "rule:create_subnet is disallowed by policy", "PolicyNotAuthorized")
    pool, requested = subnet_alloc.requested_cidr(data)
    ip_version = int(data.get("ip_version") or (pool or {}).get("ip_version") or 4)
    cidr = ipam.parse_cidr(requested, ip_version)
    for other in st.find("subnets", network_id=net["id"]):
        if ipam.overlaps(other["cidr"], str(cidr)):
            raise SandboxError(400, f"Invalid input for operation: Requested subnet with cidr: {cidr} for "
                               f"network: {net['id']} overlaps with another subnet.", "InvalidInput")
    quotas.check(st, project_id, "network", "subnet", len(st.find("subnets", project_id=project_id)))
    gateway = data["gateway_ip"] if "gateway_ip" in data else ipam.default_gateway(cidr)
    if gateway is not None and not ipam.in_subnet(gateway, str(cidr)):
        raise SandboxError(400, f"Invalid input for operation: Gateway is not valid on subnet {cidr}.",
                           "InvalidInput")
    pools = (ipam.check_pools(cidr, data["allocation_pools"], gateway) if data.get("allocation_pools")
             else ipam.default_pools(cidr, gateway))
    sub = stamp({"id": st.new_id(), "name": data.get("name", ""), "network_id": net["id"],
                 "ip_version": ip_version, "cidr": str(cidr), "gateway_ip": gateway, "allocation_pools": pools,
                 "enable_dhcp": data.get("enable_dhcp", True), "dns_nameservers": data.get("dns_nameservers", []),
                 "host_routes": data.get("host_routes", []), "ipv6_ra_mode": data.get("ipv6_ra_mode"),
                 "ipv6_address_mode": data.get("ipv6_address_mode"),
                 "subnetpool_id": pool["id"] if pool else None,
                 "service_types": data.get("service_types", []), "segment_id": None,
                 "dns_publish_fixed_ip": False, "description": data.get("description", "")}, project_id)
    st.add("subnets", sub)
    stamp(net, net["project_id"])
    return sub


@bp.get("/subnets")
def list_subnets() -> Any:
    c = auth.ctx()
    st = store()
    items = [s for s in st.all("subnets")
             if c.is_admin or auth.can_see(s) or net_visible(st.get("networks", s["network_id"]) or {})]
    items = filter_by_args(items, SUBNET_FIELDS)
    return reply({"subnets": [public(s) for s in paginate(items)]})


@bp.post("/subnets")
def post_subnet() -> Any:
    """``{"subnet": {...}}`` or the bulk ``{"subnets": [...]}``."""
    return created("subnet", _make_subnet)


def _make_subnet(data: Obj) -> Obj:
    project = data.get("project_id") or data.get("tenant_id") or auth.ctx().project_id
    return public(create_subnet(data, project))


@bp.get("/subnets/<subnet_id>")
def show_subnet(subnet_id: str) -> Any:
    return reply({"subnet": public(get_subnet(subnet_id))})


@bp.put("/subnets/<subnet_id>")
def update_subnet(subnet_id: str) -> Any:
    sub = get_subnet(subnet_id)
    data = one_body("subnet")
    for key in ("name", "description", "enable_dhcp", "dns_nameservers", "host_routes", "gateway_ip"):
        if key in data:
            sub[key] = data[key]
    if data.get("allocation_pools"):
        sub["allocation_pools"] = ipam.check_pools(ipam.parse_cidr(sub["cidr"]), data["allocation_pools"],
                                                   sub["gateway_ip"])
    elif "allocation_pools" in data:   # Neutron: an empty list (or null) clears the pools
        sub["allocation_pools"] = []
    stamp(sub, sub["project_id"])
    return reply({"subnet": public(sub)})


def ips_in_subnet(subnet_id: str) -> list[str]:
    return [ip["ip_address"] for p in store().all("ports") for ip in p["fixed_ips"]
            if ip["subnet_id"] == subnet_id]


@bp.delete("/subnets/<subnet_id>")
def delete_subnet(subnet_id: str) -> Any:
    st = store()
    sub = get_subnet(subnet_id)
    if ips_in_subnet(subnet_id):
        raise SandboxError(409, f"Unable to complete operation on subnet {subnet_id}: One or more ports have "
                           "an IP allocation from this subnet.", "SubnetInUse")
    st.remove("subnets", sub["id"])
    return no_content()


@bp.get("/network-ip-availabilities/<net_id>")
def ip_availability(net_id: str) -> Any:
    net = get_network(net_id)
    subs = []
    for sub in store().find("subnets", network_id=net_id):
        total = sum(int(ipam.ipaddress.ip_address(p["end"])) - int(ipam.ipaddress.ip_address(p["start"])) + 1
                    for p in sub["allocation_pools"])
        used = len(ips_in_subnet(sub["id"]))
        subs.append({"subnet_id": sub["id"], "subnet_name": sub["name"], "cidr": sub["cidr"],
                     "ip_version": sub["ip_version"], "total_ips": total, "used_ips": used})
    return reply({"network_ip_availability": {
        "network_id": net_id, "network_name": net["name"], "project_id": net["project_id"],
        "tenant_id": net["project_id"], "subnet_ip_availability": subs,
        "total_ips": sum(s["total_ips"] for s in subs), "used_ips": sum(s["used_ips"] for s in subs)}})
