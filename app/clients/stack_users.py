"""Heat's stack users: Keystone users of a stack, made for its signals and AWS::IAM::User.

:class:`KeystoneStackUsers` is keystone mode; :class:`LocalStackUsers` is noauth mode's local
equivalent (Heat's legacy path without a stack domain: the stack's own project; ids and
secrets are made here, nothing is called). Both have the same methods. Every Keystone error
comes out as an :class:`app.errors.CloudError` (``translate``); a 404 on a delete counts as
done, as Heat's.

More in docs/code/clients.md (app.clients.stack_users).
"""
from __future__ import annotations

import json
import secrets
import threading
import uuid
from typing import Any, NamedTuple

from app import config, errors
from app.clients.errors import translate

PROJECT_DESCRIPTION = "Heat stack user project"
_lock = threading.Lock()
_sessions: dict[tuple[Any, ...], Any] = {}


class Keypair(NamedTuple):
    """Heat's ``AccessKey``: the credential's id, its access key id and its secret."""
    id: str
    access: str
    secret: str


def project_name(tenant: str, stack_id: str) -> str:
    """The name of a stack's stack-user project (Heat's ``create_stack_domain_project``)."""
    return f"{tenant}-{stack_id}"[:64]


def username(name: str) -> str:
    """Heat's ``_get_username``: the last 255 characters."""
    return name[-255:]


def new_keypair_blob() -> dict[str, str]:
    """A keypair's ``{"access": 32 hex, "secret": 32 random characters}`` (Heat: uuid4 hex and
    ``generate_openstack_password``)."""
    return {"access": uuid.uuid4().hex, "secret": secrets.token_urlsafe(24)}


class LocalStackUsers:
    """noauth mode: stack users exist only in the resources' data (the stack's project, as
    Heat without a stack domain)."""

    keystone = False

    def __init__(self, settings: config.Settings | None = None) -> None:
        self.st = settings or config.get()

    def domain_id(self) -> str:
        """Keystone's default domain (noauth has no stack domain)."""
        return "default"

    def project_for(self, tenant: str, stack_id: str) -> str:
        """The stack's own project."""
        return tenant

    def create_user(self, name: str, project_id: str, password: str | None = None) -> str:
        """A new user id (32 hex)."""
        return uuid.uuid4().hex

    def create_keypair(self, user_id: str, project_id: str) -> Keypair:
        blob = new_keypair_blob()
        return Keypair(uuid.uuid4().hex, blob["access"], blob["secret"])

    def user_token(self, user_id: str, project_id: str, password: str) -> str:
        """A random token (noauth checks none)."""
        return secrets.token_hex(16)

    def find_user(self, name: str) -> str | None:
        return None

    def set_password(self, user_id: str, password: str) -> None:
        return None

    def set_enabled(self, user_id: str, project_id: str, enabled: bool) -> None:
        return None

    def delete_keypair(self, user_id: str, project_id: str, credential_id: str) -> None:
        return None

    def delete_user(self, user_id: str, project_id: str) -> None:
        return None

    def delete_project(self, project_id: str) -> None:
        return None


