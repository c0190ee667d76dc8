"""What every stack-user resource does (Heat's ``heat/engine/resources/stack_user.py``
``StackUser`` and ``SignalResponder``'s credentials): a Keystone user of the stack, and
optionally its EC2 keypair, kept in the resource's data and deleted with it.

Data keys, as Heat's resource data: ``user_id``, ``password`` (a signal handle's, for its
token), ``credential_id`` / ``access_key`` / ``secret_key`` (the keypair) and
``stack_user_project_id`` (the stack's project in the stack user domain). Calls go through
``resource.clients.stack_users()`` (:mod:`app.clients.stack_users`: Keystone in keystone mode,
a local equivalent in noauth); a redelivered create keeps what is already made. The functions
take any plugin (scaling policies and handles use them too); :class:`StackUser` is the base of
the types that are nothing but a stack user.
"""
from __future__ import annotations

import secrets
from typing import Any

from app.resource_types.base import Resource

KEYPAIR_KEYS = ("credential_id", "access_key", "secret_key")


def new_password() -> str:
    """Heat's ``generate_openstack_password``: 32 random URL-safe characters."""
    return secrets.token_urlsafe(24)


def client_of(res: Resource) -> Any:
    """The stack-user client of ``res`` (:mod:`app.clients.stack_users`; the local one for a
    plugin built without clients)."""
    if res.clients is not None and hasattr(res.clients, "stack_users"):
        return res.clients.stack_users()
    from app.clients.stack_users import LocalStackUsers
    return LocalStackUsers()


def project_of(res: Resource) -> str:
    """The stack's stack-user project id, made on first use (Heat's
    ``stack_user_project_id``; noauth: the stack's project)."""
    found = res.data.get("stack_user_project_id")
    if not found:
        if res.stack is None:
            raise ValueError(f"resource {res.name!r} has no stack: no stack user project")
        found = client_of(res).project_for(res.stack.project_id, res.stack.stack_id)
        res.data["stack_user_project_id"] = found
    return str(found)


def create_user(res: Resource, password: str | None = None) -> str:
    """Heat's ``_create_user`` (once): a user named after the physical name, with
    ``password`` if given. :returns: the user id.

    :raises app.errors.CloudError: Keystone refuses or cannot be reached."""
    if res.data.get("user_id"):
        return str(res.data["user_id"])
    project = project_of(res)
    if password is not None:
        res.data["password"] = password
    user_id = client_of(res).create_user(res.physical_resource_name(), project,
                                         res.data.get("password"))
    res.data["user_id"] = user_id
    return str(user_id)


def create_keypair(res: Resource) -> tuple[str, str]:
    """Heat's ``_create_keypair`` (once, after the user). :returns: ``(access, secret)``."""
    if not res.data.get("credential_id"):
        user_id = create_user(res)
        kp = client_of(res).create_keypair(user_id, project_of(res))
        res.data.update(credential_id=kp.id, access_key=kp.access, secret_key=kp.secret)
    return str(res.data["access_key"]), str(res.data["secret_key"])


def user_token(res: Resource) -> str:
    """Heat's ``_user_token``: a token of the user, scoped to its project.

    :raises ValueError: Heat's "Can't get user token without password"."""
    password = res.data.get("password")
    if password is None:
        raise ValueError("Can't get user token without password")
    user_id = create_user(res)
    return str(client_of(res).user_token(user_id, project_of(res), password))


def signal_credentials(res: Resource) -> dict[str, Any]:
    """Heat's ``_get_heat_signal_credentials``: what a client needs to authenticate as the
    resource's stack user (made with a password if there is none yet): ``auth_url``,
    ``username``, ``user_id``, ``password``, ``project_id`` (the stack-user project),
    ``domain_id`` (the stack user domain) and ``region_name``."""
    users = client_of(res)
    if not res.data.get("user_id"):
        create_user(res, res.data.get("password") or new_password())
    elif not res.data.get("password"):  # made without one (Heat then hands out a password
        res.data["password"] = new_password()  # the user does not have: do better)
        users.set_password(res.data["user_id"], res.data["password"])
    return {"auth_url": users.st.keystone_url, "username": res.physical_resource_name(),
            "user_id": res.data["user_id"], "password": res.data.get("password"),
            "project_id": project_of(res), "domain_id": users.domain_id(),
            "region_name": users.st.cloud_region}


def delete_user(res: Resource) -> None:
    """Heat's ``_delete_user``: the keypair, then the user (nothing to do without one)."""
    user_id = res.data.get("user_id")
    if not user_id:
        return
    credential_id = res.data.get("credential_id")
    if credential_id:
        client_of(res).delete_keypair(user_id, project_of(res), credential_id)
    for key in KEYPAIR_KEYS:
        res.data.pop(key, None)
    client_of(res).delete_user(user_id, project_of(res))
    res.data.pop("user_id", None)
    res.data.pop("password", None)


def set_enabled(res: Resource, enabled: bool) -> None:
    """Heat's ``StackUser.handle_suspend`` / ``handle_resume``: the stack user is disabled /
    enabled (its token and keypair stop / start working); nothing without a user."""
    user_id = res.data.get("user_id")
    if user_id:
        client_of(res).set_enabled(user_id, project_of(res), enabled)


class StackUser(Resource):
    """A resource that is a stack user (Heat's ``StackUser``): made at create, deleted with
    it; ``password`` (set before ``handle_create``) gives the user one."""

    password: str | None = None

    def handle_create(self) -> Any:
        create_user(self, self.password)
        return None

    def handle_delete(self) -> Any:
        delete_user(self)
        return None

    def handle_suspend(self) -> None:
        set_enabled(self, False)

    def handle_resume(self) -> None:
        set_enabled(self, True)
