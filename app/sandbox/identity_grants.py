"""Keystone v3 grants for the sandbox: role assignments of users and groups on projects and
domains, group membership, ``GET /role_assignments`` and implied roles.

More in docs/code/sandbox.md (app.sandbox.identity_grants).
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, reply
from app.sandbox.identity_records import enforce, get_entity, implied_closure, list_links, view
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("identity_grants", __name__, url_prefix="/identity/v3")

TARGET = {"projects": "project_id", "domains": "domain_id"}
ACTOR = {"users": "user_id", "groups": "group_id"}


@bp.before_request
def _authenticate() -> None:
    auth.authenticate(store())


def _base() -> str:
    return f"{request.host_url.rstrip('/')}/identity/v3"


# ---- grants -----------------------------------------------------------------------------------
def _grant(target: str, target_id: str, actor: str, actor_id: str, role_id: str) -> Obj | None:
    return next((a for a in store().all("assignments") if a.get(TARGET[target]) == target_id
                 and a.get(ACTOR[actor]) == actor_id and a["role_id"] == role_id), None)


@bp.route("/<any(projects, domains):target>/<target_id>/<any(users, groups):actor>/<actor_id>/roles/<role_id>",
          methods=["PUT", "HEAD", "DELETE", "GET"])
def role_grant(target: str, target_id: str, actor: str, actor_id: str, role_id: str) -> Any:
    enforce({"PUT": "create_grant", "DELETE": "revoke_grant"}.get(request.method, "check_grant"))
    get_entity(target, target_id)
    get_entity(actor, actor_id)
    get_entity("roles", role_id)
    found = _grant(target, target_id, actor, actor_id, role_id)
    st = store()
    if request.method == "PUT":
        if found is None:
            st.add("assignments", {"id": st.new_id(hex_only=True), ACTOR[actor]: actor_id, "role_id": role_id,
                                   TARGET[target]: target_id})
        return reply({}, 204)
    if found is None:
        raise SandboxError(404, f"Could not find role assignment with role: {role_id}, user or group: "
                           f"{actor_id}, project, domain, or system: {target_id}.", "RoleAssignmentNotFound")
    if request.method == "DELETE":
        st.remove("assignments", found["id"])
    return reply({}, 204)


@bp.get("/<any(projects, domains):target>/<target_id>/<any(users, groups):actor>/<actor_id>/roles")
def list_grants(target: str, target_id: str, actor: str, actor_id: str) -> Any:
    enforce("list_grants")
    get_entity(target, target_id)
    get_entity(actor, actor_id)
    ids = {a["role_id"] for a in store().all("assignments")
           if a.get(TARGET[target]) == target_id and a.get(ACTOR[actor]) == actor_id}
    return reply({"roles": [view("roles", r) for r in store().all("roles") if r["id"] in ids],
                  "links": list_links()})


# ---- group membership -------------------------------------------------------------------------
def _membership(group_id: str, user_id: str) -> Obj | None:
    return next((m for m in store().all("memberships")
                 if m["group_id"] == group_id and m["user_id"] == user_id), None)


@bp.route("/groups/<group_id>/users/<user_id>", methods=["PUT", "HEAD", "DELETE", "GET"])
def group_member(group_id: str, user_id: str) -> Any:
    enforce({"PUT": "add_user_to_group", "DELETE": "remove_user_from_group"}.get(
        request.method, "check_user_in_group"))
    get_entity("groups", group_id)
    get_entity("users", user_id)
    st = store()
    found = _membership(group_id, user_id)
    if request.method == "PUT":
        if found is None:
            st.add("memberships", {"id": st.new_id(hex_only=True), "group_id": group_id, "user_id": user_id})
        return reply({}, 204)
    if found is None:
        raise SandboxError(404, f"User '{user_id}' not found in group '{group_id}'", "NotFound")
    if request.method == "DELETE":
        st.remove("memberships", found["id"])
    return reply({}, 204)


@bp.get("/groups/<group_id>/users")
def group_users(group_id: str) -> Any:
    enforce("list_users_in_group")
    get_entity("groups", group_id)
    ids = {m["user_id"] for m in store().all("memberships") if m["group_id"] == group_id}
    return reply({"users": [view("users", u) for u in store().all("users") if u["id"] in ids],
                  "links": list_links()})


@bp.get("/users/<user_id>/groups")
def user_groups(user_id: str) -> Any:
    enforce("list_groups_for_user", user_id == auth.ctx().user_id)
    get_entity("users", user_id)
    ids = {m["group_id"] for m in store().all("memberships") if m["user_id"] == user_id}
    return reply({"groups": [view("groups", g) for g in store().all("groups") if g["id"] in ids],
                  "links": list_links()})


# ---- GET /role_assignments --------------------------------------------------------------------
def _named(collection: str, ident: str, with_domain: bool) -> Obj:
    obj = store().get(collection, ident) or {}
    out: Obj = {"id": ident, "name": obj.get("name", "")}
    if with_domain and obj.get("domain_id"):
        dom = store().get("domains", obj["domain_id"]) or {}
        out["domain"] = {"id": obj["domain_id"], "name": dom.get("name", "")}
    return out


def _render(a: Obj, names: bool) -> Obj:
    target = "projects" if a.get("project_id") else "domains"
    target_id = a.get("project_id") or a.get("domain_id")
    actor = "users" if a.get("user_id") else "groups"
    actor_id = a.get("user_id") or a.get("group_id")
    link = f"{_base()}/{target}/{target_id}/{actor}/{actor_id}/roles/{a['role_id']}"
    out: Obj = {"links": {"assignment": link}}
    if names:
        out["role"] = _named("roles", a["role_id"], True)
        out[actor[:-1]] = _named(actor, str(actor_id), True)
        out["scope"] = {target[:-1]: _named(target, str(target_id), target == "projects")}
    else:
        out["role"] = {"id": a["role_id"]}
        out[actor[:-1]] = {"id": actor_id}
        out["scope"] = {target[:-1]: {"id": target_id}}
    if a.get("_membership"):
        out["links"]["membership"] = f"{_base()}/groups/{a['_membership']}/users/{actor_id}"
    if a.get("_prior"):
        out["prior_role"] = {"id": a["_prior"]}
    return out


def _effective(rows: list[Obj]) -> list[Obj]:
    """Group assignments as their members' (with the membership link), then implied roles."""
    members = store().all("memberships")
    out: list[Obj] = []
    for a in rows:
        if a.get("group_id"):
            out += [dict(a, user_id=m["user_id"], group_id=None, _membership=a["group_id"])
                    for m in members if m["group_id"] == a["group_id"]]
        else:
            out.append(a)
    expanded: list[Obj] = []
    for a in out:
        expanded.append(a)
        expanded += [dict(a, role_id=rid, _prior=a["role_id"]) for rid in implied_closure([a["role_id"]])[1:]]
    return expanded


