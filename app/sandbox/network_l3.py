"""Neutron v2.0 L3 for the sandbox: routers (external gateway, interfaces, extra routes) and
floating IPs (allocated from an external network, associated with a port reachable through a
router), with Neutron's errors (RouterInUse, RouterInterfaceNotFound,
ExternalGatewayForFloatingIPNotFound...).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from app.sandbox import auth, ipam, quotas
from app.sandbox.http import SandboxError, body, filter_by_args, no_content, paginate, public, reply
from app.sandbox.network_bodies import created, one_body
from app.sandbox.network_core import get_network, get_subnet
from app.sandbox.network_ports import bind_port, create_port, get_port, release_port
from app.sandbox.network_sg import stamp
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("network_l3", __name__)


def get_router(router_id: str) -> Obj:
    return auth.owned(store(), "routers", router_id, "Router", kind="RouterNotFound")


def router_view(router: Obj) -> Obj:
    out = public(router)
    gw = next(iter(store().find("ports", device_id=router["id"], device_owner="network:router_gateway")), None)
    if gw is None:
        out["external_gateway_info"] = None
    else:
        out["external_gateway_info"] = {"network_id": gw["network_id"], "enable_snat": router.get("_snat", True),
                                        "external_fixed_ips": list(gw["fixed_ips"])}
    return out


def _set_gateway(router: Obj, info: Obj | None) -> None:
    st = store()
    for old in st.find("ports", device_id=router["id"], device_owner="network:router_gateway"):
        if info and info.get("network_id") == old["network_id"] and "external_fixed_ips" not in info:
            router["_snat"] = info.get("enable_snat", True)
            return
        if st.find("floatingips", router_id=router["id"]):
            raise SandboxError(409, f"Gateway cannot be updated for router {router['id']}, since a gateway to "
                               f"external network {old['network_id']} is required by one or more floating IPs.",
                               "RouterExternalGatewayInUseByFloatingIp")
        st.remove("ports", old["id"])
    if not info or not info.get("network_id"):
        return
    net = get_network(info["network_id"])
    if not net.get("router:external"):
        raise SandboxError(400, f"Bad router request: Network {net['id']} is not an external network.",
                           "BadRequest")
    create_port({"network_id": net["id"], "device_id": router["id"], "device_owner": "network:router_gateway",
                 "fixed_ips": info.get("external_fixed_ips") or None}, "", check_quota=False)
    router["_snat"] = info.get("enable_snat", True)


@bp.get("/routers")
def list_routers() -> Any:
    items = auth.visible(store().all("routers"), admin_sees_all=True)
    items = filter_by_args(items, ("id", "name", "status", "project_id", "tenant_id", "admin_state_up",
                                   "description"))
    return reply({"routers": [router_view(r) for r in paginate(items)]})


@bp.post("/routers")
def create_router() -> Any:
    """``{"router": {...}}``; Neutron's L3 API has no bulk create."""
    return created("router", _make_router, allow_bulk=False)


def _make_router(data: Obj) -> Obj:
    st = store()
    project = data.get("project_id") or data.get("tenant_id") or auth.ctx().project_id
    quotas.check(st, project, "network", "router", len(st.find("routers", project_id=project)))
    router = stamp({"id": st.new_id(), "name": data.get("name", ""), "status": "ACTIVE",
                    "admin_state_up": data.get("admin_state_up", True), "routes": [],
                    "distributed": bool(data.get("distributed", False)), "ha": bool(data.get("ha", False)),
                    "availability_zones": ["nova"], "availability_zone_hints": [], "flavor_id": None,
                    "description": data.get("description", "")}, project)
    st.add("routers", router)
    try:
        _set_gateway(router, data.get("external_gateway_info"))
    except SandboxError:
        st.remove("routers", router["id"])
        raise
    return router_view(router)


@bp.get("/routers/<router_id>")
def show_router(router_id: str) -> Any:
    return reply({"router": router_view(get_router(router_id))})


