"""Manila v2 for the sandbox, part one: version discovery, share types (with extra specs), share
networks (on a Neutron network and subnet) and security services. Shares are in
:mod:`app.sandbox.share_core`.

More in docs/code/sandbox.md (app.sandbox.share_misc).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from app.sandbox import auth
from app.sandbox.http import NOVA_KEYS, SandboxError, body, iso, no_content, public, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("share_misc", __name__)
discovery_bp = Blueprint("share_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
TYPES, NETWORKS, SERVICES = "manila_share_types", "manila_share_networks", "manila_security_services"
MAX_VERSION = "2.84"
SECURITY_TYPES = ("ldap", "kerberos", "active_directory")


def error(err: SandboxError) -> Response:
    """Manila's error body for ``err``."""
    return reply({NOVA_KEYS.get(err.status, "computeFault"): {"code": err.status,
                                                             "message": err.message}}, err.status)


def answer_version(resp: Response) -> Response:
    """Echo the microversion asked (``2.0`` when none was), as Manila does."""
    asked = request.headers.get("X-OpenStack-Manila-API-Version") or "2.0"
    resp.headers["X-OpenStack-Manila-API-Version"] = asked
    resp.headers["Vary"] = "X-OpenStack-Manila-API-Version"
    return resp


bp.register_error_handler(SandboxError, error)
bp.after_request(answer_version)


def _version() -> Obj:
    base = request.host_url.rstrip("/")
    return {"id": "v2.0", "status": "CURRENT", "version": MAX_VERSION, "min_version": "2.0",
            "updated": "2015-08-27T11:33:21Z", "links": [{"href": f"{base}/share/v2/", "rel": "self"}],
            "media-types": [{"base": "application/json",
                             "type": "application/vnd.openstack.share+json;version=1"}]}


@discovery_bp.get("/share")
@discovery_bp.get("/share/")
def versions() -> Any:
    return reply({"versions": [_version()]}, 300)


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"versions": [_version()]})


def owned(collection: str, ident: str, what: str) -> Obj:
    """The caller's object ``ident`` (an admin sees all). :raises SandboxError: 404."""
    obj = store().get(collection, ident)
    if obj is None or not auth.can_see(obj):
        raise SandboxError(404, f"{what} {ident} could not be found.")
    return obj


def find_type(ident: str) -> Obj:
    """A share type by id or name (a private type only for its project or an admin).

    :raises SandboxError: 404 ``Share type <x> could not be found.``"""
    for st_type in store().all(TYPES):
        if ident in (st_type["id"], st_type["name"]) and (st_type["is_public"] or auth.can_see(st_type)):
            return st_type
    raise SandboxError(404, f"Share type {ident} could not be found.")


def _type_view(t: Obj) -> Obj:
    out = public(t)
    out["share_type_access:is_public"] = out["os-share-type-access:is_public"] = t["is_public"]
    out["required_extra_specs"] = {k: v for k, v in t["extra_specs"].items()
                                   if k == "driver_handles_share_servers"}
    return out


