"""The ``noauth`` strategy: identity from request headers, one project for the whole system.

More in docs/code/auth.md (app.auth.noauth).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from sqlalchemy import String

from app import errors
from app.auth import policy
from app.config import Settings
from app.context import RequestContext
from app.models import Stack

#: the longest project id a stack (and every row kept per project) can be stored under
PROJECT_ID_MAX: int = cast(String, Stack.__table__.c.tenant.type).length or 255
#: the longest user id / user name a stack records of its creator
USER_ID_MAX: int = cast(String, Stack.__table__.c.user_id.type).length or 255
USERNAME_MAX: int = cast(String, Stack.__table__.c.username.type).length or 255


def _check_length(value: str, kind: str, limit: int) -> None:
    if len(value) > limit:
        raise errors.BadRequest(f"Invalid {kind} {value}: a {kind} is at most {limit} "
                                f"characters long.")


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
    :raises errors.BadRequest: the URL's or the headers' project id is longer than
        :data:`PROJECT_ID_MAX`, or the headers' user id / user name longer than
        :data:`USER_ID_MAX` / :data:`USERNAME_MAX` (400): no such project or user can exist,
        and nothing could be stored under it (keystonemiddleware would have found none for a
        token).
    """
    user_id = headers.get("X-User-Id") or headers.get("X-Auth-User") or settings.default_user
    username = headers.get("X-User-Name") or headers.get("X-User") or user_id
    roles = tuple(r.strip() for r in (headers.get("X-Roles") or "admin").split(",") if r.strip())
    roles = roles or ("admin",)
    project = project_of(headers, settings)
    for project_id in (tenant_id, project):
        _check_length(project_id, "project id", PROJECT_ID_MAX)
    _check_length(user_id, "user id", USER_ID_MAX)
    _check_length(username, "user name", USERNAME_MAX)
    admin = "admin" in roles
    if tenant_id != project and not admin:
        raise policy.AccessDenied()
    return RequestContext(tenant_id=project, user_id=user_id, username=username,
                          roles=roles, auth_token=headers.get("X-Auth-Token"),
                          request_id=request_id, project_id=project, is_admin=admin)