def _check_routes(router: Obj, routes: list[Obj]) -> list[Obj]:
    cidrs = [s["cidr"] for p in store().find("ports", device_id=router["id"])
             for s in (store().get("subnets", ip["subnet_id"]) for ip in p["fixed_ips"]) if s]
    for r in routes:
        if not any(ipam.in_subnet(r.get("nexthop", ""), c) for c in cidrs):
            raise SandboxError(400, f"Invalid format for routes: {r}, the nexthop is not connected with router",
                               "InvalidRoutes")
    return [{"destination": r["destination"], "nexthop": r["nexthop"]} for r in routes]


@bp.put("/routers/<router_id>")
def update_router(router_id: str) -> Any:
    router = get_router(router_id)
    data = one_body("router")
    if "external_gateway_info" in data:
        _set_gateway(router, data["external_gateway_info"])
    if "routes" in data:
        router["routes"] = _check_routes(router, data["routes"] or [])
    for key in ("name", "description", "admin_state_up"):
        if key in data:
            router[key] = data[key]
    stamp(router, router["project_id"])
    return reply({"router": router_view(router)})


@bp.delete("/routers/<router_id>")
def delete_router(router_id: str) -> Any:
    st = store()
    router = get_router(router_id)
    if st.find("ports", device_id=router_id, device_owner="network:router_interface"):
        raise SandboxError(409, f"Router {router_id} still has ports", "RouterInUse")
    if st.find("floatingips", router_id=router_id):
        raise SandboxError(409, f"Router {router_id} still has floating IPs associated", "RouterInUse")
    _set_gateway(router, None)
    st.remove("routers", router["id"])
    return no_content()


def _interface_info(router: Obj, port: Obj) -> Obj:
    subs = [ip["subnet_id"] for ip in port["fixed_ips"]]
    return {"id": router["id"], "tenant_id": router["project_id"], "project_id": router["project_id"],
            "port_id": port["id"], "network_id": port["network_id"], "subnet_id": subs[0] if subs else None,
            "subnet_ids": subs}


@bp.put("/routers/<router_id>/add_router_interface")
def add_interface(router_id: str) -> Any:
    st = store()
    router = get_router(router_id)
    data = body()
    if data.get("port_id") and data.get("subnet_id"):
        raise SandboxError(400, "Bad router request: Cannot specify both subnet-id and port-id", "BadRequest")
    attached = {ip["subnet_id"] for p in st.find("ports", device_id=router_id) for ip in p["fixed_ips"]}
    if data.get("port_id"):
        port = get_port(data["port_id"])
        if port["device_id"]:
            raise SandboxError(409, f"Port {port['id']} is in use by {port['device_id']}.", "PortInUse")
        if not port["fixed_ips"]:
            raise SandboxError(400, "Bad router request: Router port must have at least one fixed IP",
                               "BadRequest")
        for ip in port["fixed_ips"]:
            if ip["subnet_id"] in attached:
                raise SandboxError(400, f"Bad router request: Router already has a port on subnet "
                                   f"{ip['subnet_id']}.", "BadRequest")
        bind_port(port, router_id, "network:router_interface")
    elif data.get("subnet_id"):
        sub = get_subnet(data["subnet_id"])
        if not sub.get("gateway_ip"):
            raise SandboxError(400, "Bad router request: Subnet for router interface must have a gateway IP.",
                               "BadRequest")
        if sub["id"] in attached:
            raise SandboxError(400, f"Bad router request: Router already has a port on subnet {sub['id']}.",
                               "BadRequest")
        port = create_port({"network_id": sub["network_id"], "device_id": router_id,
                            "device_owner": "network:router_interface",
                            "fixed_ips": [{"subnet_id": sub["id"], "ip_address": sub["gateway_ip"]}]},
                           sub["project_id"])
    else:
        raise SandboxError(400, "Bad router request: Either subnet_id or port_id must be specified", "BadRequest")
    stamp(router, router["project_id"])
    return reply(_interface_info(router, port))


