"""Keystone records shared by the sandbox's identity views (:mod:`app.sandbox.identity` for
tokens, :mod:`app.sandbox.identity_admin` for domains/projects/users/groups/roles,
:mod:`app.sandbox.identity_grants` for role assignments, group membership and implied roles,
:mod:`app.sandbox.identity_catalog` for regions/services/endpoints,
:mod:`app.sandbox.identity_trusts`): the entity collections and their default fields, lookups
with Keystone's 404 wording, effective roles, and the rendered shapes (``links`` included).

Stored shapes: ``assignments`` ``{"id", "role_id", "user_id" | "group_id", "project_id" |
"domain_id"}``; ``memberships`` ``{"id", "group_id", "user_id"}``; ``implied_roles``
``{"id", "prior_role_id", "implied_role_id"}``.
"""
from __future__ import annotations

from typing import Any

from flask import request

from app.sandbox import auth
from app.sandbox.http import SandboxError
from app.sandbox.runtime import store
from app.sandbox.store import Obj

ENTITIES = {"domains": "domain", "projects": "project", "users": "user", "groups": "group", "roles": "role"}
FIELDS: dict[str, dict[str, Any]] = {
    "domains": {"name": "", "description": "", "enabled": True, "tags": [], "options": {}},
    "projects": {"name": "", "description": "", "enabled": True, "domain_id": "default", "parent_id": None,
                 "is_domain": False, "tags": [], "options": {}},
    "users": {"name": "", "description": "", "enabled": True, "domain_id": "default",
              "default_project_id": None, "email": None, "options": {}, "password_expires_at": None},
    "groups": {"name": "", "description": "", "domain_id": "default"},
    "roles": {"name": "", "description": "", "domain_id": None, "options": {}},
}


def not_found(collection: str, ident: str) -> SandboxError:
    """Keystone's 404: ``Could not find project: <id>.`` (type ``ProjectNotFound``)."""
    return SandboxError(404, f"Could not find {ENTITIES[collection]}: {ident}.",
                        ENTITIES[collection].capitalize() + "NotFound")


def view(collection: str, obj: Obj) -> Obj:
    """``obj`` as Keystone renders it: private keys dropped, ``links.self`` added; a project's
    ``parent_id`` is its domain when it has no parent project (as Keystone)."""
    out = {k: v for k, v in obj.items() if not k.startswith("_")}
    out["links"] = {"self": f"{request.host_url.rstrip('/')}/identity/v3/{collection}/{obj['id']}"}
    if collection == "projects":
        out["parent_id"] = out.get("parent_id") or out.get("domain_id")
    return out


def forbidden(action: str) -> SandboxError:
    """Keystone's policy refusal (403 ``ForbiddenAction``): ``You are not authorized to perform
    the requested action: identity:<action>.``"""
    return SandboxError(403, f"You are not authorized to perform the requested action: identity:{action}.",
                        "ForbiddenAction")


def enforce(action: str, allowed: bool = False) -> None:
    """Keystone's ``enforce_call`` with its default policies, simplified: an admin may do
    everything; anyone else only what ``allowed`` says (their own user, project, trusts...).

    :raises SandboxError: 403 :func:`forbidden` -- never an empty 200 or a 404.
    """
    if not (allowed or auth.ctx().is_admin):
        raise forbidden(action)


def list_links() -> Obj:
    """A Keystone list's ``links``: ``{"self": <url>, "previous": None, "next": None}``."""
    return {"self": request.base_url, "previous": None, "next": None}


def get_entity(collection: str, ident: str) -> Obj:
    """The ``collection`` object ``ident``.

    :raises SandboxError: 404 (:func:`not_found`).
    """
    obj = store().get(collection, ident)
    if obj is None:
        raise not_found(collection, ident)
    return obj


def group_ids_of(user_id: str) -> set[str]:
    """The groups ``user_id`` is a member of."""
    return {m["group_id"] for m in store().all("memberships") if m["user_id"] == user_id}


def implied_closure(role_ids: list[str]) -> list[str]:
    """``role_ids`` followed by every role they imply, transitively (Keystone's token
    expansion: ``admin`` -> ``member`` -> ``reader`` with the bootstrap's inferences)."""
    rules = store().all("implied_roles")
    out = list(dict.fromkeys(role_ids))
    i = 0
    while i < len(out):
        for rule in rules:
            if rule["prior_role_id"] == out[i] and rule["implied_role_id"] not in out:
                out.append(rule["implied_role_id"])
        i += 1
    return out


def roles_on(user_id: str, project_id: str | None = None, domain_id: str | None = None) -> list[str]:
    """The user's effective role ids on the project (or domain), as Keystone puts them in a
    token: assigned to the user or to one of its groups, then the roles those imply."""
    st = store()
    groups = group_ids_of(user_id)
    direct = [a["role_id"] for a in st.all("assignments")
              if (a.get("user_id") == user_id or (a.get("group_id") is not None and a["group_id"] in groups))
              and (a.get("project_id") == project_id if project_id else a.get("domain_id") == domain_id)]
    return implied_closure(direct)


def reachable_ids(user_id: str, key: str) -> set[str]:
    """Projects (``key="project_id"``) or domains (``"domain_id"``) the user has a role on,
    directly or through a group."""
    groups = group_ids_of(user_id)
    return {a[key] for a in store().all("assignments") if a.get(key)
            and (a.get("user_id") == user_id or (a.get("group_id") is not None and a["group_id"] in groups))}
