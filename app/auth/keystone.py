"""The ``keystone`` strategy: ``keystonemiddleware.auth_token`` in front of the API.

:func:`wrap` puts ``AuthProtocol`` around a WSGI app, configured from ``Settings``: Keystone at
``keystone_url``, Stoker's service user (``service_username`` / ``service_password`` in
``service_project``) to validate tokens, ``delay_auth_decision`` so that the API itself answers
401 in Heat's fault shape (and the version documents stay public, as heat-api's versions app).
The middleware strips any ``X-User-Id`` / ``X-Roles``... a client sends, validates
``X-Auth-Token`` (``GET /v3/auth/tokens``) and sets them from the token.

:func:`build_context` turns those headers into a :class:`RequestContext`, then applies Heat's
tenant-local rule (``heat/api/openstack/v1/util.py``): the URL's project must be the token's,
unless Heat's ``context_is_admin`` allows the caller everywhere.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.auth import policy
from app.config import Settings
from app.context import RequestContext

UNAUTHENTICATED = "The request you have made requires authentication."


class NotAuthenticated(errors.AuthError):
    """401: no token, or one Keystone does not confirm (malformed, expired, revoked, its
    project or user gone). webob's ``HTTPUnauthorized``, as heat-api's fault body names it."""

    heat_type = "HTTPUnauthorized"

    def __init__(self, message: str = UNAUTHENTICATED, **data: Any) -> None:
        super().__init__(message, **data)


#: the password plugin's options: keystonemiddleware reads them through keystoneauth's loader
#: from an oslo.config object (given in its paste conf they work, but each prints "The option
#: ... is not known to keystonemiddleware" at start)
PLUGIN_OPTIONS = ("auth_url", "username", "password", "project_name", "user_domain_name",
                  "project_domain_name")
GROUP = "keystone_authtoken"


def middleware_conf(settings: Settings) -> dict[str, str]:
    """auth_token's options, every one from ``Settings``: its own (paste-deploy local conf) and
    the service user's password plugin options (``PLUGIN_OPTIONS``)."""
    return {
        "www_authenticate_uri": settings.keystone_url,
        "auth_type": "password",
        "auth_url": settings.keystone_url,
        "username": settings.service_username,
        "password": settings.service_password,
        "project_name": settings.service_project,
        "user_domain_name": settings.service_user_domain,
        "project_domain_name": settings.service_project_domain,
        "delay_auth_decision": "true",
        "include_service_catalog": "false",
        "token_cache_time": str(settings.token_cache_time),
        "http_connect_timeout": str(int(settings.cloud_timeout)),
    }


def _oslo_conf(plugin_values: Mapping[str, str]) -> Any:
    """A private oslo.config object holding the password plugin's options in auth_token's
    group (never the process-wide ``cfg.CONF``)."""
    from keystoneauth1 import loading
    from oslo_config import cfg
    conf = cfg.ConfigOpts()
    conf([], project="stoker", default_config_files=[], default_config_dirs=[])
    loading.register_auth_conf_options(conf, GROUP)
    conf.register_opts(loading.get_auth_plugin_conf_options("password"), group=GROUP)
    for name, value in plugin_values.items():
        conf.set_override(name, value, group=GROUP)
    return conf


def wrap(wsgi_app: Any, settings: Settings) -> Any:
    """``wsgi_app`` behind ``keystonemiddleware.auth_token.AuthProtocol``; a normal start logs
    no warning (the plugin options come through an oslo.config object, see ``PLUGIN_OPTIONS``).
    """
    from keystonemiddleware import auth_token
    conf = middleware_conf(settings)
    plugin = {k: conf.pop(k) for k in PLUGIN_OPTIONS}
    return auth_token.AuthProtocol(wsgi_app, {**conf, "oslo_config_config": _oslo_conf(plugin)})


def _bool(text: str | None, default: bool) -> bool:
    if text is None:
        return default
    return text.strip().lower() in ("true", "1", "yes")


def creds_from_headers(headers: Mapping[str, str]) -> dict[str, Any]:
    """The token's policy credentials from auth_token's headers (oslo.context's names).

    :raises NotAuthenticated: the middleware did not confirm a token.
    """
    if headers.get("X-Identity-Status") != "Confirmed" or not headers.get("X-User-Id"):
        raise NotAuthenticated()
    roles = [r.strip() for r in (headers.get("X-Roles") or "").split(",") if r.strip()]
    creds: dict[str, Any] = {
        "user_id": headers.get("X-User-Id"), "project_id": headers.get("X-Project-Id"),
        "roles": roles, "is_admin_project": _bool(headers.get("X-Is-Admin-Project"), True),
        "system_scope": headers.get("OpenStack-System-Scope") or None,
        "user_domain_id": headers.get("X-User-Domain-Id"),
        "project_domain_id": headers.get("X-Project-Domain-Id"),
    }
    if headers.get("X-Domain-Id") and not creds["project_id"]:
        creds["domain_id"] = headers.get("X-Domain-Id")
    return creds


def build_context(headers: Mapping[str, str], tenant_id: str, settings: Settings,
                  request_id: str) -> RequestContext:
    """The :class:`RequestContext` of a request the middleware has seen.

    ``tenant_id`` is the URL's project; ``project_id`` the token's.

    :raises NotAuthenticated: no confirmed token (401).
    :raises policy.AccessDenied: the token's project is not the URL's and the caller is not
        ``context_is_admin`` (403, Heat's tenant-local rule).
    """
    creds = creds_from_headers(headers)
    admin = policy.is_admin(settings, creds)
    if creds["project_id"] != tenant_id and not (admin or creds["system_scope"] == "all"):
        raise policy.AccessDenied()
    return RequestContext(
        tenant_id=tenant_id, user_id=str(creds["user_id"]),
        username=headers.get("X-User-Name") or str(creds["user_id"]),
        roles=tuple(creds["roles"]), auth_token=headers.get("X-Auth-Token"),
        request_id=request_id, project_id=creds["project_id"], is_admin=admin,
        domain_id=creds.get("domain_id"), user_domain_id=creds["user_domain_id"],
        project_domain_id=creds["project_domain_id"], system_scope=creds["system_scope"],
        is_admin_project=creds["is_admin_project"],
        project_name=headers.get("X-Project-Name"),
        project_domain_name=headers.get("X-Project-Domain-Name"))


def creds_of(ctx: RequestContext) -> dict[str, Any]:
    """The policy credentials of a context :func:`build_context` made."""
    creds: dict[str, Any] = {
        "user_id": ctx.user_id, "project_id": ctx.project_id, "roles": list(ctx.roles),
        "is_admin_project": ctx.is_admin_project, "system_scope": ctx.system_scope,
        "user_domain_id": ctx.user_domain_id, "project_domain_id": ctx.project_domain_id}
    if ctx.domain_id:
        creds["domain_id"] = ctx.domain_id
    return creds