def _bool_spec(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
        raise SandboxError(400, f"Invalid boolean extra spec driver_handles_share_servers : {value}")
    return "True" if text in ("true", "1", "yes", "on") else "False"


@bp.post("/types")
def create_type() -> Any:
    auth.require_admin("Policy doesn't allow share_type:create to be performed.")
    data = body("share_type")
    name = data.get("name")
    if not name:
        raise SandboxError(400, "Share type name is not valid.")
    st = store()
    if any(t["name"] == name for t in st.all(TYPES)):
        raise SandboxError(409, f"Share Type {name} already exists.")
    specs = {str(k): str(v) for k, v in (data.get("extra_specs") or {}).items()}
    if "driver_handles_share_servers" not in specs:
        raise SandboxError(400, "Required extra specification: driver_handles_share_servers")
    specs["driver_handles_share_servers"] = _bool_spec(specs["driver_handles_share_servers"])
    is_public = data.get("share_type_access:is_public", data.get("os-share-type-access:is_public", True))
    t = st.add(TYPES, {"id": st.new_id(), "name": name, "description": data.get("description"),
                       "extra_specs": specs, "is_public": bool(is_public), "is_default": False,
                       "project_id": auth.ctx().project_id})
    view = _type_view(t)
    return reply({"share_type": view, "volume_type": view})


@bp.get("/types")
def list_types() -> Any:
    items = [_type_view(t) for t in store().all(TYPES) if t["is_public"] or auth.can_see(t)]
    return reply({"share_types": items, "volume_types": items})


@bp.get("/types/<ident>")
def show_type(ident: str) -> Any:
    view = _type_view(find_type(ident))
    return reply({"share_type": view, "volume_type": view})


@bp.delete("/types/<ident>")
def delete_type(ident: str) -> Any:
    auth.require_admin("Policy doesn't allow share_type:delete to be performed.")
    t = find_type(ident)
    if any(s.get("share_type") == t["id"] for s in store().all("manila_shares")):
        raise SandboxError(400, f"Share Type {t['id']} deletion is not allowed with shares present "
                                f"with the type.")
    store().remove(TYPES, t["id"])
    return no_content(202)


@bp.get("/types/<ident>/extra_specs")
def get_specs(ident: str) -> Any:
    return reply({"extra_specs": find_type(ident)["extra_specs"]})


@bp.post("/types/<ident>/extra_specs")
def set_specs(ident: str) -> Any:
    auth.require_admin("Policy doesn't allow share_types_extra_spec:create to be performed.")
    t = find_type(ident)
    specs = body().get("extra_specs")
    if not isinstance(specs, dict):
        raise SandboxError(400, "Malformed extra specs.")
    if "driver_handles_share_servers" in specs:
        specs["driver_handles_share_servers"] = _bool_spec(specs["driver_handles_share_servers"])
    t["extra_specs"].update({str(k): str(v) for k, v in specs.items()})
    store().touch()
    return reply({"extra_specs": t["extra_specs"]})


@bp.delete("/types/<ident>/extra_specs/<key>")
def unset_spec(ident: str, key: str) -> Any:
    auth.require_admin("Policy doesn't allow share_types_extra_spec:delete to be performed.")
    t = find_type(ident)
    if key == "driver_handles_share_servers":
        raise SandboxError(403, f"Extra spec {key} is a required extra spec and cannot be deleted.")
    if key not in t["extra_specs"]:
        raise SandboxError(404, f"Share Type {t['id']} has no extra specs with key {key}.")
    del t["extra_specs"][key]
    store().touch()
    return no_content(202)


# ---- share networks ----------------------------------------------------------------------------
def _net_fields(data: Obj, current: Obj | None = None) -> Obj:
    """Validate ``neutron_net_id``/``neutron_subnet_id`` and derive the segment fields."""
    st = store()
    net_id = data.get("neutron_net_id", (current or {}).get("neutron_net_id"))
    subnet_id = data.get("neutron_subnet_id", (current or {}).get("neutron_subnet_id"))
    out: Obj = {"neutron_net_id": net_id, "neutron_subnet_id": subnet_id, "cidr": None,
                "ip_version": None, "network_type": None, "segmentation_id": None}
    if subnet_id:
        subnet = st.get("subnets", subnet_id)
        if subnet is None:
            raise SandboxError(400, f"Subnet {subnet_id} could not be found.")
        if net_id and subnet["network_id"] != net_id:
            raise SandboxError(400, f"Subnet {subnet_id} does not belong to network {net_id}.")
        out.update(cidr=subnet.get("cidr"), ip_version=subnet.get("ip_version"))
    if net_id:
        net = st.get("networks", net_id)
        if net is None:
            raise SandboxError(400, f"Network {net_id} could not be found.")
        out.update(network_type=net.get("provider:network_type", "vxlan"),
                   segmentation_id=net.get("provider:segmentation_id"))
    return out


def _network_view(n: Obj) -> Obj:
    out = public(n)
    out["security_service_ids"] = list(n["_services"])
    out["share_network_subnets"] = [{
        "id": n["_subnet_id"], "neutron_net_id": n["neutron_net_id"],
        "neutron_subnet_id": n["neutron_subnet_id"], "cidr": n["cidr"], "ip_version": n["ip_version"],
        "network_type": n["network_type"], "segmentation_id": n["segmentation_id"],
        "availability_zone": None, "share_network_id": n["id"]}]
    return out


@bp.post("/share-networks")
def create_network() -> Any:
    data = body("share_network")
    st = store()
    now = iso(st.clock(), "cinder")
    n = {"id": st.new_id(), "name": data.get("name"), "description": data.get("description"),
         **_net_fields(data), "project_id": auth.ctx().project_id, "created_at": now,
         "updated_at": None, "gateway": None, "mtu": 1450, "status": "active",
         "_services": [], "_subnet_id": st.new_id()}
    st.add(NETWORKS, n)
    return reply({"share_network": _network_view(n)})


@bp.get("/share-networks")
@bp.get("/share-networks/detail")
def list_networks() -> Any:
    return reply({"share_networks": [_network_view(n) for n in auth.visible(store().all(NETWORKS))]})


@bp.get("/share-networks/<ident>")
def show_network(ident: str) -> Any:
    return reply({"share_network": _network_view(owned(NETWORKS, ident, "Share network"))})


@bp.put("/share-networks/<ident>")
def update_network(ident: str) -> Any:
    n = owned(NETWORKS, ident, "Share network")
    data = body("share_network")
    if ({"neutron_net_id", "neutron_subnet_id"} & set(data)) and any(
            s.get("share_network_id") == n["id"] for s in store().all("manila_shares")):
        raise SandboxError(403, "The share network has shares; its network cannot be changed.")
    n.update(_net_fields(data, n))
    for key in ("name", "description"):
        if key in data:
            n[key] = data[key]
    n["updated_at"] = iso(store().clock(), "cinder")
    store().touch()
    return reply({"share_network": _network_view(n)})


@bp.delete("/share-networks/<ident>")
def delete_network(ident: str) -> Any:
    n = owned(NETWORKS, ident, "Share network")
    if any(s.get("share_network_id") == n["id"] for s in store().all("manila_shares")):
        raise SandboxError(409, f"Cannot delete share network {n['id']}. There are shares present on it.")
    store().remove(NETWORKS, n["id"])
    return no_content(202)


@bp.post("/share-networks/<ident>/action")
def network_action(ident: str) -> Any:
    n = owned(NETWORKS, ident, "Share network")
    data = body()
    for action in ("add_security_service", "remove_security_service"):
        if action in data:
            sid = (data[action] or {}).get("security_service_id")
            service = owned(SERVICES, str(sid), "Security service")
            if action.startswith("add"):
                if service["id"] in n["_services"]:
                    raise SandboxError(400, f"Security service {sid} is already associated with "
                                            f"share network {n['id']}.")
                if any(store().get(SERVICES, other)["type"] == service["type"]
                       for other in n["_services"] if store().get(SERVICES, other)):
                    raise SandboxError(400, f"Share network {n['id']} already has a security "
                                            f"service of type {service['type']}.")
                n["_services"].append(service["id"])
            elif service["id"] in n["_services"]:
                n["_services"].remove(service["id"])
            else:
                raise SandboxError(400, f"Security service {sid} is not associated with share "
                                        f"network {n['id']}.")
            store().touch()
            return reply({"share_network": _network_view(n)})
    raise SandboxError(400, "Invalid request body: unknown share network action.")


# ---- security services -------------------------------------------------------------------------
SERVICE_FIELDS = ("name", "description", "dns_ip", "server", "domain", "user", "password", "ou",
                  "default_ad_site")


@bp.post("/security-services")
def create_service() -> Any:
    data = body("security_service")
    if data.get("type") not in SECURITY_TYPES:
        raise SandboxError(400, f"Invalid type {data.get('type')!r}. Valid types are "
                                f"{list(SECURITY_TYPES)}.")
    st = store()
    s = {"id": st.new_id(), "type": data["type"], **{k: data.get(k) for k in SERVICE_FIELDS},
         "status": "new", "project_id": auth.ctx().project_id,
         "created_at": iso(st.clock(), "cinder"), "updated_at": None}
    st.add(SERVICES, s)
    return reply({"security_service": _service_view(s)})


def _service_view(s: Obj) -> Obj:
    out = public(s)
    out["share_networks"] = [n["id"] for n in store().all(NETWORKS) if s["id"] in n["_services"]]
    return out


@bp.get("/security-services")
@bp.get("/security-services/detail")
def list_services() -> Any:
    items = auth.visible(store().all(SERVICES))
    wanted = request.args.get("share_network_id")
    if wanted:
        items = [s for s in items if s["id"] in (store().get(NETWORKS, wanted) or {}).get("_services", [])]
    return reply({"security_services": [_service_view(s) for s in items]})


@bp.get("/security-services/<ident>")
def show_service(ident: str) -> Any:
    return reply({"security_service": _service_view(owned(SERVICES, ident, "Security service"))})


@bp.put("/security-services/<ident>")
def update_service(ident: str) -> Any:
    s = owned(SERVICES, ident, "Security service")
    data = body("security_service")
    if "type" in data and data["type"] != s["type"]:
        raise SandboxError(400, "Invalid security service update: the type cannot be changed.")
    for key in SERVICE_FIELDS:
        if key in data:
            s[key] = data[key]
    s["updated_at"] = iso(store().clock(), "cinder")
    store().touch()
    return reply({"security_service": _service_view(s)})


@bp.delete("/security-services/<ident>")
def delete_service(ident: str) -> Any:
    s = owned(SERVICES, ident, "Security service")
    if any(s["id"] in n["_services"] for n in store().all(NETWORKS)):
        raise SandboxError(403, f"Security service {s['id']} is in use by a share network.")
    store().remove(SERVICES, s["id"])
    return no_content(202)
