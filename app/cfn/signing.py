"""Who is asking: the EC2 signature of a CFN request, checked as heat-api-cfn's ``EC2Token``
middleware (``heat/api/aws/ec2token.py``) checks it.

More in docs/code/cfn.md (app.cfn.signing).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from app.cfn import faults
from app.config import Settings
from app.context import RequestContext


def signature_of(params: Mapping[str, str], headers: Mapping[str, str]) -> str | None:
    """The request's signature (Heat's ``_get_signature``), None when there is none."""
    sig = params.get("Signature") or params.get("X-Amz-Signature")
    if not sig and headers.get("Authorization"):
        sig = headers["Authorization"].partition("Signature=")[2].split(",")[0].strip()
    return sig or None


def access_of(params: Mapping[str, str], headers: Mapping[str, str]) -> str | None:
    """The access key id (Heat's ``_get_access``), None when there is none."""
    access = params.get("AWSAccessKeyId")
    if not access and params.get("X-Amz-Credential"):
        access = params["X-Amz-Credential"].split("/")[0]
    if not access and headers.get("Authorization"):
        cred = headers["Authorization"].partition("Credential=")[2].split(",")[0]
        access = cred.split("/")[0].strip()
    return access or None


def ec2tokens_url(settings: Settings) -> str:
    """Keystone's ``/v3/ec2tokens``: ``Settings.cfn_ec2_auth_url`` if set, else beside the
    identity v3 endpoint ``Settings.keystone_url`` (the Keystone that holds the stack users'
    credentials and validates the API's tokens; the sandbox's by default)."""
    if settings.cfn_ec2_auth_url:
        return settings.cfn_ec2_auth_url
    base = settings.keystone_url.rstrip("/")
    return f"{base}/ec2tokens" if base.endswith("/v3") else f"{base}/v3/ec2tokens"


def authenticate(settings: Settings, *, params: Mapping[str, str], headers: Mapping[str, str],
                 host: str, verb: str, path: str, body: bytes,
                 request_id: str) -> RequestContext:
    """The :class:`RequestContext` of a signed CFN request.

    :param params: the query and form parameters (first value of each).
    :param host: the ``Host`` header as sent (with its port); ``path``: the URL path.
    :raises faults.CfnError: ``IncompleteSignature``, ``MissingAuthenticationToken``,
        ``InvalidClientTokenId``, ``SignatureDoesNotMatch``, ``AccessDenied``,
        ``ServiceUnavailable``.
    """
    signature = signature_of(params, headers)
    if not signature:
        raise faults.IncompleteSignature()
    access = access_of(params, headers)
    if not access:
        raise faults.MissingAuthenticationToken()
    if settings.auth_strategy != "keystone":
        return RequestContext(tenant_id=settings.tenant, user_id=settings.default_user,
                              username=settings.default_user, roles=("admin",),
                              request_id=request_id)
    auth_params = {k: v for k, v in params.items() if k != "Signature"}
    creds = {"ec2Credentials": {"access": access, "signature": signature, "host": host,
                                "verb": verb, "path": path, "params": auth_params,
                                "headers": dict(headers),
                                "body_hash": hashlib.sha256(body).hexdigest()}}
    token, body_json = _post_ec2tokens(settings, creds)
    try:
        tok = body_json["token"]
        project = tok["project"]
        user = tok.get("user") or {}
        roles = tuple(r["name"] for r in tok.get("roles") or [])
        ctx = RequestContext(
            tenant_id=project["id"], user_id=user.get("id", ""),
            username=user.get("name", user.get("id", "")), roles=roles, auth_token=token,
            request_id=request_id, project_id=project["id"],
            user_domain_id=(user.get("domain") or {}).get("id"),
            project_domain_id=(project.get("domain") or {}).get("id"),
            is_admin_project=bool(tok.get("is_admin_project", True)),
            project_name=project.get("name"),
            project_domain_name=(project.get("domain") or {}).get("name"))
    except (KeyError, TypeError, AttributeError):
        raise faults.AccessDenied() from None
    from app.auth import keystone, policy
    return dataclasses.replace(ctx, is_admin=policy.is_admin(settings, keystone.creds_of(ctx)))


def _post_ec2tokens(settings: Settings, creds: dict[str, Any]) -> tuple[str, Any]:
    """``(X-Subject-Token, body)`` of Keystone's answer. :raises faults.CfnError."""
    from keystoneauth1 import exceptions as ks_exc
    from keystoneauth1 import session as ks_session
    sess = ks_session.Session(timeout=settings.cloud_timeout)
    try:
        resp = sess.post(ec2tokens_url(settings), data=json.dumps(creds),
                         headers={"Content-Type": "application/json"}, raise_exc=False,
                         authenticated=False)
    except ks_exc.ClientException as exc:
        raise faults.ServiceUnavailable(f"Keystone is unreachable: {exc}") from None
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if resp.status_code in (200, 201) and resp.headers.get("X-Subject-Token"):
        return resp.headers["X-Subject-Token"], body
    reason = str(((body or {}).get("error") or {}).get("message") or "") \
        if isinstance(body, dict) else ""
    lowered = reason.lower()
    if resp.status_code == 401 and ("access key not found" in lowered
                                    or "could not find credential" in lowered):
        raise faults.InvalidClientTokenId()
    if resp.status_code == 401 and "signature" in lowered:
        raise faults.SignatureDoesNotMatch()
    if resp.status_code >= 500:
        raise faults.ServiceUnavailable(f"Keystone answered {resp.status_code}")
    raise faults.AccessDenied()
