"""Keystone v3 administration for the sandbox: domains, projects (with a parent), users, groups
and roles (grants, membership and implied roles are in :mod:`app.sandbox.identity_grants`;
regions, services and endpoints in :mod:`app.sandbox.identity_catalog`; trusts and credentials
in :mod:`app.sandbox.identity_trusts`). Keystone's rules: 409 on a duplicate name in a domain,
400 on a change of ``domain_id``, 403 on deleting an enabled domain or a project with children;
deleting an object deletes its assignments and memberships (a domain: its projects, users and
groups too).

Policy as Keystone's default policies for a project member (``keystone/common/policies``):
admins manage everything; anyone else reads their own user, their token's project and that
project's domain, and the projects they have roles on; every other call is refused with 403
(``identity:<action>``), never answered with an empty list.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, reply
from app.sandbox.identity_records import (
    ENTITIES,
    FIELDS,
    enforce,
    get_entity,
    list_links,
    reachable_ids,
    view,
)
from app.sandbox.runtime import store
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


#: what goes with a deleted object: (collection, key) pairs whose rows name it
CASCADE = {"projects": (("assignments", "project_id"),),
           "users": (("assignments", "user_id"), ("memberships", "user_id"), ("credentials", "user_id")),
           "groups": (("assignments", "group_id"), ("memberships", "group_id")),
           "roles": (("assignments", "role_id"), ("implied_roles", "prior_role_id"),
                     ("implied_roles", "implied_role_id")),
           "domains": (("assignments", "domain_id"),)}


def _domain_of(collection: str, data: Obj, obj: Obj) -> None:
    """Keystone's checks of a new object's domain (and a project's parent): the domain must
    exist (404); a project's parent must exist and gives the project its domain."""
    if collection == "projects" and data.get("parent_id"):
        parent = get_entity("projects", data["parent_id"])
        if data.get("domain_id") and data["domain_id"] != parent["domain_id"]:
            raise SandboxError(400, "Cannot create project, the parent project is in a different domain.",
                               "ValidationError")
        obj["domain_id"] = parent["domain_id"]
    elif collection == "projects":
        obj["parent_id"] = None
    if obj.get("domain_id") is not None and collection != "domains":
        get_entity("domains", obj["domain_id"])


def _remove(collection: str, ident: str) -> None:
    st = store()
    st.remove(collection, ident)
    for other, key in CASCADE.get(collection, ()):
        for row in st.all(other):
            if row.get(key) == ident:
                st.remove(other, row["id"])


def _delete_domain(obj: Obj) -> None:
    """Keystone refuses an enabled domain (403) and deletes a disabled one with its projects,
    users and groups."""
    if obj.get("enabled", True):
        raise SandboxError(403, "Cannot delete a domain that is enabled, please disable it first.",
                           "ForbiddenAction")
    st = store()
    for collection in ("projects", "users", "groups", "roles"):
        for item in st.all(collection):
            if item.get("domain_id") == obj["id"]:
                _remove(collection, item["id"])
    _remove("domains", obj["id"])


def _register(collection: str) -> None:
    single = ENTITIES[collection]

    def list_items() -> Any:
        enforce(f"list_{collection}")
        items = store().all(collection)
        for key in ("name", "domain_id", "enabled", "parent_id"):
            if key in request.args:
                items = [i for i in items if str(i.get(key)).lower() == request.args[key].lower()]
        if collection == "roles" and "domain_id" not in request.args:
            items = [i for i in items if i.get("domain_id") is None]  # global roles only, as Keystone
        return reply({collection: [view(collection, i) for i in items], "links": list_links()})

    def create_item() -> Any:
        enforce(f"create_{single}")
        data = body(single)
        st = store()
        obj: Obj = {k: data.get(k, v) for k, v in FIELDS[collection].items()}
        if not obj["name"]:
            raise SandboxError(400, "Invalid input for field 'name': None is not of type 'string'",
                               "ValidationError")
        _domain_of(collection, data, obj)
        clash = [i for i in st.all(collection) if i["name"] == obj["name"]
                 and i.get("domain_id") == obj.get("domain_id")]
        if clash:   # Keystone's sql handle_conflicts names the domain of a scoped object
            where = f" at domain ID {obj['domain_id']}" \
                if collection != "domains" and obj.get("domain_id") else ""
            raise SandboxError(409, f"Conflict occurred attempting to store {single} - Duplicate entry found "
                               f"with name {obj['name']}{where}.", "Conflict")
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
        if data.get("domain_id") not in (None, obj.get("domain_id")) and collection != "roles":
            raise SandboxError(400, "Update of `domain_id` is not allowed.", "ValidationError")
        if "name" in data and data["name"] != obj["name"] and any(
                i["name"] == data["name"] and i.get("domain_id") == obj.get("domain_id")
                for i in store().all(collection)):
            raise SandboxError(409, f"Conflict occurred attempting to store {single} - Duplicate entry found "
                               f"with name {data['name']}.", "Conflict")
        for key in FIELDS[collection]:
            if key in data and key not in ("domain_id", "parent_id", "is_domain"):
                obj[key] = data[key]
        if collection == "users" and "password" in data:
            obj["_password"] = data["password"]
        store().touch()
        return reply({single: view(collection, obj)})

    def delete_item(ident: str) -> Any:
        enforce(f"delete_{single}")
        obj = get_entity(collection, ident)
        if collection == "domains":
            _delete_domain(obj)
            return reply({}, 204)
        if collection == "projects" and any(p.get("parent_id") == ident for p in store().all("projects")):
            raise SandboxError(403, f"Cannot delete the project {ident} since it is not a leaf in the "
                               "hierarchy. Use the cascade option if you want to delete a whole subtree.",
                               "ForbiddenAction")
        _remove(collection, ident)
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
    ids = reachable_ids(user_id, "project_id")
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
