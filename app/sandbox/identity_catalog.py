"""Keystone v3 regions, services and endpoints for the sandbox, and the token catalog they make.

More in docs/code/sandbox.md (app.sandbox.identity_catalog).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.catalog import catalog
from app.sandbox.http import SandboxError, body, reply
from app.sandbox.identity_records import enforce, list_links
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("identity_catalog", __name__, url_prefix="/identity/v3")

INTERFACES = ("public", "internal", "admin")


@bp.before_request
def _authenticate() -> None:
    auth.authenticate(store())


def _base() -> str:
    return f"{request.host_url.rstrip('/')}/identity/v3"


def _missing(kind: str, ident: str) -> SandboxError:
    return SandboxError(404, f"Could not find {kind}: {ident}.", f"{kind.capitalize()}NotFound")


def _view(collection: str, obj: Obj) -> Obj:
    out = {k: v for k, v in obj.items() if not k.startswith("_")}
    out["links"] = {"self": f"{_base()}/{collection}/{obj['id']}"}
    return out


def _builtin() -> list[Obj]:
    """The sandbox's own catalog services (no created ones), for the caller's project."""
    return catalog(request.host_url, sb().extra_catalog, auth.ctx().project_id)


def full_catalog(project_id: str | None) -> list[Obj]:
    """The token catalog: the sandbox's own services plus the enabled services created through
    the API with their enabled endpoints (a service without endpoints is left out; endpoints
    created for a built-in service are added to its entry)."""
    st = store()
    out = catalog(request.host_url, sb().extra_catalog, project_id)
    by_id = {entry["id"]: entry for entry in out}
    created = {s["id"]: s for s in st.all("services")}
    for ep in st.all("endpoints"):
        if not ep.get("enabled", True):
            continue
        url = ep["url"]
        for key in ("%(tenant_id)s", "%(project_id)s", "$(tenant_id)s", "$(project_id)s"):
            url = url.replace(key, project_id or "")
        shown = {"id": ep["id"], "interface": ep["interface"], "region": ep.get("region_id"),
                 "region_id": ep.get("region_id"), "url": url}
        entry = by_id.get(ep["service_id"])
        if entry is None:
            svc = created.get(ep["service_id"])
            if svc is None or not svc.get("enabled", True):
                continue
            entry = by_id[svc["id"]] = {"id": svc["id"], "type": svc["type"], "name": svc.get("name", ""),
                                        "endpoints": []}
            out.append(entry)
        entry["endpoints"].append(shown)
    return out


# ---- regions ----------------------------------------------------------------------------------
def _region(ident: str) -> Obj:
    found = store().get("regions", ident)
    if found is None:
        raise _missing("region", ident)
    return found


def _region_fields(data: Obj, obj: Obj) -> None:
    parent = data.get("parent_region_id", obj.get("parent_region_id"))
    if parent is not None:
        _region(parent)
        if parent == obj.get("id"):
            raise SandboxError(400, "Circular reference or a repeated entry found in region tree - "
                               f"{parent}.", "CircularRegionHierarchyError")
    obj["parent_region_id"] = parent
    for key in data:
        if key not in ("id", "parent_region_id", "links"):
            obj[key] = data[key]


def _create_region(ident: str | None) -> Any:
    enforce("create_region")
    st = store()
    data = body("region")
    ident = ident or data.get("id") or st.new_id(hex_only=True)
    if st.get("regions", ident) is not None:
        raise SandboxError(409, f"Conflict occurred attempting to store region - Duplicate ID, {ident}.",
                           "Conflict")
    obj: Obj = {"id": ident, "description": "", "parent_region_id": None}
    _region_fields(data, obj)
    st.add("regions", obj)
    return reply({"region": _view("regions", obj)}, 201)


@bp.get("/regions")
def list_regions() -> Any:
    """Any authenticated user (Keystone's ``identity:list_regions`` is open)."""
    items = store().all("regions")
    if request.args.get("parent_region_id"):
        items = [r for r in items if r.get("parent_region_id") == request.args["parent_region_id"]]
    return reply({"regions": [_view("regions", r) for r in items], "links": list_links()})


@bp.post("/regions")
def create_region() -> Any:
    return _create_region(None)


@bp.put("/regions/<ident>")
def put_region(ident: str) -> Any:
    return _create_region(ident)


@bp.get("/regions/<ident>")
def show_region(ident: str) -> Any:
    return reply({"region": _view("regions", _region(ident))})


@bp.patch("/regions/<ident>")
def update_region(ident: str) -> Any:
    enforce("update_region")
    obj = _region(ident)
    _region_fields(body("region"), obj)
    store().touch()
    return reply({"region": _view("regions", obj)})


@bp.delete("/regions/<ident>")
def delete_region(ident: str) -> Any:
    """Keystone refuses (403) a region that has child regions or endpoints."""
    enforce("delete_region")
    st = store()
    _region(ident)
    if any(r.get("parent_region_id") == ident for r in st.all("regions")) or \
            any(e.get("region_id") == ident for e in st.all("endpoints")):
        raise SandboxError(403, f"Unable to delete region {ident} because it or its child regions have "
                           "associated endpoints.", "ForbiddenNotSecurity")
    st.remove("regions", ident)
    return reply({}, 204)


# ---- services ---------------------------------------------------------------------------------
def _all_services() -> list[Obj]:
    own = [{"id": s["id"], "type": s["type"], "name": s["name"], "enabled": True, "description": "",
            "_builtin": True} for s in _builtin()]
    return own + store().all("services")


def _service(ident: str, *, writable: bool = False) -> Obj:
    found = next((s for s in _all_services() if s["id"] == ident), None)
    if found is None:
        raise _missing("service", ident)
    if writable and found.get("_builtin"):
        raise SandboxError(403, f"Service {ident} is the sandbox's own and cannot be changed.",
                           "ForbiddenAction")
    return found


@bp.get("/services")
def list_services() -> Any:
    enforce("list_services")
    items = _all_services()
    for key in ("type", "name"):
        if request.args.get(key):
            items = [s for s in items if s.get(key) == request.args[key]]
    return reply({"services": [_view("services", s) for s in items], "links": list_links()})


@bp.post("/services")
def create_service() -> Any:
    enforce("create_service")
    st = store()
    data = body("service")
    if not data.get("type"):
        raise SandboxError(400, "Invalid input for field 'type': 'type' is a required property",
                           "ValidationError")
    obj: Obj = {"id": st.new_id(hex_only=True), "type": data["type"], "name": data.get("name", ""),
                "description": data.get("description", ""), "enabled": data.get("enabled", True)}
    st.add("services", obj)
    return reply({"service": _view("services", obj)}, 201)


@bp.get("/services/<ident>")
def show_service(ident: str) -> Any:
    enforce("get_service")
    return reply({"service": _view("services", _service(ident))})


@bp.patch("/services/<ident>")
def update_service(ident: str) -> Any:
    enforce("update_service")
    obj = _service(ident, writable=True)
    for key, value in body("service").items():
        if key not in ("id", "links") and value is not None:
            obj[key] = value
    store().touch()
    return reply({"service": _view("services", obj)})


@bp.delete("/services/<ident>")
def delete_service(ident: str) -> Any:
    """The service's endpoints go with it, as in Keystone."""
    enforce("delete_service")
    st = store()
    _service(ident, writable=True)
    for ep in st.find("endpoints", service_id=ident):
        st.remove("endpoints", ep["id"])
    st.remove("services", ident)
    return reply({}, 204)


# ---- endpoints --------------------------------------------------------------------------------
def _builtin_endpoints() -> list[Obj]:
    return [{"id": e["id"], "interface": e["interface"], "region": e["region"], "region_id": e["region_id"],
             "url": e["url"], "service_id": s["id"], "enabled": True, "_builtin": True}
            for s in _builtin() for e in s["endpoints"]]


def _endpoint(ident: str, *, writable: bool = False) -> Obj:
    found = store().get("endpoints", ident) or next(
        (e for e in _builtin_endpoints() if e["id"] == ident), None)
    if found is None:
        raise _missing("endpoint", ident)
    if writable and found.get("_builtin"):
        raise SandboxError(403, f"Endpoint {ident} is the sandbox's own and cannot be changed.",
                           "ForbiddenAction")
    return found


def _endpoint_fields(data: Obj, obj: Obj) -> None:
    """Apply ``data`` to ``obj`` with Keystone's checks (``region`` is the legacy name of
    ``region_id``)."""
    if "region" in data and "region_id" not in data:
        data = dict(data, region_id=data["region"])
    for key, value in data.items():
        if key in ("id", "links", "region"):
            continue
        obj[key] = value
    if obj.get("interface") not in INTERFACES:
        raise SandboxError(400, f"Invalid input for field 'interface': {obj.get('interface')!r} does not "
                           "match '^(?:admin|internal|public)$'", "ValidationError")
    if not obj.get("url"):
        raise SandboxError(400, "Invalid input for field 'url': 'url' is a required property",
                           "ValidationError")
    _service(str(obj.get("service_id")))
    if obj.get("region_id") is not None:
        _region(obj["region_id"])
    obj["region"] = obj.get("region_id")


@bp.get("/endpoints")
def list_endpoints() -> Any:
    enforce("list_endpoints")
    items = _builtin_endpoints() + store().all("endpoints")
    for key in ("service_id", "interface", "region_id"):
        if request.args.get(key):
            items = [e for e in items if e.get(key) == request.args[key]]
    return reply({"endpoints": [_view("endpoints", e) for e in items], "links": list_links()})


@bp.post("/endpoints")
def create_endpoint() -> Any:
    enforce("create_endpoint")
    st = store()
    obj: Obj = {"id": st.new_id(hex_only=True), "enabled": True, "region_id": None}
    _endpoint_fields(body("endpoint"), obj)
    st.add("endpoints", obj)
    return reply({"endpoint": _view("endpoints", obj)}, 201)


@bp.get("/endpoints/<ident>")
def show_endpoint(ident: str) -> Any:
    enforce("get_endpoint")
    return reply({"endpoint": _view("endpoints", _endpoint(ident))})


@bp.patch("/endpoints/<ident>")
def update_endpoint(ident: str) -> Any:
    enforce("update_endpoint")
    obj = _endpoint(ident, writable=True)
    changed = dict(obj)
    _endpoint_fields({k: v for k, v in body("endpoint").items() if v is not None}, changed)
    obj.update(changed)
    store().touch()
    return reply({"endpoint": _view("endpoints", obj)})


@bp.delete("/endpoints/<ident>")
def delete_endpoint(ident: str) -> Any:
    enforce("delete_endpoint")
    _endpoint(ident, writable=True)
    store().remove("endpoints", ident)
    return reply({}, 204)
