"""Fixtures of the identity suite: two Keystones — the sandbox's and a real one (the ``keystone``
package from PyPI in its own virtualenv, :mod:`tests.identity.keystone_server`) — and, for each,
the same world: projects ``alpha`` and ``beta``; ``alice`` (member, reader of alpha), ``rita``
(reader of alpha only), ``bob`` (member, reader of beta), the bootstrap ``admin`` and Stoker's
service user ``stoker``. ``api`` is Stoker's Orchestration API in keystone mode against that
Keystone (SQLite, in-process engine, tokens never cached so that a revocation shows at once).
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from app import config
from tests.identity import keystone_server

PASSWORD = "sandbox"


@dataclass
class World:
    """One Keystone with its users; ``token(user)`` is a fresh project-scoped token."""
    name: str
    auth_url: str
    projects: dict[str, str] = field(default_factory=dict)   # name -> id
    users: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (id, project name)

    def session(self, user: str, project: str | None = None) -> Any:
        from keystoneauth1 import session
        from keystoneauth1.identity import v3
        project = project or self.users[user][1]
        auth = v3.Password(auth_url=self.auth_url, username=user, password=PASSWORD,
                           user_domain_id="default", project_name=project,
                           project_domain_id="default")
        return session.Session(auth=auth)

    def token(self, user: str) -> str:
        return str(self.session(user).get_token())

    def project_of(self, user: str) -> str:
        return self.projects[self.users[user][1]]

    def admin(self) -> Any:
        from keystoneclient.v3 import client
        return client.Client(session=self.session("admin"))

    def revoke(self, token: str) -> None:
        """Revoke a token with itself (Keystone's ``token_subject`` rule)."""
        import requests
        resp = requests.delete(f"{self.auth_url}/auth/tokens", timeout=30,
                               headers={"X-Auth-Token": token, "X-Subject-Token": token})
        assert resp.status_code == 204, resp.text

    def trust_exists(self, trust_id: str) -> bool:
        from keystoneauth1 import exceptions
        from keystoneclient.v3 import client
        try:
            client.Client(session=self.session("alice")).trusts.get(trust_id)
        except exceptions.NotFound:
            return False
        return True


def build_world(name: str, auth_url: str) -> World:
    """Create alpha/beta and their users (unique names per run would not matter: a Keystone
    serves one session)."""
    world = World(name, auth_url)
    world.users["admin"] = ("", "admin")
    kc = world.admin()
    roles = {r.name: r for r in kc.roles.list()}
    for project in ("alpha", "beta"):
        world.projects[project] = kc.projects.create(project, domain="default").id
    world.projects["admin"] = next(p.id for p in kc.projects.list(name="admin"))
    for user, project, granted in (("alice", "alpha", ("member", "reader")),
                                   ("rita", "alpha", ("reader",)),
                                   ("bob", "beta", ("member", "reader"))):
        u = kc.users.create(user, domain="default", password=PASSWORD,
                            default_project=world.projects[project])
        for role in granted:
            kc.roles.grant(roles[role], user=u, project=world.projects[project])
        world.users[user] = (u.id, project)
    return world


@pytest.fixture(scope="session")
def sandbox_world() -> Iterator[World]:
    from tests.sandbox.conftest import start_sandbox
    handle = start_sandbox()
    yield build_world("sandbox", handle.auth_url)
    handle.server.shutdown()


@pytest.fixture(scope="session")
def keystone_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    workdir = Path(tmp_path_factory.mktemp("keystone"))
    server = keystone_server.start(workdir)
    try:
        keystone_server.populate(server.auth_url)
        yield build_world("keystone", server.auth_url)
    finally:
        server.stop()


@pytest.fixture(scope="session", params=["sandbox", "keystone"])
def world(request: pytest.FixtureRequest) -> World:
    """Each identity test runs against the sandbox's Keystone and against the real one."""
    return request.getfixturevalue(f"{request.param}_world")  # type: ignore[no-any-return]


@pytest.fixture()
def ks_settings(settings: config.Settings, world: World) -> Iterator[config.Settings]:
    from app.auth import policy, trusts
    from app.clients import reset_cache
    policy.reset()
    st = settings.replace(auth_strategy="keystone", keystone_url=world.auth_url,
                          auth_encryption_key=Fernet.generate_key().decode(),
                          token_cache_time=-1)
    config.set_current(st)
    yield st
    trusts.forget()
    reset_cache()


@pytest.fixture()
def api(ks_settings: config.Settings) -> Any:
    """Stoker's API in keystone mode (a migrated SQLite database) on werkzeug's test client."""
    from app import models
    from app.api import create_app
    from app.models import migrate
    migrate.upgrade(ks_settings.database_url)
    models.init(ks_settings.database_url)
    return create_app(ks_settings).test_client()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"
