"""app.auth — identity of API requests (see DESIGN.md "Auth").

:func:`context_from_headers` is the seam the API calls for every ``/v1/{tenant_id}/...`` request.
``noauth`` is implemented here; ``keystone`` (keystonemiddleware validating ``X-Auth-Token`` and
setting ``X-User-Id`` / ``X-Project-Id`` / ``X-Roles``) plugs in behind the same function.
"""
from __future__ import annotations

from collections.abc import Mapping

from app import errors
from app.config import Settings
from app.context import RequestContext


def context_from_headers(headers: Mapping[str, str], tenant_id: str, settings: Settings,
                         request_id: str) -> RequestContext:
    """Build the :class:`RequestContext` for a request to project ``tenant_id``.

    :raises errors.AuthError: the configured strategy is not available yet.
    """
    if settings.auth_strategy == "noauth":
        from app.auth import noauth
        return noauth.build_context(headers, tenant_id, settings, request_id)
    raise errors.AuthError(f"auth_strategy {settings.auth_strategy!r} is not supported yet")
