"""Octavia v2 for the sandbox: load balancers (VIP port allocated from the VIP subnet or network),
listeners and pools (members and health monitors are in :mod:`app.sandbox.loadbalancer_members`),
with Octavia's provisioning-status transitions.

A created object is ``PENDING_CREATE`` (its load balancer ``PENDING_UPDATE``) and becomes
``ACTIVE`` after the ``lb_provision`` delay; updates go through ``PENDING_UPDATE``, deletes through
``PENDING_DELETE``. While a load balancer is not ``ACTIVE`` every change to it or its children is
refused with Octavia's 409 "Load Balancer ... is immutable and cannot be updated.".
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, quotas
from app.sandbox.http import SandboxError, body, filter_by_args, iso, no_content, paginate, public, reply
from app.sandbox.loadbalancer_admin import check_lb_options
from app.sandbox.network_core import get_network, get_subnet
from app.sandbox.network_ports import bind_port, create_port, get_port, release_port
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("loadbalancer", __name__)

# collection -> (response key, display name, default fields)
KINDS: dict[str, tuple[str, str]] = {
    "loadbalancers": ("loadbalancer", "Load Balancer"), "listeners": ("listener", "Listener"),
    "pools": ("pool", "Pool"), "members": ("member", "Member"), "healthmonitors": ("healthmonitor", "Health Monitor"),
}
PROTOCOLS = ("HTTP", "HTTPS", "TCP", "UDP", "TERMINATED_HTTPS", "SCTP", "PROMETHEUS", "PROXY", "PROXYV2")
ALGORITHMS = ("ROUND_ROBIN", "LEAST_CONNECTIONS", "SOURCE_IP", "SOURCE_IP_PORT")
HM_TYPES = ("HTTP", "HTTPS", "PING", "TCP", "TLS-HELLO", "UDP-CONNECT", "SCTP")


def _get(collection: str, obj_id: str) -> Obj:
    obj = store().get(collection, obj_id)
    if obj is None or not auth.can_see(obj):
        raise SandboxError(404, f"{KINDS[collection][1]} {obj_id} not found.")
    return obj


def _lb_of(obj: Obj) -> Obj:
    lb = store().get("loadbalancers", obj["_lb_id"])
    if lb is None:
        raise SandboxError(404, f"Load Balancer {obj['_lb_id']} not found.")
    return lb


def _require_mutable(lb: Obj) -> None:
    if lb["provisioning_status"] != "ACTIVE":
        raise SandboxError(409, f"Load Balancer {lb['id']} is immutable and cannot be updated.")


def _base(data: Obj, lb_id: str | None, project_id: str | None) -> Obj:
    now = iso(store().clock())
    return {"id": store().new_id(), "name": data.get("name", ""), "description": data.get("description", ""),
            "admin_state_up": data.get("admin_state_up", True), "project_id": project_id,
            "provisioning_status": "PENDING_CREATE", "operating_status": "OFFLINE", "tags": list(data.get("tags") or []),
            "created_at": now, "updated_at": None, "_lb_id": lb_id}


def _settle_later(lb: Obj, *objs: Obj, operating: str = "ONLINE") -> None:
    """Put ``lb`` in PENDING_UPDATE (unless creating) and make it and ``objs`` ACTIVE after the delay."""
    st, delay = store(), sb().behaviour.delay("lb_provision")
    if lb["provisioning_status"] == "ACTIVE":
        lb["provisioning_status"] = "PENDING_UPDATE"
    st.schedule(lb, delay, {"provisioning_status": "ACTIVE", "operating_status": "ONLINE"})
    for obj in objs:
        st.schedule(obj, delay, {"provisioning_status": "ACTIVE", "operating_status": obj.get("_operating", operating)})


def _delete_later(lb: Obj, obj: Obj, collection: str) -> None:
    st, delay = store(), sb().behaviour.delay("lb_delete")
    obj["provisioning_status"] = "PENDING_DELETE"
    st.schedule(obj, delay, delete=True)
    if lb is not obj:
        lb["provisioning_status"] = "PENDING_UPDATE"
        st.schedule(lb, delay, {"provisioning_status": "ACTIVE"})


def _refs(collection: str, **match: Any) -> list[Obj]:
    return [{"id": o["id"]} for o in store().find(collection, **match) if o["provisioning_status"] != "PENDING_DELETE"]


def view(collection: str, obj: Obj) -> Obj:
    out = public(obj)
    oid = obj["id"]
    if collection == "loadbalancers":
        out.update(listeners=_refs("listeners", _lb_id=oid), pools=_refs("pools", _lb_id=oid))
    elif collection == "listeners":
        out.update(loadbalancers=[{"id": obj["_lb_id"]}], l7policies=_refs("l7policies", _listener_id=oid))
    elif collection == "pools":
        hm = store().find("healthmonitors", _pool_id=oid)
        out.update(loadbalancers=[{"id": obj["_lb_id"]}], members=_refs("members", _pool_id=oid),
                   listeners=[{"id": li["id"]} for li in store().find("listeners", default_pool_id=oid)],
                   healthmonitor_id=hm[0]["id"] if hm else None)
    elif collection == "healthmonitors":
        out["pools"] = [{"id": obj["_pool_id"]}]
    return out


PARENT_FILTERS = {"loadbalancer_id": "_lb_id", "listener_id": "_listener_id", "pool_id": "_pool_id"}


def _list(collection: str, **match: Any) -> Any:
    for arg, key in PARENT_FILTERS.items():
        if request.args.get(arg):
            match[key] = request.args[arg]
    items = auth.visible(store().find(collection, **match), admin_sees_all=True)
    items = filter_by_args(items, ("id", "name", "provisioning_status", "operating_status", "project_id",
                                   "protocol", "protocol_port", "address", "vip_address", "type", "lb_algorithm"))
    singular = KINDS[collection][0]
    key = singular[:-1] + "ies" if singular.endswith("y") else singular + "s"   # l7policies
    return reply({key: [view(collection, o) for o in paginate(items)], f"{key}_links": []})


def _check_quota(resource: str, collection: str, project: str | None) -> None:
    quotas.check(store(), project, "loadbalancer", resource, len(store().find(collection, project_id=project)))


# ---- load balancers -------------------------------------------------------------------------
@bp.get("/loadbalancers")
def list_lbs() -> Any:
    return _list("loadbalancers")


@bp.post("/loadbalancers")
def create_lb() -> Any:
    data = body("loadbalancer")
    c = auth.ctx()
    project = data.get("project_id") or c.project_id
    _check_quota("load_balancer", "loadbalancers", project)
    check_lb_options(data)
    lb = _base(data, None, project)
    lb["_lb_id"] = lb["id"]
    if data.get("vip_port_id"):
        port = get_port(data["vip_port_id"])
    else:
        if data.get("vip_subnet_id"):
            subnet = get_subnet(data["vip_subnet_id"])
            net_id, fixed = subnet["network_id"], [{"subnet_id": subnet["id"]}]
        elif data.get("vip_network_id"):
            net_id, fixed = get_network(data["vip_network_id"])["id"], None
        else:
            raise SandboxError(400, "Validation failure: VIP must contain one of: vip_port_id, vip_network_id, "
                               "vip_subnet_id.")
        if data.get("vip_address"):
            fixed = [dict((fixed or [{}])[0], ip_address=data["vip_address"])]
        try:
            port = create_port({"network_id": net_id, "fixed_ips": fixed, "name": f"octavia-lb-{lb['id']}",
                                "device_id": f"lb-{lb['id']}", "device_owner": "Octavia"}, project)
        except SandboxError as err:
            raise SandboxError(409 if err.status == 409 else 400, f"Validation failure: {err.message}") from None
        lb["_own_port"] = True
    if not port["fixed_ips"]:
        raise SandboxError(400, "Validation failure: the VIP network has no subnet.")
    lb.update(vip_address=port["fixed_ips"][0]["ip_address"], vip_port_id=port["id"],
              vip_subnet_id=port["fixed_ips"][0]["subnet_id"], vip_network_id=port["network_id"],
              vip_qos_policy_id=None, vip_vnic_type="normal", additional_vips=[], provider=data.get("provider", "amphora"),
              flavor_id=data.get("flavor_id"), availability_zone=data.get("availability_zone"))
    store().add("loadbalancers", lb)
    _settle_later(lb)
    return reply({"loadbalancer": view("loadbalancers", lb)}, 201)


@bp.get("/loadbalancers/<lb_id>")
def show_lb(lb_id: str) -> Any:
    return reply({"loadbalancer": view("loadbalancers", _get("loadbalancers", lb_id))})


@bp.put("/loadbalancers/<lb_id>")
def update_lb(lb_id: str) -> Any:
    lb = _get("loadbalancers", lb_id)
    _require_mutable(lb)
    data = body("loadbalancer")
    for key in ("name", "description", "admin_state_up", "tags", "vip_qos_policy_id"):
        if key in data:
            lb[key] = data[key]
    lb["updated_at"] = iso(store().clock())
    _settle_later(lb)
    return reply({"loadbalancer": view("loadbalancers", lb)})


@bp.delete("/loadbalancers/<lb_id>")
def delete_lb(lb_id: str) -> Any:
    st = store()
    lb = _get("loadbalancers", lb_id)
    _require_mutable(lb)
    children = [(c, o) for c in ("l7rules", "l7policies", "listeners", "pools", "members", "healthmonitors")
                for o in st.find(c, _lb_id=lb_id)]
    if children and request.args.get("cascade", "false").lower() != "true":
        raise SandboxError(400, f"Validation failure: Cannot delete Load Balancer {lb_id} - it has children")
    for collection, obj in children:
        _delete_later(lb, obj, collection)
    port = st.get("ports", lb["vip_port_id"])
    if port is not None:
        if lb.get("_own_port"):
            release_port(port["id"])
        else:
            bind_port(port, "", "")
    _delete_later(lb, lb, "loadbalancers")
    return no_content()


@bp.get("/loadbalancers/<lb_id>/status")
def lb_status(lb_id: str) -> Any:
    st = store()
    lb = _get("loadbalancers", lb_id)

    def brief(o: Obj, **extra: Any) -> Obj:
        return {"id": o["id"], "name": o["name"], "provisioning_status": o["provisioning_status"],
                "operating_status": o["operating_status"], **extra}
    pools = {p["id"]: brief(p, members=[brief(m, address=m["address"], protocol_port=m["protocol_port"])
                                        for m in st.find("members", _pool_id=p["id"])],
                            **({"health_monitor": brief(h, type=h["type"])} if (h := next(iter(
                                st.find("healthmonitors", _pool_id=p["id"])), None)) else {}))
             for p in st.find("pools", _lb_id=lb_id)}
    listeners = [brief(li, pools=[pools[li["default_pool_id"]]] if li.get("default_pool_id") in pools else [])
                 for li in st.find("listeners", _lb_id=lb_id)]
    return reply({"statuses": {"loadbalancer": brief(lb, listeners=listeners)}})


@bp.get("/loadbalancers/<lb_id>/stats")
def lb_stats(lb_id: str) -> Any:
    _get("loadbalancers", lb_id)
    return reply({"stats": {"active_connections": 0, "bytes_in": 0, "bytes_out": 0, "request_errors": 0,
                            "total_connections": 0}})


# ---- listeners ------------------------------------------------------------------------------
@bp.get("/listeners")
def list_listeners() -> Any:
    return _list("listeners")


@bp.post("/listeners")
def create_listener() -> Any:
    st = store()
    data = body("listener")
    lb = _get("loadbalancers", str(data.get("loadbalancer_id")))
    _require_mutable(lb)
    if data.get("protocol") not in PROTOCOLS:
        raise SandboxError(400, f"Invalid input for field/attribute protocol. Value: '{data.get('protocol')}'.")
    port = data.get("protocol_port")
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise SandboxError(400, f"Invalid input for field/attribute protocol_port. Value: '{port}'.")
    if any(li["protocol_port"] == port and li["protocol"] == data["protocol"] for li in st.find("listeners", _lb_id=lb["id"])):
        raise SandboxError(409, f"Another Listener on this Load Balancer is already using protocol_port {port}")
    _check_quota("listener", "listeners", lb["project_id"])
    listener = _base(data, lb["id"], lb["project_id"])
    listener.update(protocol=data["protocol"], protocol_port=port, connection_limit=data.get("connection_limit", -1),
                    default_pool_id=data.get("default_pool_id"), default_tls_container_ref=data.get(
                        "default_tls_container_ref"), sni_container_refs=data.get("sni_container_refs", []),
                    insert_headers=data.get("insert_headers", {}), allowed_cidrs=data.get("allowed_cidrs"),
                    timeout_client_data=data.get("timeout_client_data", 50000),
                    timeout_member_connect=data.get("timeout_member_connect", 5000),
                    timeout_member_data=data.get("timeout_member_data", 50000),
                    timeout_tcp_inspect=data.get("timeout_tcp_inspect", 0), tls_ciphers=None, tls_versions=None,
                    alpn_protocols=None, hsts_include_subdomains=False, hsts_max_age=None, hsts_preload=False)
    st.add("listeners", listener)
    _settle_later(lb, listener)
    return reply({"listener": view("listeners", listener)}, 201)


def _show(collection: str, obj_id: str) -> Any:
    return reply({KINDS[collection][0]: view(collection, _get(collection, obj_id))})


def _update(collection: str, obj_id: str, fields: tuple[str, ...]) -> Any:
    obj = _get(collection, obj_id)
    lb = _lb_of(obj)
    _require_mutable(lb)
    data = body(KINDS[collection][0])
    for key in fields:
        if key in data:
            obj[key] = data[key]
    obj["provisioning_status"] = "PENDING_UPDATE"
    obj["updated_at"] = iso(store().clock())
    _settle_later(lb, obj)
    return reply({KINDS[collection][0]: view(collection, obj)})


def _delete(collection: str, obj_id: str) -> Any:
    obj = _get(collection, obj_id)
    lb = _lb_of(obj)
    _require_mutable(lb)
    st = store()
    if collection == "pools":
        for child in st.find("members", _pool_id=obj_id) + st.find("healthmonitors", _pool_id=obj_id):
            _delete_later(lb, child, "members")
        for li in st.find("listeners", default_pool_id=obj_id):
            li["default_pool_id"] = None
    if collection == "listeners":
        for policy in st.find("l7policies", _listener_id=obj_id):
            for rule in st.find("l7rules", _policy_id=policy["id"]):
                _delete_later(lb, rule, "l7rules")
            _delete_later(lb, policy, "l7policies")
    if collection == "listeners" and st.find("pools", _listener_id=obj_id):
        for pool in st.find("pools", _listener_id=obj_id):
            pool["_listener_id"] = None
    _delete_later(lb, obj, collection)
    return no_content()


LISTENER_FIELDS = ("name", "description", "admin_state_up", "connection_limit", "default_pool_id", "tags",
                   "insert_headers", "allowed_cidrs", "timeout_client_data", "timeout_member_connect",
                   "timeout_member_data", "timeout_tcp_inspect", "default_tls_container_ref", "sni_container_refs")


bp.add_url_rule("/listeners/<obj_id>", "show_listener", lambda obj_id: _show("listeners", obj_id))
bp.add_url_rule("/listeners/<obj_id>", "update_listener", lambda obj_id: _update("listeners", obj_id, LISTENER_FIELDS),
                methods=["PUT"])
bp.add_url_rule("/listeners/<obj_id>", "delete_listener", lambda obj_id: _delete("listeners", obj_id),
                methods=["DELETE"])


# ---- pools ----------------------------------------------------------------------------------
@bp.get("/pools")
def list_pools() -> Any:
    return _list("pools")


@bp.post("/pools")
def create_pool() -> Any:
    st = store()
    data = body("pool")
    listener = _get("listeners", data["listener_id"]) if data.get("listener_id") else None
    if listener is not None:
        lb = _lb_of(listener)
    elif data.get("loadbalancer_id"):
        lb = _get("loadbalancers", data["loadbalancer_id"])
    else:
        raise SandboxError(400, "Validation failure: loadbalancer_id or listener_id must be specified.")
    _require_mutable(lb)
    if data.get("protocol") not in PROTOCOLS:
        raise SandboxError(400, f"Invalid input for field/attribute protocol. Value: '{data.get('protocol')}'.")
    if data.get("lb_algorithm") not in ALGORITHMS:
        raise SandboxError(400, f"Invalid input for field/attribute lb_algorithm. Value: '{data.get('lb_algorithm')}'.")
    if listener is not None and listener.get("default_pool_id"):
        raise SandboxError(409, f"Listener {listener['id']} is already using default pool "
                           f"{listener['default_pool_id']}.")
    _check_quota("pool", "pools", lb["project_id"])
    pool = _base(data, lb["id"], lb["project_id"])
    pool.update(protocol=data["protocol"], lb_algorithm=data["lb_algorithm"],
                session_persistence=data.get("session_persistence"), tls_enabled=bool(data.get("tls_enabled")),
                tls_container_ref=None, ca_tls_container_ref=None, crl_container_ref=None, tls_ciphers=None,
                tls_versions=None, alpn_protocols=None, _listener_id=listener["id"] if listener else None)
    st.add("pools", pool)
    if listener is not None:
        listener["default_pool_id"] = pool["id"]
    _settle_later(lb, pool, *([listener] if listener else []))
    return reply({"pool": view("pools", pool)}, 201)


POOL_FIELDS = ("name", "description", "admin_state_up", "lb_algorithm", "session_persistence", "tags", "tls_enabled")
bp.add_url_rule("/pools/<obj_id>", "show_pool", lambda obj_id: _show("pools", obj_id))
bp.add_url_rule("/pools/<obj_id>", "update_pool", lambda obj_id: _update("pools", obj_id, POOL_FIELDS), methods=["PUT"])
bp.add_url_rule("/pools/<obj_id>", "delete_pool", lambda obj_id: _delete("pools", obj_id), methods=["DELETE"])


@bp.get("/providers")
def providers() -> Any:
    return reply({"providers": [{"name": "amphora", "description": "The sandbox amphora provider."}]})


@bp.get("/quotas/<project_id>")
def show_quota(project_id: str) -> Any:
    return reply({"quota": quotas.limits(store(), project_id, "loadbalancer")})


@bp.put("/quotas/<project_id>")
def update_quota(project_id: str) -> Any:
    auth.require_admin()
    data = dict(body("quota"))
    for alias, key in (("loadbalancer", "load_balancer"), ("healthmonitor", "health_monitor")):
        if alias in data:   # Octavia's newer names for the same two quotas
            data[key] = data.pop(alias)
    return reply({"quota": quotas.update(store(), project_id, "loadbalancer", data)}, 202)
