"""Keystone v3 OS-TRUST trusts (create/list/show/delete, impersonation, role delegation, remaining
uses, expiry), ``/v3/credentials`` (the EC2 credentials of Heat's stack users) and
``/v3/users/{id}/credentials/OS-EC2`` for the sandbox.

Policy as Keystone's defaults (``keystone/common/policies/trust.py``, ``credential.py``): a
user creates trusts as their trustor; a trust is shown to its trustor and trustee (anyone else:
403), listed for a non-admin only filtered by their own ``trustor_user_id`` /
``trustee_user_id`` (else 403) and deleted by its trustor; credentials are listed filtered to the
caller's own; admins see everything.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth
from app.sandbox.http import SandboxError, body, parse_iso, reply
from app.sandbox.identity_records import enforce, get_entity, list_links, roles_on
from app.sandbox.runtime import store
from app.sandbox.store import Obj

bp = Blueprint("identity_trusts", __name__, url_prefix="/identity/v3")


@bp.before_request
def _authenticate() -> None:
    auth.authenticate(store())


# ---- OS-TRUST -------------------------------------------------------------------------------
def trust_view(trust: Obj) -> Obj:
    st = store()
    base = f"{request.host_url.rstrip('/')}/identity/v3"
    roles = [{"id": rid, "name": (st.get("roles", rid) or {}).get("name"), "domain_id": None,
              "links": {"self": f"{base}/roles/{rid}"}} for rid in trust["_role_ids"]]
    out = {k: v for k, v in trust.items() if not k.startswith("_")}
    out.update(roles=roles, roles_links={"self": None, "previous": None, "next": None},
               links={"self": f"{base}/OS-TRUST/trusts/{trust['id']}"})
    return out


def _trust(trust_id: str, action: str = "get_trust") -> Obj:
    """The trust, for its trustor, its trustee or an admin.

    :raises SandboxError: 404 ``TrustNotFound``; 403 ``identity:<action>`` for anyone else.
    """
    trust = store().get("trusts", trust_id)
    if trust is None or trust.get("_deleted"):
        raise SandboxError(404, f"Could not find trust: {trust_id}.", "TrustNotFound")
    enforce(action, auth.ctx().user_id in (trust["trustor_user_id"], trust["trustee_user_id"]))
    return trust


@bp.post("/OS-TRUST/trusts")
def create_trust() -> Any:
    c = auth.ctx()
    data = body("trust")
    st = store()
    if c.trust_id:
        raise SandboxError(403, "Redelegation is not allowed by the sandbox.", "Forbidden")
    trustor = data.get("trustor_user_id")
    if trustor != c.user_id:
        raise SandboxError(403, "The authenticated user should match the trustor.", "Forbidden")
    get_entity("users", str(data.get("trustee_user_id")))
    project_id = data.get("project_id")
    held = roles_on(trustor, project_id) if project_id else []
    role_ids = []
    for ref in data.get("roles") or []:
        role = st.get("roles", ref.get("id", "")) if ref.get("id") else next(
            (r for r in st.all("roles") if r["name"] == ref.get("name")), None)
        if role is None:
            raise SandboxError(404, f"Could not find role: {ref.get('id') or ref.get('name')}.", "RoleNotFound")
        if role["id"] not in held:
            raise SandboxError(403, f"Role {role['id']} is not delegable: the trustor does not hold it on the "
                               "project.", "Forbidden")
        role_ids.append(role["id"])
    expires = data.get("expires_at")
    if expires and (parse_iso(expires) or 0) <= st.clock():
        raise SandboxError(400, "'expires_at' must not be before now.", "ValidationError")
    uses = data.get("remaining_uses")
    trust = {"id": st.new_id(hex_only=True), "trustor_user_id": trustor,
             "trustee_user_id": data["trustee_user_id"], "project_id": project_id,
             "impersonation": bool(data.get("impersonation", False)), "expires_at": expires,
             "remaining_uses": int(uses) if uses is not None else None,
             "allow_redelegation": False, "redelegation_count": 0, "redelegated_trust_id": None,
             "deleted_at": None, "_role_ids": role_ids}
    st.add("trusts", trust)
    return reply({"trust": trust_view(trust)}, 201)


@bp.get("/OS-TRUST/trusts")
def list_trusts() -> Any:
    c = auth.ctx()
    items = [t for t in store().all("trusts") if not t.get("_deleted")]
    filters = [k for k in ("trustor_user_id", "trustee_user_id") if request.args.get(k)]
    if not filters:
        enforce("list_trusts")
    for key in filters:
        enforce(f"list_trusts_for_{key.split('_')[0]}", request.args[key] == c.user_id)
        items = [t for t in items if t[key] == request.args[key]]
    return reply({"trusts": [trust_view(t) for t in items], "links": list_links()})


@bp.get("/OS-TRUST/trusts/<trust_id>")
def show_trust(trust_id: str) -> Any:
    return reply({"trust": trust_view(_trust(trust_id))})


@bp.delete("/OS-TRUST/trusts/<trust_id>")
def delete_trust(trust_id: str) -> Any:
    trust = _trust(trust_id, "delete_trust")
    enforce("delete_trust", auth.ctx().user_id == trust["trustor_user_id"])
    st = store()
    st.remove("trusts", trust_id)
    for tok in st.all("tokens"):
        if tok.get("trust_id") == trust_id:
            st.remove("tokens", tok["id"])
    return reply({}, 204)


@bp.get("/OS-TRUST/trusts/<trust_id>/roles")
def trust_roles(trust_id: str) -> Any:
    return reply({"roles": trust_view(_trust(trust_id, "list_roles_for_trust"))["roles"],
                  "links": list_links()})


@bp.route("/OS-TRUST/trusts/<trust_id>/roles/<role_id>", methods=["GET", "HEAD"])
def trust_role(trust_id: str, role_id: str) -> Any:
    roles = [r for r in trust_view(_trust(trust_id, "get_role_for_trust"))["roles"] if r["id"] == role_id]
    if not roles:
        raise SandboxError(404, f"Could not find role: {role_id}.", "RoleNotFound")
    return reply({"role": roles[0]})


# ---- credentials ----------------------------------------------------------------------------
def cred_view(cred: Obj) -> Obj:
    out = {k: v for k, v in cred.items() if not k.startswith("_")}
    out["links"] = {"self": f"{request.host_url.rstrip('/')}/identity/v3/credentials/{cred['id']}"}
    return out


def _cred(cred_id: str) -> Obj:
    cred = store().get("credentials", cred_id)
    c = auth.ctx()
    if cred is None or not (c.is_admin or cred["user_id"] == c.user_id):
        raise SandboxError(404, f"Could not find credential: {cred_id}.", "CredentialNotFound")
    return cred


@bp.post("/credentials")
def create_credential() -> Any:
    c = auth.ctx()
    data = body("credential")
    user_id = data.get("user_id") or c.user_id
    if user_id != c.user_id:
        auth.require_admin()
    blob = data.get("blob")
    st = store()
    cred_id = st.new_id(hex_only=True)
    if data.get("type") == "ec2":
        try:
            parsed = json.loads(blob) if isinstance(blob, str) else dict(blob or {})
        except ValueError:
            raise SandboxError(400, "Invalid blob in credential", "ValidationError") from None
        if not parsed.get("access"):
            raise SandboxError(400, "Credential blob for an EC2 credential needs 'access'.", "ValidationError")
        cred_id = hashlib.sha256(parsed["access"].encode()).hexdigest()
        if not data.get("project_id"):
            raise SandboxError(400, "Project ID not found: project_id is required for EC2 credentials.",
                               "ValidationError")
    cred = {"id": cred_id, "user_id": user_id, "project_id": data.get("project_id"), "type": data.get("type"),
            "blob": blob if isinstance(blob, str) else json.dumps(blob)}
    if st.get("credentials", cred_id):
        raise SandboxError(409, "Conflict occurred attempting to store credential - Duplicate ID.", "Conflict")
    st.add("credentials", cred)
    return reply({"credential": cred_view(cred)}, 201)


@bp.get("/credentials")
def list_credentials() -> Any:
    c = auth.ctx()
    items = store().all("credentials")
    if not c.is_admin:
        items = [i for i in items if i["user_id"] == c.user_id]
    for key in ("user_id", "type"):
        if request.args.get(key):
            items = [i for i in items if i.get(key) == request.args[key]]
    return reply({"credentials": [cred_view(i) for i in items], "links": list_links()})


@bp.get("/credentials/<cred_id>")
def show_credential(cred_id: str) -> Any:
    return reply({"credential": cred_view(_cred(cred_id))})


@bp.patch("/credentials/<cred_id>")
def update_credential(cred_id: str) -> Any:
    cred = _cred(cred_id)
    data = body("credential")
    for key in ("blob", "project_id", "type"):
        if key in data:
            cred[key] = data[key] if key != "blob" or isinstance(data[key], str) else json.dumps(data[key])
    store().touch()
    return reply({"credential": cred_view(cred)})


@bp.delete("/credentials/<cred_id>")
def delete_credential(cred_id: str) -> Any:
    _cred(cred_id)
    store().remove("credentials", cred_id)
    return reply({}, 204)


def _ec2_view(cred: Obj) -> Obj:
    blob = json.loads(cred["blob"])
    return {"user_id": cred["user_id"], "tenant_id": cred["project_id"], "access": blob["access"],
            "secret": blob["secret"], "trust_id": blob.get("trust_id"),
            "links": {"self": f"{request.host_url.rstrip('/')}/identity/v3/users/{cred['user_id']}/"
                              f"credentials/OS-EC2/{blob['access']}"}}


@bp.post("/users/<user_id>/credentials/OS-EC2")
def create_ec2(user_id: str) -> Any:
    c = auth.ctx()
    if user_id != c.user_id:
        auth.require_admin()
    data = body()
    project_id = data.get("tenant_id") or data.get("project_id") or c.project_id
    blob = {"access": secrets.token_hex(16), "secret": secrets.token_hex(16), "trust_id": c.trust_id}
    cred = {"id": hashlib.sha256(blob["access"].encode()).hexdigest(), "user_id": user_id,
            "project_id": project_id, "type": "ec2", "blob": json.dumps(blob)}
    store().add("credentials", cred)
    return reply({"credential": _ec2_view(cred)}, 201)


@bp.get("/users/<user_id>/credentials/OS-EC2")
def list_ec2(user_id: str) -> Any:
    if user_id != auth.ctx().user_id:
        auth.require_admin()
    creds = [c for c in store().find("credentials", user_id=user_id, type="ec2")]
    return reply({"credentials": [_ec2_view(c) for c in creds], "links": list_links()})


@bp.route("/users/<user_id>/credentials/OS-EC2/<access>", methods=["GET", "DELETE"])
def one_ec2(user_id: str, access: str) -> Any:
    if user_id != auth.ctx().user_id:
        auth.require_admin()
    cred_id = hashlib.sha256(access.encode()).hexdigest()
    cred = store().get("credentials", cred_id)
    if cred is None or cred["user_id"] != user_id:
        raise SandboxError(404, f"Could not find credential: {access}.", "CredentialNotFound")
    if request.method == "DELETE":
        store().remove("credentials", cred_id)
        return reply({}, 204)
    return reply({"credential": _ec2_view(cred)})
