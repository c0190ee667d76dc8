"""Ironic v1 for the sandbox (catalog type ``baremetal``): nodes and port groups to attach ports
to (two nodes ``node-0``, ``node-1`` and a port group ``pg-0`` on ``node-0``, made on first use)
and the ports Heat's ``OS::Ironic::Port`` makes.

Paths (under ``/baremetal/v1``), as Ironic's API reference: ``GET /nodes[/{uuid or name}]``,
``GET /portgroups[/{uuid or name}]``, ``GET|POST /ports`` (→ 201), ``GET|PATCH|DELETE
/ports/{uuid}`` (PATCH: a JSON patch list of ``replace``/``add``/``remove``). Microversions as
Ironic's: ``X-OpenStack-Ironic-API-Version`` (or ``OpenStack-API-Version: baremetal 1.x``),
1.1 when absent, 406 above 1.89; a field newer than the version asked is refused with 406
(``local_link_connection``/``pxe_enabled`` 1.19, ``portgroup_uuid`` 1.24,
``physical_network`` 1.34, ``is_smartnic`` 1.53). Every call needs the admin role (403, as
Ironic's default policy). Errors: ``{"error_message": "<JSON faultstring...>"}``.
"""
from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, iso, microversion, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("baremetal", __name__)
discovery_bp = Blueprint("baremetal_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
NODES, GROUPS, PORTS = "ironic_nodes", "ironic_portgroups", "ironic_ports"
MIN, MAX = (1, 1), (1, 89)
MAC = re.compile(r"^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$")
FIELD_VERSIONS = {"local_link_connection": 19, "pxe_enabled": 19, "portgroup_uuid": 24,
                  "physical_network": 34, "is_smartnic": 53}
PORT_FIELDS = ("address", "node_uuid", "portgroup_uuid", "local_link_connection",
               "pxe_enabled", "physical_network", "extra", "is_smartnic")


def _version_doc() -> Obj:
    base = request.host_url.rstrip("/")
    return {"id": "v1", "status": "CURRENT", "min_version": "1.1", "version": "1.89",
            "links": [{"href": f"{base}/baremetal/v1/", "rel": "self"}]}


@discovery_bp.get("/baremetal")
@discovery_bp.get("/baremetal/")
def versions() -> Any:
    return reply({"name": "OpenStack Ironic API", "versions": [_version_doc()],
                  "default_version": _version_doc()})


@bp.after_request
def _headers(resp: Response) -> Response:
    resp.headers["X-OpenStack-Ironic-API-Minimum-Version"] = "1.1"
    resp.headers["X-OpenStack-Ironic-API-Maximum-Version"] = "1.89"
    major, minor = _asked_or_default()
    resp.headers["X-OpenStack-Ironic-API-Version"] = f"{major}.{minor}"
    return resp


def _asked_or_default() -> tuple[int, int]:
    legacy = request.headers.get("X-OpenStack-Ironic-API-Version", "")
    if legacy == "latest":
        return MAX
    if legacy:
        try:
            major, minor = legacy.split(".")
            return int(major), int(minor)
        except ValueError:
            return (0, 0)
    asked = microversion("baremetal")
    return MAX if asked == (99, 999) else (asked if asked != (0, 0) else MIN)


@bp.before_request
def _check() -> None:
    asked = _asked_or_default()
    if asked > MAX or asked < MIN:
        raise SandboxError(406, f"Version {asked[0]}.{asked[1]} was requested but the minor "
                                f"version is not supported by this service. The supported "
                                f"version range is: [1.1, 1.89].", "NotAcceptable")
    if not auth.ctx().is_admin:
        parts = request.path.strip("/").split("/")
        noun = parts[2].rstrip("s") if len(parts) > 2 else "api"
        raise SandboxError(403, f"Access was denied to the following resource: "
                                f"baremetal:{noun}:{_verb()}", "Forbidden")
    _seed()


def _verb() -> str:
    return {"POST": "create", "PATCH": "update", "DELETE": "delete"}.get(request.method, "get")


def _seed() -> None:
    """Two nodes and a port group, made once (``_auto``: the service's own, not a leak)."""
    st = store()
    if st.all(NODES):
        return
    now = iso(st.clock())
    nodes = []
    for i in range(2):
        nodes.append(st.add(NODES, {
            "id": st.new_id(), "name": f"node-{i}", "driver": "ipmi", "power_state": "power off",
            "provision_state": "available", "maintenance": False, "resource_class": "baremetal",
            "properties": {"cpus": 8, "memory_mb": 16384, "local_gb": 100},
            "created_at": now, "_auto": True}))
    st.add(GROUPS, {"id": st.new_id(), "name": "pg-0", "node_uuid": nodes[0]["id"],
                    "address": "52:54:00:aa:00:00", "mode": "active-backup",
                    "standalone_ports_supported": True, "created_at": now, "_auto": True})


def _by_ident(collection: str, ident: str, what: str) -> Obj:
    for obj in store().all(collection):
        if obj["id"] == ident or obj.get("name") == ident:
            return obj
    raise SandboxError(404, f"{what} {ident} could not be found.", "NotFound")


def _uuid_view(obj: Obj, collection: str) -> Obj:
    base = request.host_url.rstrip("/")
    out = {k: v for k, v in obj.items() if not k.startswith("_") and k != "id"}
    out["uuid"] = obj["id"]
    out["links"] = [{"href": f"{base}/baremetal/v1/{collection}/{obj['id']}", "rel": "self"}]
    return out


@bp.get("/nodes")
@bp.get("/nodes/detail")
def list_nodes() -> Any:
    items = store().all(NODES)
    if request.args.get("name"):
        items = [n for n in items if n["name"] == request.args["name"]]
    return reply({"nodes": [_uuid_view(n, "nodes") for n in items]})


@bp.get("/nodes/<ident>")
def show_node(ident: str) -> Any:
    return reply(_uuid_view(_by_ident(NODES, ident, "Node"), "nodes"))


@bp.get("/portgroups")
@bp.get("/portgroups/detail")
def list_groups() -> Any:
    items = store().all(GROUPS)
    if request.args.get("name"):
        items = [g for g in items if g["name"] == request.args["name"]]
    return reply({"portgroups": [_uuid_view(g, "portgroups") for g in items]})


@bp.get("/portgroups/<ident>")
def show_group(ident: str) -> Any:
    return reply(_uuid_view(_by_ident(GROUPS, ident, "Portgroup"), "portgroups"))


# ---- ports --------------------------------------------------------------------------------------
def _port_view(port: Obj) -> Obj:
    minor = _asked_or_default()[1]
    out = _uuid_view(port, "ports")
    return {k: v for k, v in out.items() if FIELD_VERSIONS.get(k, 0) <= minor}


def _validate(port: Obj, own_id: str | None = None) -> None:
    minor = _asked_or_default()[1]
    for name, needs in FIELD_VERSIONS.items():
        if port.get(name) not in (None, {}, False) and minor < needs:
            raise SandboxError(406, f"Field {name} requires API version 1.{needs} or higher.",
                               "NotAcceptable")
    address = str(port.get("address") or "")
    if not MAC.match(address):
        raise SandboxError(400, f"Expected a MAC address but received {address}.", "InvalidMAC")
    port["address"] = address.lower()
    node = _by_ident(NODES, str(port.get("node_uuid") or ""), "Node")
    port["node_uuid"] = node["id"]
    if port.get("portgroup_uuid"):
        group = _by_ident(GROUPS, str(port["portgroup_uuid"]), "Portgroup")
        if group["node_uuid"] != node["id"]:
            raise SandboxError(400, "Port can not be added to a portgroup that belongs to a "
                                    "different node.", "Invalid")
        port["portgroup_uuid"] = group["id"]
    llc = port.get("local_link_connection")
    if llc and not isinstance(llc, dict):
        raise SandboxError(400, "local_link_connection must be a dictionary.", "Invalid")
    for other in store().all(PORTS):
        if other["address"] == port["address"] and other["id"] != own_id:
            raise SandboxError(409, f"A port with MAC address {port['address']} already exists.",
                               "MACAlreadyExists")


@bp.get("/ports")
@bp.get("/ports/detail")
def list_ports() -> Any:
    items = store().all(PORTS)
    node = request.args.get("node_uuid") or request.args.get("node")
    if node:
        items = [p for p in items if p["node_uuid"] == node]
    if request.args.get("address"):
        items = [p for p in items if p["address"] == request.args["address"].lower()]
    return reply({"ports": [_port_view(p) for p in items]})


@bp.post("/ports")
def create_port() -> Any:
    data = request.get_json(silent=True, force=True)
    if not isinstance(data, dict):
        raise SandboxError(400, "Invalid request body.", "Invalid")
    unknown = sorted(k for k in data if k not in PORT_FIELDS)
    if unknown:
        raise SandboxError(400, f"Unknown attribute for argument port: {', '.join(unknown)}",
                           "Invalid")
    st = store()
    port: Obj = {"id": st.new_id(), "address": data.get("address"),
                 "node_uuid": data.get("node_uuid"), "portgroup_uuid": data.get("portgroup_uuid"),
                 "local_link_connection": data.get("local_link_connection") or {},
                 "pxe_enabled": True if data.get("pxe_enabled") is None else data["pxe_enabled"],
                 "physical_network": data.get("physical_network"), "extra": data.get("extra") or {},
                 "is_smartnic": bool(data.get("is_smartnic")), "internal_info": {},
                 "created_at": iso(st.clock()), "updated_at": None}
    _validate(port)
    st.add(PORTS, port)
    return reply(_port_view(port), 201)


def _port(ident: str) -> Obj:
    port = store().get(PORTS, ident)
    if port is None:
        raise SandboxError(404, f"Port {ident} could not be found.", "NotFound")
    return port


@bp.get("/ports/<ident>")
def show_port(ident: str) -> Any:
    return reply(_port_view(_port(ident)))


@bp.patch("/ports/<ident>")
def update_port(ident: str) -> Any:
    port = _port(ident)
    patch = request.get_json(silent=True, force=True)
    if not isinstance(patch, list):
        raise SandboxError(400, "Invalid patch: a list of operations is expected.", "Invalid")
    changed = dict(port)
    for op in patch:
        path = str(op.get("path", "")).strip("/").split("/")
        if not path or path[0] not in PORT_FIELDS:
            raise SandboxError(400, f"Cannot update the field {op.get('path')}.", "Invalid")
        if op.get("op") in ("replace", "add"):
            if len(path) == 2 and isinstance(changed.get(path[0]), dict):
                changed[path[0]] = {**changed[path[0]], path[1]: op.get("value")}
            else:
                changed[path[0]] = op.get("value")
        elif op.get("op") == "remove":
            changed[path[0]] = {} if path[0] in ("extra", "local_link_connection") else None
        else:
            raise SandboxError(400, f"Invalid patch operation: {op.get('op')}", "Invalid")
    _validate(changed, own_id=port["id"])
    port.update(changed, updated_at=iso(store().clock()))
    store().touch()
    return reply(_port_view(port))


@bp.delete("/ports/<ident>")
def delete_port(ident: str) -> Any:
    store().remove(PORTS, _port(ident)["id"])
    return no_content()
