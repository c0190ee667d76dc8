"""Who is calling: Keystone tokens issued by the sandbox's own identity service, checked on every
service request, and project ownership (one project cannot see another's objects).

Token records live in the store's ``tokens`` collection::

    {"id", "user_id", "project_id" | None, "domain_id" | None, "role_ids": [...],
     "methods": [...], "issued_at": epoch, "expires_at": epoch, "audit_id", "trust_id" | None}

A request's identity is a :class:`Ctx` in ``flask.g.ctx``. ``is_admin`` follows the OpenStack
default policies: a token carrying the ``admin`` role.
"""
from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from flask import g, request

from app.sandbox.http import SandboxError
from app.sandbox.store import Obj, Store

TOKEN_TTL = 3600.0 * 24


@dataclass
class Ctx:
    """The caller, as the token says."""
    user_id: str
    project_id: str | None
    roles: list[str] = field(default_factory=list)
    token_id: str = ""
    trust_id: str | None = None
    domain_id: str | None = None

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles


def issue_token(store: Store, *, user_id: str, project_id: str | None, role_ids: list[str],
                methods: list[str], domain_id: str | None = None, trust_id: str | None = None,
                expires_at: float | None = None, audit_chain: str | None = None) -> Obj:
    """Create and store a token record; its id is 32 random hex digits (never deterministic).
    Expired tokens are dropped on the way, so the state does not grow without bound."""
    now = store.clock()
    for old in store.all("tokens"):
        if old["expires_at"] <= now:
            store.remove("tokens", old["id"])
    record = {"id": secrets.token_hex(16), "user_id": user_id, "project_id": project_id,
              "domain_id": domain_id, "role_ids": list(role_ids), "methods": list(methods),
              "issued_at": now, "expires_at": min(expires_at or now + TOKEN_TTL, now + TOKEN_TTL),
              "audit_id": secrets.token_urlsafe(16)[:22], "audit_chain": audit_chain,
              "trust_id": trust_id}
    return store.add("tokens", record)


def lookup_token(store: Store, token_id: str | None) -> Obj | None:
    """The live token record for ``token_id``; None if unknown, revoked or expired (or its trust,
    user or project is gone)."""
    if not token_id:
        return None
    record = store.get("tokens", token_id.strip())
    if record is None or record["expires_at"] <= store.clock():
        return None
    if store.get("users", record["user_id"]) is None:
        return None
    if record.get("project_id") and store.get("projects", record["project_id"]) is None:
        return None
    if record.get("trust_id"):
        trust = store.get("trusts", record["trust_id"])
        if trust is None or trust.get("_deleted"):
            return None
    return record


def role_names(store: Store, role_ids: Iterable[str]) -> list[str]:
    names = []
    for rid in role_ids:
        role = store.get("roles", rid)
        if role:
            names.append(role["name"])
    return names


def ctx_from_token(store: Store, record: Obj) -> Ctx:
    return Ctx(user_id=record["user_id"], project_id=record.get("project_id"),
               roles=role_names(store, record["role_ids"]), token_id=record["id"],
               trust_id=record.get("trust_id"), domain_id=record.get("domain_id"))


def authenticate(store: Store) -> Ctx:
    """Check the request's ``X-Auth-Token`` and install :class:`Ctx` as ``g.ctx``.

    :raises SandboxError: 401 when the token is missing, unknown or expired.
    """
    record = lookup_token(store, request.headers.get("X-Auth-Token"))
    if record is None:
        raise SandboxError(401, "The request you have made requires authentication.",
                           "NotAuthorized")
    ctx = ctx_from_token(store, record)
    g.ctx = ctx
    return ctx


def ctx() -> Ctx:
    """The current request's caller (set by :func:`authenticate`)."""
    return g.ctx  # type: ignore[no-any-return]


def require_admin(message: str = "Policy doesn't allow this operation to be performed.") -> None:
    """:raises SandboxError: 403 unless the caller holds the admin role."""
    if not ctx().is_admin:
        raise SandboxError(403, message, "PolicyNotAuthorized")


def project_of(obj: Obj) -> str | None:
    return obj.get("project_id") or obj.get("tenant_id") or obj.get("_project_id")


def can_see(obj: Obj, *, admin_sees_all: bool = True) -> bool:
    """True when the caller owns ``obj`` (same project) or is an admin and ``admin_sees_all``."""
    c = ctx()
    if admin_sees_all and c.is_admin:
        return True
    return project_of(obj) == c.project_id


def visible(items: Iterable[Obj], *, all_param: str | None = "all_tenants",
            admin_sees_all: bool = False) -> list[Obj]:
    """Filter a list to the caller's project. Admins see everything when ``admin_sees_all`` (as
    Neutron and Octavia) or when the query string has ``all_param`` (Nova's ``all_tenants``,
    Cinder's ``all_tenants``); an admin may also filter by ``project_id``/``tenant_id``."""
    c = ctx()
    items = list(items)
    wide = c.is_admin and (admin_sees_all or (all_param is not None and
                                              request.args.get(all_param, "0") not in ("0", "false", "False")))
    out = [o for o in items if wide or project_of(o) == c.project_id]
    wanted = request.args.get("project_id") or request.args.get("tenant_id")
    if wanted and c.is_admin:
        out = [o for o in items if project_of(o) == wanted]
    return out


def owned(store: Store, collection: str, obj_id: str, what: str, *,
          kind: str | None = None) -> Obj:
    """The object if it exists and the caller can see it.

    :raises SandboxError: 404 (never 403, so another project's ids are not disclosed).
    """
    obj = store.get(collection, obj_id)
    if obj is None or not can_see(obj):
        raise SandboxError(404, f"{what} {obj_id} could not be found.",
                           kind or f"{what.replace(' ', '')}NotFound")
    return obj


def token_project(default: Any = None) -> Any:
    return ctx().project_id or default