@bp.put("/routers/<router_id>/remove_router_interface")
def remove_interface(router_id: str) -> Any:
    st = store()
    router = get_router(router_id)
    data = body()
    ports = st.find("ports", device_id=router_id, device_owner="network:router_interface")
    if data.get("port_id"):
        port = next((p for p in ports if p["id"] == data["port_id"]), None)
        if port is None:
            raise SandboxError(404, f"Router {router_id} does not have an interface with id {data['port_id']}",
                               "RouterInterfaceNotFound")
    elif data.get("subnet_id"):
        port = next((p for p in ports if any(ip["subnet_id"] == data["subnet_id"] for ip in p["fixed_ips"])), None)
        if port is None:
            raise SandboxError(404, f"Router {router_id} has no interface on subnet {data['subnet_id']}",
                               "RouterInterfaceNotFoundForSubnet")
    else:
        raise SandboxError(400, "Bad router request: Either subnet_id or port_id must be specified", "BadRequest")
    info = _interface_info(router, port)
    st.remove("ports", port["id"])
    return reply(info)


@bp.put("/routers/<router_id>/add_extraroutes")
def add_routes(router_id: str) -> Any:
    router = get_router(router_id)
    new = _check_routes(router, one_body("router").get("routes", []))
    router["routes"] = router["routes"] + [r for r in new if r not in router["routes"]]
    return reply({"router": router_view(router)})


@bp.put("/routers/<router_id>/remove_extraroutes")
def remove_routes(router_id: str) -> Any:
    router = get_router(router_id)
    gone = one_body("router").get("routes", [])
    router["routes"] = [r for r in router["routes"] if r not in gone]
    return reply({"router": router_view(router)})


# ---- floating IPs ---------------------------------------------------------------------------
def _router_for(port: Obj, fip_net: str) -> str:
    """The router that connects ``port``'s subnets to the external network ``fip_net``."""
    st = store()
    subnets = {ip["subnet_id"] for ip in port["fixed_ips"]}
    for iface in st.all("ports"):
        if iface["device_owner"] != "network:router_interface":
            continue
        if subnets & {ip["subnet_id"] for ip in iface["fixed_ips"]} and st.find(
                "ports", device_id=iface["device_id"], device_owner="network:router_gateway", network_id=fip_net):
            return str(iface["device_id"])
    sub = next(iter(subnets), None)
    raise SandboxError(404, f"External network {fip_net} is not reachable from subnet {sub}.  Therefore, cannot "
                       f"associate Port {port['id']} with a Floating IP.", "ExternalGatewayForFloatingIPNotFound")


def _associate(fip: Obj, port_id: str | None, fixed_ip: str | None) -> None:
    if not port_id:
        fip.update(port_id=None, fixed_ip_address=None, router_id=None, status="DOWN", port_details=None)
        return
    st = store()
    port = get_port(port_id)
    if not port["fixed_ips"]:
        raise SandboxError(400, f"Bad floatingip request: Port {port_id} does not have a fixed IP.", "BadRequest")
    addrs = [ip["ip_address"] for ip in port["fixed_ips"]]
    if fixed_ip and fixed_ip not in addrs:
        raise SandboxError(400, f"Bad floatingip request: Port {port_id} does not have fixed ip {fixed_ip}.",
                           "BadRequest")
    fixed_ip = fixed_ip or next((a for a in addrs if ":" not in a), addrs[0])
    for other in st.find("floatingips", port_id=port_id, fixed_ip_address=fixed_ip):
        if other["id"] != fip["id"]:
            raise SandboxError(409, f"Cannot associate floating IP {fip['floating_ip_address']} ({fip['id']}) "
                               f"with port {port_id} using fixed IP {fixed_ip}, as that fixed IP already has a "
                               f"floating IP on external network {other['floating_network_id']}.",
                               "FloatingIPPortAlreadyAssociated")
    router_id = _router_for(port, fip["floating_network_id"])
    fip.update(port_id=port_id, fixed_ip_address=fixed_ip, router_id=router_id, status="ACTIVE",
               port_details={"name": port["name"], "network_id": port["network_id"],
                             "mac_address": port["mac_address"], "admin_state_up": port["admin_state_up"],
                             "status": port["status"], "device_id": port["device_id"],
                             "device_owner": port["device_owner"]})


