"""Keystone records shared by the sandbox's identity views (:mod:`app.sandbox.identity` for
tokens, :mod:`app.sandbox.identity_admin` for domains/projects/users/roles,
:mod:`app.sandbox.identity_trusts`): the entity collections and their default fields, lookups
with Keystone's 404 wording, role assignments, and the rendered shapes (``links`` included).
"""
from __future__ import annotations

from typing import Any

from flask import request

from app.sandbox import auth
from app.sandbox.http import SandboxError
from app.sandbox.runtime import store
from app.sandbox.store import Obj

ENTITIES = {"domains": "domain", "projects": "project", "users": "user", "roles": "role"}
FIELDS: dict[str, dict[str, Any]] = {
    "domains": {"name": "", "description": "", "enabled": True, "tags": [], "options": {}},
    "projects": {"name": "", "description": "", "enabled": True, "domain_id": "default", "parent_id": None,
                 "is_domain": False, "tags": [], "options": {}},
    "users": {"name": "", "description": "", "enabled": True, "domain_id": "default",
              "default_project_id": None, "email": None, "options": {}, "password_expires_at": None},
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


def roles_on(user_id: str, project_id: str | None = None, domain_id: str | None = None) -> list[str]:
    """Role ids assigned to the user on the project (or domain)."""
    st = store()
    return [a["role_id"] for a in st.all("assignments") if a["user_id"] == user_id
            and (a.get("project_id") == project_id if project_id else a.get("domain_id") == domain_id)]