def _truthy(key: str) -> bool:
    return key in request.args and request.args[key].lower() not in ("0", "false", "no")


@bp.get("/role_assignments")
def role_assignments() -> Any:
    enforce("list_role_assignments")
    args = request.args
    rows = list(store().all("assignments"))
    effective = _truthy("effective")
    if effective:
        if args.get("group.id"):
            raise SandboxError(400, "Combining effective and group filter will always result in an "
                               "empty list.", "ValidationError")
        rows = _effective(rows)
    filters = {"user.id": "user_id", "group.id": "group_id", "role.id": "role_id",
               "scope.project.id": "project_id", "scope.domain.id": "domain_id"}
    for arg, key in filters.items():
        if args.get(arg):
            rows = [a for a in rows if a.get(key) == args[arg]]
    names = _truthy("include_names")
    return reply({"role_assignments": [_render(a, names) for a in rows], "links": list_links()})


# ---- implied roles ----------------------------------------------------------------------------
def _role_ref(role_id: str) -> Obj:
    role = store().get("roles", role_id) or {}
    return {"id": role_id, "name": role.get("name", ""), "links": {"self": f"{_base()}/roles/{role_id}"}}


def _inference(prior: str, implied: str) -> Obj | None:
    return next((r for r in store().all("implied_roles")
                 if r["prior_role_id"] == prior and r["implied_role_id"] == implied), None)


@bp.route("/roles/<prior>/implies/<implied>", methods=["PUT", "GET", "HEAD", "DELETE"])
def implied_role(prior: str, implied: str) -> Any:
    enforce({"PUT": "create_implied_role", "DELETE": "delete_implied_role"}.get(
        request.method, "get_implied_role"))
    get_entity("roles", prior)
    get_entity("roles", implied)
    st = store()
    found = _inference(prior, implied)
    shape = {"role_inference": {"prior_role": _role_ref(prior), "implies": _role_ref(implied)},
             "links": {"self": f"{_base()}/roles/{prior}/implies/{implied}"}}
    if request.method == "PUT":
        if prior in implied_closure([implied]):
            raise SandboxError(403, f"{implied} implies {prior}: an implied role cannot be a prior "
                               "role.", "ForbiddenAction")
        if found is None:
            st.add("implied_roles", {"id": st.new_id(hex_only=True), "prior_role_id": prior,
                                     "implied_role_id": implied})
        return reply(shape, 201)
    if found is None:
        raise SandboxError(404, f"{prior} does not imply {implied}", "ImpliedRoleNotFound")
    if request.method == "DELETE":
        st.remove("implied_roles", found["id"])
        return reply({}, 204)
    return reply(shape, 200 if request.method == "GET" else 204)


def _inferences_of(prior: str) -> Obj:
    implied = [r["implied_role_id"] for r in store().all("implied_roles") if r["prior_role_id"] == prior]
    return {"prior_role": _role_ref(prior), "implies": [_role_ref(i) for i in implied]}


@bp.get("/roles/<prior>/implies")
def list_implied(prior: str) -> Any:
    enforce("list_implied_roles")
    get_entity("roles", prior)
    return reply({"role_inference": _inferences_of(prior),
                  "links": {"self": f"{_base()}/roles/{prior}/implies"}})


@bp.get("/role_inferences")
def role_inferences() -> Any:
    enforce("list_role_inference_rules")
    priors = list(dict.fromkeys(r["prior_role_id"] for r in store().all("implied_roles")))
    return reply({"role_inferences": [_inferences_of(p) for p in priors],
                  "links": {"self": request.base_url}})
