"""app.auth — identity of API requests and of the stacks' deferred work (DESIGN.md "Auth").

More in docs/code/auth.md (app.auth).
"""
from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Any

from app import errors
from app.config import Settings
from app.context import RequestContext

STRATEGIES = ("noauth", "keystone")
# the token of the API request being served (request-time validation runs as its user)
_request_token: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "stoker_request_token", default=None)


class AuthConfigError(errors.StokerError):
    """The identity settings cannot work (an unknown strategy...): raised at start-up."""

    http_status = 500
    heat_type = "AuthConfigError"


def keystone_mode(settings: Settings) -> bool:
    return settings.auth_strategy == "keystone"


def check_settings(settings: Settings) -> None:
    """Fail at start-up, with a clear message, on identity settings that cannot work.

    :raises AuthConfigError: unknown ``auth_strategy``.
    :raises crypto.EncryptionKeyError: keystone mode without a usable encryption key.
    :raises policy.PolicyFileError: the policy file is missing or does not parse.
    """
    if settings.auth_strategy not in STRATEGIES:
        raise AuthConfigError(f"STOKER_AUTH_STRATEGY must be one of {', '.join(STRATEGIES)}, "
                              f"not {settings.auth_strategy!r}.")
    if not keystone_mode(settings):
        return
    from app.auth import crypto, policy
    crypto.cipher(settings.auth_encryption_key)
    policy.enforcer(settings)


def embedded_settings(settings: Settings, auth_strategy: str | None = None) -> Settings:
    """The settings ``stoker up`` runs with (``--auth``): in keystone mode without
    ``STOKER_AUTH_ENCRYPTION_KEY``, a key generated once into ``<data_dir>/auth-encryption.key``
    (mode 0600) and reused, so the embedded system works out of the box; then
    :func:`check_settings`. Production processes (gunicorn, celery) get no such default.

    :raises errors.StokerError: as :func:`check_settings`.
    """
    import os
    from pathlib import Path
    if auth_strategy:
        settings = settings.replace(auth_strategy=auth_strategy)
    if keystone_mode(settings) and not settings.auth_encryption_key:
        from cryptography.fernet import Fernet
        path = Path(settings.data_dir) / "auth-encryption.key"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(Fernet.generate_key().decode())
        settings = settings.replace(auth_encryption_key=path.read_text().strip())
    check_settings(settings)
    return settings


def wrap_wsgi(wsgi_app: Any, settings: Settings) -> Any:
    """The API's WSGI callable behind keystonemiddleware's auth_token (keystone mode), else
    unchanged."""
    if not keystone_mode(settings):
        return wsgi_app
    from app.auth import keystone
    return keystone.wrap(wsgi_app, settings)


def context_from_headers(headers: Mapping[str, str], tenant_id: str, settings: Settings,
                         request_id: str) -> RequestContext:
    """Build the :class:`RequestContext` for a request to project ``tenant_id``.

    :raises keystone.NotAuthenticated: keystone mode, no valid token (401).
    :raises policy.AccessDenied: keystone mode, the URL's project is not the token's (403).
    """
    if keystone_mode(settings):
        from app.auth import keystone
        ctx = keystone.build_context(headers, tenant_id, settings, request_id)
        _request_token.set((ctx.auth_token or "", ctx.project_id or ""))
        return ctx
    from app.auth import noauth
    _request_token.set(None)
    return noauth.build_context(headers, tenant_id, settings, request_id)


def authorize(ctx: RequestContext, settings: Settings, rule: str, method: str,
              view_args: Mapping[str, Any] | None, args: Mapping[str, str]) -> None:
    """Enforce the Heat policy rule of the route ``rule`` / ``method`` (keystone mode).

    :raises policy.AccessDenied: the policy refuses, or the route has no rule (403).
    """
    if not keystone_mode(settings):
        return
    from app.auth import keystone, policy, routes
    action = routes.action_for(rule, method, view_args, args)
    if action is None:
        raise policy.AccessDenied()
    creds = keystone.creds_of(ctx)
    # Heat's registered_policy_enforce: an admin (context_is_admin) acting on another project's
    # URL is checked against its own project, so admins reach every project's stacks
    target = ctx.project_id if ctx.is_admin and ctx.project_id else ctx.tenant_id
    policy.enforce(settings, action, creds, target)


