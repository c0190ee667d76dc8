"""Keystone v3 administration for the sandbox: domains, projects, users, roles and role
assignments (trusts and credentials are in :mod:`app.sandbox.identity_trusts`).

Policy as Keystone's default policies for a project member (``keystone/common/policies``):
admins manage everything; anyone else reads their own user, their token's project and that
project's domain, and the projects they have roles on; every other call is refused with 403
(``identity:<action>``), never answered with an empty list.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.catalog import REGION, catalog
from app.sandbox.http import SandboxError, body, reply
from app.sandbox.identity_records import ENTITIES, FIELDS, enforce, get_entity, list_links, roles_on, view
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("identity_admin", __name__, url_prefix="/identity/v3")

@bp.before_request
def _authenticate() -> None:
    auth.authenticate(store())


# ---- generic CRUD -----------------------------------------------------------------------------
def _self_readable(collection: str, ident: str) -> bool:
    """What Keystone lets a member read of ``collection``: itself, its token's project and the
    domain of that project (or its domain-scoped token's domain)."""
    c = auth.ctx()
    if collection == "users":
        return ident == c.user_id
    if collection == "projects":
        return ident == c.project_id
    if collection == "domains":
        project = store().get("projects", c.project_id) if c.project_id else None
        return ident in (c.domain_id, (project or {}).get("domain_id"))
    return False


def _register(collection: str) -> None:
    single = ENTITIES[collection]

    def list_items() -> Any:
        enforce(f"list_{collection}")
        items = store().all(collection)
        for key in ("name", "domain_id", "enabled", "parent_id"):
            if key in request.args:
                items = [i for i in items if str(i.get(key)).lower() == request.args[key].lower()]
        return reply({collection: [view(collection, i) for i in items], "links": list_links()})

    def create_item() -> Any:
        enforce(f"create_{single}")
        data = body(single)
        st = store()
        obj: Obj = {k: data.get(k, v) for k, v in FIELDS[collection].items()}
        if not obj["name"]:
            raise SandboxError(400, "Invalid input for field 'name': None is not of type 'string'",
                               "ValidationError")
        clash = [i for i in st.all(collection) if i["name"] == obj["name"]
                 and i.get("domain_id") == obj.get("domain_id")]
        if clash:
            raise SandboxError(409, f"Conflict occurred attempting to store {single} - Duplicate entry found "
                               f"with name {obj['name']}.", "Conflict")
        obj["id"] = data.get("id") if collection == "domains" and data.get("id") else st.new_id(hex_only=True)
        if collection == "users":
            obj["_password"] = data.get("password")
        st.add(collection, obj)
        return reply({single: view(collection, obj)}, 201)

    def show_item(ident: str) -> Any:
        enforce(f"get_{single}", _self_readable(collection, ident))
        return reply({single: view(collection, get_entity(collection, ident))})

    def update_item(ident: str) -> Any:
        enforce(f"update_{single}")
        obj = get_entity(collection, ident)
        data = body(single)
        for key in FIELDS[collection]:
            if key in data and key != "domain_id":
                obj[key] = data[key]
        if collection == "users" and "password" in data:
            obj["_password"] = data["password"]
        store().touch()
        return reply({single: view(collection, obj)})

    def delete_item(ident: str) -> Any:
        enforce(f"delete_{single}")
        st = store()
        obj = get_entity(collection, ident)
        if collection == "domains" and obj.get("enabled", True):
            raise SandboxError(403, "Cannot delete a domain that is enabled, please disable it first.",
                               "ForbiddenAction")
        st.remove(collection, ident)
        key = {"projects": "project_id", "users": "user_id", "roles": "role_id", "domains": "domain_id"}[collection]
        for a in st.all("assignments"):
            if a.get(key) == ident:
                st.remove("assignments", a["id"])
        if collection == "users":
            for cred in st.find("credentials", user_id=ident):
                st.remove("credentials", cred["id"])
        return reply({}, 204)

    bp.add_url_rule(f"/{collection}", f"list_{collection}", list_items, methods=["GET"])
    bp.add_url_rule(f"/{collection}", f"create_{collection}", create_item, methods=["POST"])
    bp.add_url_rule(f"/{collection}/<ident>", f"show_{collection}", show_item, methods=["GET"])
    bp.add_url_rule(f"/{collection}/<ident>", f"update_{collection}", update_item, methods=["PATCH"])
    bp.add_url_rule(f"/{collection}/<ident>", f"delete_{collection}", delete_item, methods=["DELETE"])


for _name in ENTITIES:
    _register(_name)


@bp.get("/users/<user_id>/projects")
def user_projects(user_id: str) -> Any:
    enforce("list_user_projects", user_id == auth.ctx().user_id)
    ids = {a.get("project_id") for a in store().all("assignments") if a["user_id"] == user_id}
    return reply({"projects": [view("projects", p) for p in store().all("projects") if p["id"] in ids],
                  "links": list_links()})


@bp.post("/users/<user_id>/password")
def change_password(user_id: str) -> Any:
    user = get_entity("users", user_id)
    data = body("user")
    if user_id != auth.ctx().user_id or data.get("original_password") != user.get("_password"):
        raise SandboxError(401, "The request you have made requires authentication.", "Unauthorized")
    user["_password"] = data.get("password")
    store().touch()
    return reply({}, 204)


# ---- role assignments -----------------------------------------------------------------------
def _assignment(target: str, target_id: str, user_id: str, role_id: str) -> Obj | None:
    key = "project_id" if target == "projects" else "domain_id"
    return next((a for a in store().all("assignments") if a.get(key) == target_id
                 and a["user_id"] == user_id and a["role_id"] == role_id), None)


@bp.route("/<any(projects, domains):target>/<target_id>/users/<user_id>/roles/<role_id>",
          methods=["PUT", "HEAD", "DELETE", "GET"])
def role_grant(target: str, target_id: str, user_id: str, role_id: str) -> Any:
    enforce({"PUT": "create_grant", "DELETE": "revoke_grant"}.get(request.method, "check_grant"))
    get_entity(target, target_id)
    get_entity("users", user_id)
    get_entity("roles", role_id)
    found = _assignment(target, target_id, user_id, role_id)
    st = store()
    if request.method == "PUT":
        if found is None:
            key = "project_id" if target == "projects" else "domain_id"
            st.add("assignments", {"id": st.new_id(hex_only=True), "user_id": user_id, "role_id": role_id,
                                   key: target_id})
        return reply({}, 204)
    if found is None:
        raise SandboxError(404, f"Could not find role assignment with role: {role_id}, user or group: "
                           f"{user_id}, project, domain, or system: {target_id}.", "RoleAssignmentNotFound")
    if request.method == "DELETE":
        st.remove("assignments", found["id"])
    return reply({}, 204)


@bp.get("/<any(projects, domains):target>/<target_id>/users/<user_id>/roles")
def list_user_roles(target: str, target_id: str, user_id: str) -> Any:
    enforce("list_grants")
    ids = roles_on(user_id, target_id) if target == "projects" else roles_on(user_id, domain_id=target_id)
    return reply({"roles": [view("roles", r) for r in store().all("roles") if r["id"] in ids],
                  "links": list_links()})


@bp.get("/role_assignments")
def role_assignments() -> Any:
    enforce("list_role_assignments")
    out = []
    args = request.args
    for a in store().all("assignments"):
        if args.get("user.id") and a["user_id"] != args["user.id"]:
            continue
        if args.get("scope.project.id") and a.get("project_id") != args["scope.project.id"]:
            continue
        if args.get("role.id") and a["role_id"] != args["role.id"]:
            continue
        scope = {"project": {"id": a["project_id"]}} if a.get("project_id") else {"domain": {"id": a["domain_id"]}}
        out.append({"user": {"id": a["user_id"]}, "role": {"id": a["role_id"]}, "scope": scope, "links": {}})
    return reply({"role_assignments": out, "links": list_links()})


# ---- services, endpoints, regions (read-only views of the catalog) --------------------------
def _catalog() -> list[Obj]:
    return catalog(request.host_url, sb().extra_catalog, auth.ctx().project_id)


@bp.get("/services")
def list_services() -> Any:
    enforce("list_services")
    services = [{"id": s["id"], "type": s["type"], "name": s["name"], "enabled": True, "description": "",
                 "links": {"self": f"{request.base_url}/{s['id']}"}} for s in _catalog()]
    if request.args.get("type"):
        services = [s for s in services if s["type"] == request.args["type"]]
    return reply({"services": services, "links": list_links()})


@bp.get("/endpoints")
def list_endpoints() -> Any:
    enforce("list_endpoints")
    endpoints = [{"id": e["id"], "interface": e["interface"], "region": e["region"], "region_id": e["region_id"],
                  "url": e["url"], "service_id": s["id"], "enabled": True,
                  "links": {"self": f"{request.base_url}/{e['id']}"}}
                 for s in _catalog() for e in s["endpoints"]]
    for key in ("service_id", "interface", "region_id"):
        if request.args.get(key):
            endpoints = [e for e in endpoints if e[key] == request.args[key]]
    return reply({"endpoints": endpoints, "links": list_links()})


@bp.get("/regions")
def list_regions() -> Any:
    """Any authenticated user (Keystone's ``identity:list_regions`` is open)."""
    return reply({"regions": [{"id": REGION, "description": "", "parent_region_id": None,
                               "links": {"self": f"{request.base_url}/{REGION}"}}], "links": list_links()})