class KeystoneStackUsers:
    """keystone mode: the stack domain's admin acts in Keystone (``settings``' ``keystone_url``
    and ``stack_*`` fields). One domain-scoped session per process and configuration."""

    keystone = True

    def __init__(self, settings: config.Settings) -> None:
        self.st = settings

    # ---- the domain admin --------------------------------------------------------------------
    def _session(self) -> Any:
        st = self.st
        key = (st.keystone_url, st.stack_domain_admin, st.stack_domain_admin_password,
               st.stack_user_domain_id, st.stack_user_domain_name, st.cloud_timeout)
        with _lock:
            found = _sessions.get(key)
            if found is not None:
                return found
        from keystoneauth1 import session as ks_session
        from keystoneauth1.identity import v3
        domain: dict[str, Any] = ({"domain_id": st.stack_user_domain_id,
                                   "user_domain_id": st.stack_user_domain_id}
                                  if st.stack_user_domain_id else
                                  {"domain_name": st.stack_user_domain_name,
                                   "user_domain_name": st.stack_user_domain_name})
        auth = v3.Password(auth_url=st.keystone_url, username=st.stack_domain_admin,
                           password=st.stack_domain_admin_password, **domain)
        sess = ks_session.Session(auth=auth, timeout=st.cloud_timeout)
        with _lock:
            return _sessions.setdefault(key, sess)

    def _client(self) -> Any:
        from keystoneclient.v3 import client as ks_client
        return ks_client.Client(session=self._session())

    def domain_id(self) -> str:
        """The stack user domain's id (the admin token's domain when only a name is set).

        :raises app.errors.CloudError: the domain admin cannot authenticate (401)."""
        if self.st.stack_user_domain_id:
            return self.st.stack_user_domain_id
        try:
            return str(self._session().auth.get_access(self._session()).domain_id)
        except Exception as exc:
            raise translate(exc) from exc

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raise translate(exc) from exc

    # ---- projects ----------------------------------------------------------------------------
    def _find_project(self, tenant: str, stack_id: str) -> Any:
        kc = self._client()
        found = self._call(kc.projects.list, domain=self.domain_id(),
                           name=project_name(tenant, stack_id))
        return found[0] if found else None

    def project_for(self, tenant: str, stack_id: str) -> str:
        """The id of the stack's project in the stack domain, made on first use (two workers
        that make it at once: the loser finds the winner's).

        :raises app.errors.CloudError: Keystone refuses or cannot be reached."""
        found = self._find_project(tenant, stack_id)
        if found is not None:
            return str(found.id)
        try:
            made = self._client().projects.create(
                name=project_name(tenant, stack_id), domain=self.domain_id(),
                description=PROJECT_DESCRIPTION)
        except Exception as exc:
            err = translate(exc)
            if err.status != 409:
                raise err from exc
            made = self._find_project(tenant, stack_id)
            if made is None:
                raise err from exc
        return str(made.id)

    def delete_project(self, project_id: str) -> None:
        """Delete a stack's project (Heat's ``delete_stack_domain_project``: gone already, or
        not in the stack domain: nothing is done), with every user of the stack domain that
        still has a role on it (and so their credentials): a stack user whose resource did
        not delete it is not left behind."""
        from keystoneauth1 import exceptions as ksa_exc
        kc = self._client()
        try:
            project = kc.projects.get(project_id)
        except (ksa_exc.NotFound, ksa_exc.Forbidden):
            return
        except Exception as exc:
            raise translate(exc) from exc
        domain = self.domain_id()
        if project.domain_id != domain:
            return  # Heat: 'Not deleting non heat-domain project'
        for assignment in self._call(kc.role_assignments.list, project=project_id):
            user_id = (getattr(assignment, "user", None) or {}).get("id")
            if not user_id:
                continue
            try:
                user = kc.users.get(user_id)
            except Exception as exc:
                if translate(exc).status == 404:
                    continue
                raise translate(exc) from exc
            if user.domain_id == domain:
                self._ignore_404(kc.users.delete, user_id)
        self._ignore_404(kc.projects.delete, project_id)

    # ---- users -------------------------------------------------------------------------------
    def create_user(self, name: str, project_id: str, password: str | None = None) -> str:
        """A user of the stack domain in ``project_id`` with the stack user role only.

        :raises app.errors.CloudError: also Heat's ``Can't find role heat_stack_user`` (500)."""
        kc = self._client()
        roles = self._call(kc.roles.list, name=self.st.heat_stack_user_role)
        if len(roles) != 1:
            raise errors.CloudError(f"Can't find role {self.st.heat_stack_user_role}",
                                    status=500, transient=False)
        user = self._call(kc.users.create, name=username(name), password=password,
                          default_project=project_id, domain=self.domain_id(),
                          options={"ignore_change_password_upon_first_use": True,
                                   "ignore_password_expiry": True,
                                   "ignore_lockout_failure_attempts": True})
        self._call(kc.roles.grant, role=roles[0].id, user=user.id, project=project_id)
        return str(user.id)

    def set_password(self, user_id: str, password: str) -> None:
        """Give an existing stack user a password (one made without, whose resource now
        needs one: a DeployedServer that moves to POLL_SERVER_HEAT)."""
        self._call(self._client().users.update, user_id, password=password)

    def set_enabled(self, user_id: str, project_id: str, enabled: bool) -> None:
        """Heat's ``disable_stack_domain_user`` / ``enable_stack_domain_user`` (a user that is
        gone: nothing to do).

        :raises ValueError: ``User disable|enable in invalid domain|project``."""
        if self._check_user(user_id, project_id, "enable" if enabled else "disable"):
            self._call(self._client().users.update, user_id, enabled=enabled)

    def find_user(self, name: str) -> str | None:
        """The id of the stack domain's user ``name``, None if there is none."""
        found = self._call(self._client().users.list, domain=self.domain_id(),
                           name=username(name))
        return str(found[0].id) if found else None

    def _check_user(self, user_id: str, project_id: str, action: str) -> bool:
        """Heat's ``_check_stack_domain_user``: False when the user is gone.

        :raises ValueError: ``User <action> in invalid domain|project``."""
        from keystoneauth1 import exceptions as ksa_exc
        try:
            user = self._client().users.get(user_id)
        except ksa_exc.NotFound:
            return False
        except Exception as exc:
            raise translate(exc) from exc
        if user.domain_id != self.domain_id():
            raise ValueError(f"User {action} in invalid domain")
        if getattr(user, "default_project_id", None) != project_id:
            raise ValueError(f"User {action} in invalid project")
        return True

    def delete_user(self, user_id: str, project_id: str) -> None:
        """Delete a stack user (its credentials go with it); a gone user is fine."""
        if self._check_user(user_id, project_id, "delete"):
            self._ignore_404(self._client().users.delete, user_id)

    def user_token(self, user_id: str, project_id: str, password: str) -> str:
        """A token of the stack user scoped to its project (Heat's ``stack_domain_user_token``).

        :raises app.errors.CloudError: Keystone refuses (401) or cannot be reached."""
        from keystoneauth1 import session as ks_session
        from keystoneauth1.identity import v3
        auth = v3.Password(auth_url=self.st.keystone_url, user_id=user_id, password=password,
                           project_id=project_id)
        return str(self._call(ks_session.Session(auth=auth, timeout=self.st.cloud_timeout)
                              .get_token))

    # ---- EC2 keypairs ------------------------------------------------------------------------
    def create_keypair(self, user_id: str, project_id: str) -> Keypair:
        """An ``ec2`` credential of the user in its project (Heat's
        ``create_stack_domain_user_keypair``)."""
        blob = new_keypair_blob()
        cred = self._call(self._client().credentials.create, user=user_id, type="ec2",
                          blob=json.dumps(blob), project=project_id)
        return Keypair(str(cred.id), blob["access"], blob["secret"])

    def delete_keypair(self, user_id: str, project_id: str, credential_id: str) -> None:
        """Delete the credential (gone already, or its user: fine)."""
        if self._check_user(user_id, project_id, "delete_keypair"):
            self._ignore_404(self._client().credentials.delete, credential_id)

    def _ignore_404(self, fn: Any, *args: Any) -> None:
        from keystoneauth1 import exceptions as ksa_exc
        try:
            fn(*args)
        except ksa_exc.NotFound:
            return
        except Exception as exc:
            raise translate(exc) from exc


def for_settings(settings: config.Settings) -> KeystoneStackUsers | LocalStackUsers:
    """Keystone's stack users in keystone mode with a stack domain, else the local ones."""
    if settings.auth_strategy == "keystone" and (settings.stack_user_domain_id
                                                 or settings.stack_user_domain_name):
        return KeystoneStackUsers(settings)
    return LocalStackUsers(settings)


def reset() -> None:
    """Forget the cached domain-admin sessions (tests)."""
    with _lock:
        _sessions.clear()