GLOBAL_INDEX_DENIED = "You are not authorized to use stacks:global_index."

def check_resource_types(ctx: RequestContext, type_names: Any) -> None:
    """Heat's ``resource_enforcer.enforce_stack``: a caller who is not an admin (Heat's
    ``rule:project_admin``) may not use the admin-only types of
    :data:`app.auth.resource_policy.ADMIN_TYPES`.

    :raises errors.Forbidden: 403 "You are not authorized to use <type>." """
    from app.auth import resource_policy
    resource_policy.enforce(ctx.is_admin, type_names)


def check_global_index(ctx: RequestContext, settings: Settings) -> None:
    """``GET /stacks?global_tenant=true`` (Heat's ``global_index``): keystone mode enforced
    ``stacks:global_index`` already (:func:`authorize`); in noauth mode only an admin
    (``context_is_admin``, this policy's default here) may list every project.

    :raises policy.AccessDenied: 403 with Heat's message."""
    if keystone_mode(settings) or ctx.is_admin:
        return
    from app.auth import policy
    raise policy.AccessDenied(GLOBAL_INDEX_DENIED)


def stack_created(s: Any, ctx: RequestContext, stack_id: str, parent_id: str | None,
                  settings: Settings) -> None:
    """In ``s``'s create transaction: a root stack gets its trust (keystone mode); nested stacks
    use their root's.

    :raises trusts.TrustError: Keystone refused the trust (nothing of the stack is kept).
    """
    if not keystone_mode(settings) or parent_id is not None:
        return
    from app.auth import trusts
    trusts.create_for_stack(s, ctx, stack_id, settings)


def stack_deleted(s: Any, stack_id: str, settings: Settings) -> str | None:
    """In the transaction that ends a stack's delete: its trust and its stack-user project
    (with every user left in it) are deleted. Returns the reason the delete must fail instead
    (Keystone could not be asked: Heat's ``Error deleting project: ...``), else None."""
    from app.auth import trusts
    if not keystone_mode(settings):
        trusts.forget(stack_id)
        return None
    from app.auth import stack_users
    failure = trusts.delete_for_stack(s, stack_id, settings)
    if failure is not None:
        return failure
    return stack_users.delete_for_stack(s, stack_id, settings)


def is_stack_user_project(ctx: RequestContext, tenant: str, stack_id: str,
                          settings: Settings) -> bool:
    """Whether ``ctx``'s token is scoped to the stack-user project of stack ``stack_id`` of
    ``tenant`` (Heat's ``stack_user_project_id`` check in ``_get_stack``): a stack user's
    signal or metadata request may reach the stack then (policy limits it to those)."""
    if not keystone_mode(settings):
        return False
    from app.auth import stack_users
    return stack_users.is_stack_user_project(ctx, tenant, stack_id, settings)


def clients_for(ident: Any, settings: Settings | None = None, *, validation: bool = False,
                trust_of: str | None = None) -> Any:
    """The cloud client factory (``app.clients.LazyClients``) for a stack ``ident`` (``.stack_id``,
    ``.project_id``...).

    keystone mode: scoped by the root stack's trust (``trust_of``: the stack whose trust it is,
    a nested stack's parent while the nested stack is validated before its create, as Heat's
    child stacks share their root's trust); a stack not created yet (``validation`` at create,
    preview) runs as the request's own token. noauth, or a stack without a trust: the
    configured credential.
    """
    from app import clients, config
    st = settings or config.get()
    factory = clients.for_validation if validation else clients.for_stack
    if not keystone_mode(st):
        return factory(ident)
    from app.auth import trusts
    trust_id = None
    stack_id = trust_of or str(getattr(ident, "stack_id", "") or "")
    if stack_id and stack_id != "None":
        trust_id = trusts.trust_for_stack(stack_id, st)
    if trust_id is None and validation and _request_token.get():
        token, project = _request_token.get() or ("", "")
        if token:
            return clients.for_validation(ident, user_token=(token, project))
    return factory(ident, trust_id=trust_id)