@bp.get("/floatingips")
def list_fips() -> Any:
    items = auth.visible(store().all("floatingips"), admin_sees_all=True)
    items = filter_by_args(items, ("id", "floating_ip_address", "floating_network_id", "port_id", "router_id",
                                   "fixed_ip_address", "status", "project_id", "tenant_id", "description"))
    return reply({"floatingips": [public(f) for f in paginate(items)]})


@bp.post("/floatingips")
def create_fip() -> Any:
    """``{"floatingip": {...}}``; no bulk create (as Neutron's L3 API)."""
    return created("floatingip", _make_fip, allow_bulk=False)


def _make_fip(data: Obj) -> Obj:
    st = store()
    project = data.get("project_id") or data.get("tenant_id") or auth.ctx().project_id
    net = get_network(str(data.get("floating_network_id")))
    if not net.get("router:external"):
        raise SandboxError(400, f"Bad floatingip request: Network {net['id']} is not a valid external network.",
                           "BadRequest")
    quotas.check(st, project, "network", "floatingip", len(st.find("floatingips", project_id=project)))
    fip_id = st.new_id()
    wanted: Obj = {}
    if data.get("floating_ip_address"):
        wanted["ip_address"] = data["floating_ip_address"]
    if data.get("subnet_id"):
        wanted["subnet_id"] = data["subnet_id"]
    gw_port = create_port({"network_id": net["id"], "device_id": fip_id, "device_owner": "network:floatingip",
                           "fixed_ips": [wanted] if wanted else None}, "", check_quota=False)
    if not gw_port["fixed_ips"]:
        st.remove("ports", gw_port["id"])
        raise SandboxError(409, f"No more IP addresses available on network {net['id']}.",
                           "IpAddressGenerationFailure")
    fip = stamp({"id": fip_id, "floating_ip_address": gw_port["fixed_ips"][0]["ip_address"],
                 "floating_network_id": net["id"], "router_id": None, "port_id": None, "fixed_ip_address": None,
                 "status": "DOWN", "dns_domain": "", "dns_name": "", "port_details": None, "qos_policy_id": None,
                 "port_forwardings": [], "description": data.get("description", "")}, project)
    st.add("floatingips", fip)
    try:
        _associate(fip, data.get("port_id"), data.get("fixed_ip_address"))
    except SandboxError:
        st.remove("floatingips", fip_id)
        st.remove("ports", gw_port["id"])
        raise
    return public(fip)


@bp.get("/floatingips/<fip_id>")
def show_fip(fip_id: str) -> Any:
    return reply({"floatingip": public(auth.owned(store(), "floatingips", fip_id, "Floating IP",
                                                  kind="FloatingIPNotFound"))})


@bp.put("/floatingips/<fip_id>")
def update_fip(fip_id: str) -> Any:
    fip = auth.owned(store(), "floatingips", fip_id, "Floating IP", kind="FloatingIPNotFound")
    data = one_body("floatingip")
    if "port_id" in data:
        _associate(fip, data["port_id"], data.get("fixed_ip_address"))
    if "description" in data:
        fip["description"] = data["description"]
    stamp(fip, fip["project_id"])
    return reply({"floatingip": public(fip)})


@bp.delete("/floatingips/<fip_id>")
def delete_fip(fip_id: str) -> Any:
    st = store()
    auth.owned(st, "floatingips", fip_id, "Floating IP", kind="FloatingIPNotFound")
    for port in st.find("ports", device_id=fip_id, device_owner="network:floatingip"):
        release_port(port["id"])
    st.remove("floatingips", fip_id)
    return no_content()
