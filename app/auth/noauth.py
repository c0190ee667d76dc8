"""The ``noauth`` strategy: identity from request headers, project from the URL.

The embedded default (``Settings.auth_strategy == "noauth"``). Any ``X-Auth-Token`` (or none) is
accepted, as with heat-api's ``noauth`` paste pipeline; the user comes from ``X-User-Id`` /
``X-User-Name`` (the headers keystonemiddleware sets after validating a token), falling back to
``Settings.default_user``; roles from ``X-Roles`` (comma separated), default ``admin``.
"""
from __future__ import annotations

from collections.abc import Mapping

from app.config import Settings
from app.context import RequestContext


def build_context(headers: Mapping[str, str], tenant_id: str, settings: Settings,
                  request_id: str) -> RequestContext:
    """A :class:`RequestContext` for one request.

    :param headers: the request headers (case-insensitive mapping).
    :param tenant_id: the ``{tenant_id}`` of ``/v1/{tenant_id}/...``.
    :param request_id: the ``req-<uuid>`` the response carries in ``x-openstack-request-id``.
    """
    user_id = headers.get("X-User-Id") or settings.default_user
    username = headers.get("X-User-Name") or headers.get("X-User") or user_id
    roles = tuple(r.strip() for r in (headers.get("X-Roles") or "admin").split(",") if r.strip())
    return RequestContext(tenant_id=tenant_id, user_id=user_id, username=username,
                          roles=roles or ("admin",), auth_token=headers.get("X-Auth-Token"),
                          request_id=request_id)
