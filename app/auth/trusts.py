"""Each stack's Keystone trust: created at stack create, stored encrypted, used for every cloud
call of the stack, deleted with it (keystone mode; Heat's ``deferred_auth_method = trusts``).

- :func:`create_for_stack` (in the create's transaction): the user's token creates the trust
  (:mod:`app.clients.trusts`), its id is stored Fernet-encrypted in ``user_creds``; if the
  transaction then rolls back, the trust is deleted again, so nothing is left half-made.
- :func:`trust_for_stack`: the decrypted trust id of a stack's root (nested stacks use their
  root's), cached per worker process (a trust never changes during a stack's life).
- :func:`delete_for_stack` (in the transaction that marks the stack DELETE_COMPLETE): the trust
  is deleted in Keystone and its row dropped; returns Heat's failure reason if Keystone could
  not be asked.
"""
from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from app import errors
from app.auth import crypto
from app.config import Settings
from app.context import RequestContext
from app.models import Stack, UserCreds, read_session

LOG = logging.getLogger(__name__)
MAX_CACHED = 4096
_cache: OrderedDict[str, str | None] = OrderedDict()
_lock = threading.Lock()


class TrustError(errors.StokerError):
    """A trust could not be made (the user's token no longer works, a role is not delegable,
    Keystone is down): the stack is not created."""

    http_status = 400
    heat_type = "TrustCreationFailed"


def delegated_roles(ctx: RequestContext, settings: Settings) -> list[str]:
    """``trusts_delegated_roles`` if set, else the roles of the request's token (Heat)."""
    configured = [r.strip() for r in settings.trusts_delegated_roles.split(",") if r.strip()]
    return configured or list(ctx.roles)


def create_for_stack(s: Session, ctx: RequestContext, stack_id: str, settings: Settings) -> str:
    """Create the stack's trust and store it (encrypted) in ``s``'s transaction.

    :returns: the trust id.
    :raises TrustError: Keystone refused or failed (its status and message kept).
    :raises crypto.EncryptionKeyError: no usable encryption key.
    """
    from app.clients import trusts as ks_trusts

    if not ctx.auth_token or not ctx.project_id:
        raise TrustError("A trust needs the request's token and its project.")
    sealed = crypto.cipher(settings.auth_encryption_key)  # a missing key fails before Keystone
    try:
        trust_id = ks_trusts.create_trust(settings, token=ctx.auth_token,
                                          trustor_user_id=ctx.user_id,
                                          project_id=ctx.project_id,
                                          roles=delegated_roles(ctx, settings))
    except errors.CloudError as exc:
        err = TrustError(f"Could not create a trust for the stack: {exc.message}")
        if exc.status in (401, 403):
            err.http_status = exc.status
        raise err from exc
    s.add(UserCreds(stack_id=stack_id, trustor_user_id=ctx.user_id, tenant=ctx.tenant_id,
                    trust_id=sealed.encrypt(trust_id.encode()).decode()))  # type: ignore[attr-defined]

    committed = []

    def done(_session: Session) -> None:
        committed.append(True)

    def undo(_session: Session) -> None:
        if not committed:
            _delete_quietly(settings, trust_id)

    event.listen(s, "after_commit", done, once=True)
    event.listen(s, "after_rollback", undo, once=True)
    return trust_id


def _delete_quietly(settings: Settings, trust_id: str) -> None:
    from app.clients import trusts as ks_trusts
    try:
        ks_trusts.delete_trust(settings, trust_id)
    except errors.CloudError as exc:
        LOG.warning("trust %s of a stack that was not created stays in Keystone: %s",
                    trust_id, exc)


def _root_id(s: Any, stack_id: str) -> str | None:
    """The root of ``stack_id``'s tree, None when ``stack_id`` is not stored (yet)."""
    if s.execute(select(Stack.id).where(Stack.id == stack_id)).scalar() is None:
        return None
    seen = set()
    current = stack_id
    while current not in seen:
        seen.add(current)
        parent = s.execute(select(Stack.parent_id).where(Stack.id == current)).scalar()
        if not parent:
            return current
        current = parent
    return current


def trust_for_stack(stack_id: str, settings: Settings) -> str | None:
    """The decrypted trust id that carries ``stack_id``'s cloud calls (its root stack's), or
    None when the stack has none (created in noauth mode) or is not stored yet (a stack being
    validated before its create; not cached then, so its later work finds its root's trust).
    Cached per process.

    :raises crypto.DecryptionError: the configured keys do not open the stored trust.
    """
    with _lock:
        if stack_id in _cache:
            _cache.move_to_end(stack_id)
            return _cache[stack_id]
    with read_session() as s:
        root = _root_id(s, stack_id)
        if root is None:
            return None
        sealed = s.execute(select(UserCreds.trust_id).where(UserCreds.stack_id == root)).scalar()
    trust_id = crypto.decrypt(settings.auth_encryption_key, sealed) if sealed else None
    with _lock:
        _cache[stack_id] = trust_id
        while len(_cache) > MAX_CACHED:
            _cache.popitem(last=False)
    return trust_id


def delete_for_stack(s: Session, stack_id: str, settings: Settings) -> str | None:
    """Delete the stack's own trust (root stacks only have one) and its row, in ``s``.

    :returns: None when done (or there was none, or Keystone no longer knows it); Heat's
        ``"Error deleting trust: ..."`` reason when Keystone failed (the stack delete fails
        then and can be retried; the row is kept).
    """
    from app.clients import forget_trust
    from app.clients import trusts as ks_trusts

    row = s.get(UserCreds, stack_id)
    if row is None:
        return None
    try:
        trust_id = crypto.decrypt(settings.auth_encryption_key, row.trust_id)
        ks_trusts.delete_trust(settings, trust_id)
    except errors.StokerError as exc:
        return f"Error deleting trust: {exc.message}"
    s.delete(row)
    forget_trust(trust_id)
    forget(stack_id)
    return None


def forget(stack_id: str | None = None) -> None:
    """Drop the cached trust of ``stack_id`` (every stack's when None)."""
    with _lock:
        if stack_id is None:
            _cache.clear()
        else:
            _cache.pop(stack_id, None)
