"""Keystone v3 tokens for the sandbox: version discovery, ``POST /v3/auth/tokens`` (password,
token and trust-scoped auth; project or domain scope), ``GET/HEAD/DELETE /v3/auth/tokens`` (token
validation as keystonemiddleware does it), ``/v3/auth/catalog``, ``/v3/auth/projects`` and
``POST /v3/ec2tokens`` (EC2 signatures verified with the same signer Keystone uses).
"""
from __future__ import annotations

import datetime as dt
import json
import time
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, iso, parse_iso, reply
from app.sandbox.identity_catalog import full_catalog
from app.sandbox.identity_records import enforce, reachable_ids, roles_on, view
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("identity", __name__)

UPDATED = "2024-04-01T00:00:00Z"
API_VERSION = "v3.14"


def unauthorized(message: str = "The request you have made requires authentication.") -> SandboxError:
    return SandboxError(401, message, "Unauthorized")


def _version_doc() -> Obj:
    base = request.host_url.rstrip("/") + "/identity/v3/"
    return {"id": API_VERSION, "status": "stable", "updated": UPDATED,
            "links": [{"rel": "self", "href": base}],
            "media-types": [{"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}]}


@bp.get("/identity")
@bp.get("/identity/")
def versions() -> Any:
    return reply({"versions": {"values": [_version_doc()]}}, 300)


@bp.get("/identity/v3")
@bp.get("/identity/v3/")
def version() -> Any:
    return reply({"version": _version_doc()})


# ---- lookups --------------------------------------------------------------------------------
def find_domain(ref: Obj) -> Obj:
    st = store()
    if ref.get("id"):
        dom = st.get("domains", ref["id"])
    else:
        dom = next((d for d in st.all("domains") if d["name"] == ref.get("name")), None)
    if dom is None:
        raise unauthorized("Could not find domain: %s." % (ref.get("id") or ref.get("name")))
    return dom


def find_user(ref: Obj) -> Obj:
    st = store()
    if ref.get("id"):
        user = st.get("users", ref["id"])
    else:
        dom = find_domain(ref.get("domain") or {})
        user = next((u for u in st.all("users") if u["name"] == ref.get("name") and u["domain_id"] == dom["id"]),
                    None)
    if user is None or not user.get("enabled", True):
        raise unauthorized()
    return user


def find_project(ref: Obj) -> Obj:
    st = store()
    if ref.get("id"):
        proj = st.get("projects", ref["id"])
    else:
        dom = find_domain(ref.get("domain") or {})
        proj = next((p for p in st.all("projects") if p["name"] == ref.get("name") and p["domain_id"] == dom["id"]),
                    None)
    if proj is None or not proj.get("enabled", True):
        raise unauthorized("Could not find project: %s." % (ref.get("id") or ref.get("name")))
    return proj


def _ref(entity: Obj) -> Obj:
    dom = store().get("domains", entity.get("domain_id") or "default") or {"id": "default", "name": "Default"}
    return {"id": entity["id"], "name": entity["name"], "domain": {"id": dom["id"], "name": dom["name"]}}


def token_body(record: Obj, with_catalog: bool = True) -> Obj:
    """Keystone's token body for a stored token record."""
    st = store()
    user = st.get("users", record["user_id"]) or {"id": record["user_id"], "name": "", "domain_id": "default"}
    tok: Obj = {"methods": record["methods"], "user": dict(_ref(user), password_expires_at=None),
                "audit_ids": [record["audit_id"]] + ([record["audit_chain"]] if record.get("audit_chain") else []),
                "expires_at": iso(record["expires_at"], "keystone"), "issued_at": iso(record["issued_at"], "keystone")}
    roles = [{"id": rid, "name": (st.get("roles", rid) or {}).get("name", "")} for rid in record["role_ids"]]
    if record.get("project_id"):
        tok["project"] = _ref(st.get("projects", record["project_id"]) or {"id": record["project_id"], "name": ""})
        tok["is_domain"] = False
        tok["roles"] = roles
    elif record.get("domain_id"):
        dom = st.get("domains", record["domain_id"]) or {"id": record["domain_id"], "name": ""}
        tok["domain"] = {"id": dom["id"], "name": dom["name"]}
        tok["roles"] = roles
    if record.get("trust_id"):
        trust = st.get("trusts", record["trust_id"]) or {}
        tok["OS-TRUST:trust"] = {"id": record["trust_id"], "impersonation": trust.get("impersonation", False),
                                 "trustee_user": {"id": trust.get("trustee_user_id")},
                                 "trustor_user": {"id": trust.get("trustor_user_id")},
                                 "expires_at": trust.get("expires_at"), "remaining_uses": trust.get("remaining_uses")}
    if with_catalog and (record.get("project_id") or record.get("domain_id")):
        tok["catalog"] = full_catalog(record.get("project_id"))
    return {"token": tok}


# ---- POST /v3/auth/tokens -------------------------------------------------------------------
def _trust_scope(trust_id: str, user_id: str, methods: list[str]) -> Obj:
    st = store()
    trust = st.get("trusts", trust_id)
    if trust is None or trust.get("_deleted"):
        raise SandboxError(404, f"Could not find trust: {trust_id}.", "TrustNotFound")
    if trust["trustee_user_id"] != user_id:
        raise SandboxError(403, "User is not a trustee.", "Forbidden")
    expires = parse_iso(trust.get("expires_at"))
    if expires is not None and expires <= st.clock():
        raise SandboxError(404, f"Could not find trust: {trust_id}.", "TrustNotFound")
    if trust.get("remaining_uses") is not None:
        if trust["remaining_uses"] <= 0:
            raise SandboxError(401, "Trust has no remaining uses.", "Unauthorized")
        trust["remaining_uses"] -= 1
        st.touch()
    held = set(roles_on(trust["trustor_user_id"], trust["project_id"]))
    role_ids = [r for r in trust["_role_ids"] if r in held]
    if not role_ids:
        raise unauthorized("Trustor has no delegated roles.")
    token_user = trust["trustor_user_id"] if trust["impersonation"] else user_id
    return {"user_id": token_user, "project_id": trust["project_id"], "role_ids": role_ids,
            "trust_id": trust_id, "expires_at": expires}


@bp.post("/identity/v3/auth/tokens")
def issue() -> Any:
    data = body("auth")
    identity = data.get("identity") or {}
    methods = list(identity.get("methods") or [])
    st = store()
    chain = None
    prior: Obj | None = None
    if "password" in methods:
        creds = (identity.get("password") or {}).get("user") or {}
        user = find_user(creds)
        if creds.get("password") != user.get("_password"):
            raise unauthorized()
    elif "token" in methods:
        prior = auth.lookup_token(st, (identity.get("token") or {}).get("id"))
        if prior is None:
            raise SandboxError(404, "Could not find token.", "TokenNotFound")
        if prior.get("trust_id"):
            raise SandboxError(403, "Trust-scoped tokens cannot be rescoped.", "Forbidden")
        user = st.get("users", prior["user_id"]) or {}
        chain = prior["audit_id"]
    else:
        raise unauthorized(f"Attempted to authenticate with an unsupported method: {methods}.")
    scope = data.get("scope")
    fields: Obj = {"user_id": user["id"], "project_id": None, "role_ids": [], "domain_id": None,
                   "trust_id": None}
    if scope is None and prior is None and user.get("default_project_id"):
        scope = {"project": {"id": user["default_project_id"]}}
    if isinstance(scope, dict) and "OS-TRUST:trust" in scope:
        fields.update(_trust_scope(str(scope["OS-TRUST:trust"].get("id")), user["id"], methods))
    elif isinstance(scope, dict) and "project" in scope:
        proj = find_project(scope["project"])
        fields["project_id"] = proj["id"]
        fields["role_ids"] = roles_on(user["id"], proj["id"])
        if not fields["role_ids"]:
            raise unauthorized(f"User {user['id']} has no access to project {proj['id']}")
    elif isinstance(scope, dict) and "domain" in scope:
        dom = find_domain(scope["domain"])
        fields["domain_id"] = dom["id"]
        fields["role_ids"] = roles_on(user["id"], domain_id=dom["id"])
        if not fields["role_ids"]:
            raise unauthorized(f"User {user['id']} has no access to domain {dom['id']}")
    elif isinstance(scope, dict) and "system" in scope:
        raise unauthorized("System scope is not supported by the sandbox.")
    expires = prior["expires_at"] if prior else None
    record = auth.issue_token(st, user_id=fields["user_id"], project_id=fields["project_id"],
                              domain_id=fields["domain_id"], role_ids=fields["role_ids"], methods=methods,
                              trust_id=fields["trust_id"], expires_at=fields.get("expires_at") or expires,
                              audit_chain=chain)
    with_catalog = "nocatalog" not in request.args
    return reply(token_body(record, with_catalog), 201, {"X-Subject-Token": record["id"]})


def _subject(action: str) -> Obj:
    """The ``X-Subject-Token``'s record, for an admin, a ``service`` (keystonemiddleware's
    user) or the token's own user (Keystone's ``rule:token_subject``).

    :raises SandboxError: 401 bad caller token, 404 ``TokenNotFound``, 403 ``identity:<action>``.
    """
    caller = auth.authenticate(store())
    record = auth.lookup_token(store(), request.headers.get("X-Subject-Token"))
    if record is None:
        raise SandboxError(404, "Could not find token.", "TokenNotFound")
    enforce(action, "service" in caller.roles or record["user_id"] == caller.user_id)
    return record


@bp.get("/identity/v3/auth/tokens")
def validate() -> Any:
    record = _subject("validate_token")
    return reply(token_body(record, "nocatalog" not in request.args), 200, {"X-Subject-Token": record["id"]})


@bp.route("/identity/v3/auth/tokens", methods=["HEAD"])
def check() -> Any:
    _subject("check_token")
    return reply({}, 200)


@bp.delete("/identity/v3/auth/tokens")
def revoke() -> Any:
    record = _subject("revoke_token")
    store().remove("tokens", record["id"])
    return reply({}, 204)


@bp.get("/identity/v3/auth/catalog")
def auth_catalog() -> Any:
    c = auth.authenticate(store())
    return reply({"catalog": full_catalog(c.project_id),
                  "links": {"self": request.base_url, "previous": None, "next": None}})


@bp.get("/identity/v3/auth/projects")
def auth_projects() -> Any:
    c = auth.authenticate(store())
    st = store()
    ids = reachable_ids(c.user_id, "project_id")
    projects = [p for p in st.all("projects") if p["id"] in ids]
    return reply({"projects": [view("projects", p) for p in projects],
                  "links": {"self": request.base_url, "previous": None, "next": None}})


@bp.get("/identity/v3/auth/domains")
def auth_domains() -> Any:
    c = auth.authenticate(store())
    ids = reachable_ids(c.user_id, "domain_id")
    return reply({"domains": [view("domains", d) for d in store().all("domains") if d["id"] in ids],
                  "links": {"self": request.base_url, "previous": None, "next": None}})


# ---- EC2 ------------------------------------------------------------------------------------
def ec2_credential(access: str) -> Obj | None:
    for cred in store().all("credentials"):
        if cred.get("type") == "ec2":
            blob = json.loads(cred["blob"]) if isinstance(cred["blob"], str) else cred["blob"]
            if blob.get("access") == access:
                return dict(cred, _blob=blob)
    return None


#: Keystone's ``[credential] auth_ttl`` (minutes) that a signed request's Timestamp is honoured
EC2_AUTH_TTL_MINUTES = 15


def _check_timestamp(creds: Obj) -> None:
    """Keystone's ``_check_timestamp``: a ``Timestamp`` (or ``X-Amz-Date``) older than
    ``auth_ttl`` is refused; none: the signer left it off on purpose."""
    params, headers = creds.get("params") or {}, creds.get("headers") or {}
    stamp = params.get("Timestamp") or headers.get("X-Amz-Date") or params.get("X-Amz-Date")
    if not stamp:
        return
    try:
        text = str(stamp)
        when = (dt.datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.UTC)
                if "-" not in text else dt.datetime.fromisoformat(text))
    except ValueError as exc:
        raise unauthorized(f"Credential timestamp is invalid: {exc}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    if time.time() > when.timestamp() + EC2_AUTH_TTL_MINUTES * 60:
        raise unauthorized("Credential is expired")


@bp.post("/identity/v3/ec2tokens")
def ec2tokens() -> Any:
    data = body()
    creds = data.get("credentials") or data.get("ec2Credentials") or {}
    cred = ec2_credential(str(creds.get("access", "")))
    if cred is None:
        raise unauthorized("Could not find credential.")
    from keystoneclient.contrib.ec2.utils import Ec2Signer  # the signer Keystone itself uses
    signature = Ec2Signer(cred["_blob"]["secret"]).generate(creds)
    given = creds.get("signature")
    if not given or not (signature == given or signature.rstrip("=") == str(given).rstrip("=")):
        raise unauthorized("Invalid EC2 signature.")
    _check_timestamp(creds)
    fields: Obj = {"user_id": cred["user_id"], "project_id": cred.get("project_id"), "trust_id": None}
    trust_id = cred["_blob"].get("trust_id")
    if trust_id:
        trust = store().get("trusts", trust_id) or {}
        fields.update(_trust_scope(trust_id, trust.get("trustee_user_id", ""), ["ec2credential"]))
    else:
        fields["role_ids"] = roles_on(cred["user_id"], cred.get("project_id"))
        if not fields["role_ids"]:
            raise unauthorized(f"User {cred['user_id']} has no access to project {cred.get('project_id')}")
    record = auth.issue_token(store(), user_id=fields["user_id"], project_id=fields["project_id"],
                              role_ids=fields["role_ids"], methods=["ec2credential"], trust_id=fields["trust_id"])
    return reply(token_body(record), 200, {"X-Subject-Token": record["id"]})
