"""The ``noauth`` strategy: identity from request headers, one project for the whole system.

The embedded default (``Settings.auth_strategy == "noauth"``), as heat-api's ``noauth`` paste
pipeline (``heat/common/noauth.py``) followed by its ``registered_policy_enforce``
(``heat/api/openstack/v1/util.py``):

- any ``X-Auth-Token`` (or none) is accepted and never validated;
- the project is ``X-Auth-Project`` (heat's noauth header) or ``X-Project-Id``, else
  ``Settings.tenant`` (``admin``, Heat's noauth default) — never the URL: Heat keys stacks by the
  context's project, so ``/v1/admin`` (the README's URL) and ``/v1/<project id>`` (the URL the
  sandbox's Keystone catalog advertises, which ``openstack --os-cloud sandbox`` uses) reach the
  same stacks;
- the user comes from ``X-User-Id`` / ``X-User-Name`` (or Heat's ``X-Auth-User``), falling back
  to ``Settings.default_user``; roles from ``X-Roles`` (comma separated), default ``admin``;
- an admin (``admin`` role, Heat's ``context_is_admin``) acts in the context's project whatever
  tenant the URL names (heat-api replaces the URL's tenant by the context's project for admins);
  a non-admin naming another project in the URL gets Heat's 403.
"""
from __future__ import annotations

from collections.abc import Mapping

from app.auth import policy
from app.config import Settings
from app.context import RequestContext


def project_of(headers: Mapping[str, str], settings: Settings) -> str:
    """The project a noauth request acts in: ``X-Auth-Project``, ``X-Project-Id``, else
    ``Settings.tenant``."""
    return (headers.get("X-Auth-Project") or headers.get("X-Project-Id")
            or settings.tenant).strip() or settings.tenant


def build_context(headers: Mapping[str, str], tenant_id: str, settings: Settings,
                  request_id: str) -> RequestContext:
    """A :class:`RequestContext` for one request.

    :param headers: the request headers (case-insensitive mapping).
    :param tenant_id: the ``{tenant_id}`` of ``/v1/{tenant_id}/...``.
    :param request_id: the ``req-<uuid>`` the response carries in ``x-openstack-request-id``.
    :raises policy.AccessDenied: a non-admin names another project than its own in the URL (403).
    """
    user_id = headers.get("X-User-Id") or headers.get("X-Auth-User") or settings.default_user
    username = headers.get("X-User-Name") or headers.get("X-User") or user_id
    roles = tuple(r.strip() for r in (headers.get("X-Roles") or "admin").split(",") if r.strip())
    roles = roles or ("admin",)
    project = project_of(headers, settings)
    admin = "admin" in roles
    if tenant_id != project and not admin:
        raise policy.AccessDenied()
    return RequestContext(tenant_id=project, user_id=user_id, username=username,
                          roles=roles, auth_token=headers.get("X-Auth-Token"),
                          request_id=request_id, project_id=project, is_admin=admin)
