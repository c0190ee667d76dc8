"""Keystone's trust API (OS-TRUST), through python-keystoneclient.

As Heat's ``heat/engine/clients/os/keystone/heat_keystoneclient.py``: at stack create the
requesting user (their own token) creates a trust to Stoker's service user (the trustee),
``impersonation=True`` so the trust-scoped tokens act as the trustor, delegating the roles the
token holds on the project (or ``trusts_delegated_roles``). The trust is deleted with the stack,
through a token scoped by the trust itself (the trustor's impersonated identity may delete it,
as Keystone's ``identity:delete_trust`` allows).

Every keystoneauth/keystoneclient error comes out as a :class:`app.errors.CloudError` whose
status is Keystone's (``translate`` at the boundary).
"""
from __future__ import annotations

import threading
from typing import Any

from app import config
from app.clients import trust_session
from app.clients.errors import translate

_lock = threading.Lock()
_trustee: dict[tuple[str, str, str], str] = {}


def service_user_id(st: config.Settings) -> str:
    """The id of Stoker's service user (``service_username`` in ``service_user_domain``),
    looked up once per process by authenticating as it.

    :raises app.errors.CloudError: Keystone refuses the service credentials.
    """
    key = (st.keystone_url, st.service_username, st.service_user_domain)
    found = _trustee.get(key)
    if found:
        return found
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3

    auth = v3.Password(auth_url=st.keystone_url, username=st.service_username,
                       password=st.service_password, user_domain_name=st.service_user_domain,
                       project_name=st.service_project,
                       project_domain_name=st.service_project_domain)
    try:
        user_id = str(ks_session.Session(auth=auth, timeout=st.cloud_timeout).get_user_id())
    except Exception as exc:
        raise translate(exc) from exc
    with _lock:
        _trustee[key] = user_id
    return user_id


def _user_client(st: config.Settings, token: str, project_id: str) -> Any:
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v3
    from keystoneclient.v3 import client as ks_client

    auth = v3.Token(auth_url=st.keystone_url, token=token, project_id=project_id)
    return ks_client.Client(session=ks_session.Session(auth=auth, timeout=st.cloud_timeout))


def create_trust(st: config.Settings, *, token: str, trustor_user_id: str, project_id: str,
                 roles: list[str]) -> str:
    """Create the trust from the token's user to the service user; returns its id.

    :param roles: role names to delegate (Heat: the token's roles, or trusts_delegated_roles).
    :raises app.errors.CloudError: Keystone refuses (the token expired or was revoked: 401; a
        role the user does not hold: 403...), or cannot be reached.
    """
    trustee = service_user_id(st)
    try:
        trust = _user_client(st, token, project_id).trusts.create(
            trustor_user=trustor_user_id, trustee_user=trustee, project=project_id,
            impersonation=True, role_names=roles)
    except Exception as exc:
        raise translate(exc) from exc
    return str(trust.id)


def delete_trust(st: config.Settings, trust_id: str) -> bool:
    """Delete a trust with a token scoped by it. True when deleted, False when Keystone no
    longer knows it (already deleted, or unusable: as Heat, the stack delete goes on).

    :raises app.errors.CloudError: any other failure (Keystone down: transient).
    """
    from keystoneauth1 import exceptions as ksa_exc
    from keystoneclient.v3 import client as ks_client

    try:
        ks_client.Client(session=trust_session(st, trust_id)).trusts.delete(trust_id)
    except (ksa_exc.NotFound, ksa_exc.Unauthorized, ksa_exc.Forbidden):
        return False
    except Exception as exc:
        raise translate(exc) from exc
    return True


def trust_exists(st: config.Settings, trust_id: str, *, token: str, project_id: str) -> bool:
    """Whether Keystone still has the trust, asked with a user's token (tests, operators)."""
    from keystoneauth1 import exceptions as ksa_exc
    try:
        _user_client(st, token, project_id).trusts.get(trust_id)
    except ksa_exc.NotFound:
        return False
    except Exception as exc:
        raise translate(exc) from exc
    return True
