"""Fixtures of the cloud resource type suite: one sandbox cloud for the session (the sandbox
suite's ``start_sandbox``: a werkzeug server on a free loopback port, short delays), settings
that point ``app.clients`` at it, and ``make`` / ``create`` / ``delete``, which drive a plugin's
life cycle as the engine does (properties validated with defaults, ``check_*_complete`` called
until done, with the plugin's own ``poll_delay`` between calls, each call on a fresh instance as
a redelivered task would be)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from app import clients, config
from app.resource_types import registry
from app.resource_types.base import Resource
from app.templates import properties as tproperties
from tests.sandbox.conftest import SandboxHandle, start_sandbox

DELAYS = {"server_build": 0.2, "server_delete": 0.1, "volume_create": 0.2, "volume_delete": 0.1,
          "lb_provision": 0.2, "lb_delete": 0.1, "image_import": 0.05, "snapshot_create": 0.1,
          "backup_create": 0.1, "server_action": 0.2}


@dataclass(frozen=True)
class Identity:
    stack_name: str = "cloudstack"
    stack_id: str = "6a3c3f5e-3c1e-4d8a-9a55-1f2e3d4c5b6a"
    project_id: str = "admin"


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    handle = start_sandbox(delays=DELAYS)
    yield handle
    handle.server.shutdown()


@pytest.fixture()
def cloud_settings(sandbox: SandboxHandle, settings: config.Settings) -> Iterator[config.Settings]:
    """``settings`` (SQLite, inline engine) pointed at the sandbox; fast retries."""
    s = settings.replace(cloud_auth_url=sandbox.auth_url, client_retry_backoff=0.01)
    config.set_current(s)
    clients.reset_cache()
    sandbox.admin("DELETE", "faults")
    yield s
    sandbox.admin("DELETE", "faults")
    clients.reset_cache()


@pytest.fixture()
def no_leaks(sandbox: SandboxHandle) -> Iterator[None]:
    """Fail when the test left cloud objects behind (the sandbox's inventory)."""
    before = sandbox.created()
    yield
    leaked: dict[str, set[str]] = {}
    deadline = time.monotonic() + 15   # a deadline under load, not a wait
    while True:
        after = sandbox.created()
        leaked = {k: v - before.get(k, set()) for k, v in after.items() if v - before.get(k, set())}
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not leaked, f"objects left behind: {leaked}"


class Driver:
    """Drives plugins as the engine does; every step on a fresh instance (state via
    ``resource_id`` / ``data`` / handle only, as a redelivered task would see it)."""

    def __init__(self) -> None:
        self.identity = Identity()

    def make(self, type_name: str, name: str, props: dict[str, Any], *,
             resource_id: str | None = None, data: dict[str, Any] | None = None,
             uuid: str | None = None) -> Resource:
        cls = registry.get(type_name)
        assert cls is not None, type_name
        schema = cls.validation_schema(props)
        values = tproperties.validate(schema, props, ("resources", name, "properties")) \
            if schema is not None else dict(props)
        return cls(name, values, resource_id=resource_id, data=data, stack=self.identity,
                   clients=clients.for_stack(self.identity), uuid=uuid)

    def again(self, res: Resource) -> Resource:
        return type(res)(res.name, res.properties, resource_id=res.resource_id,
                         data=res.data, stack=self.identity,
                         clients=clients.for_stack(self.identity), uuid=res.uuid)

    def create(self, type_name: str, name: str, props: dict[str, Any], timeout: float = 15,
               uuid: str | None = None) -> Resource:
        res = self.make(type_name, name, props, uuid=uuid)
        res.validate()
        handle = res.handle_create()
        self._poll(res, handle, "check_create_complete", timeout)
        return self.again(res)

    def delete(self, res: Resource, timeout: float = 15) -> Resource:
        res = self.again(res)
        handle = res.handle_delete()
        self._poll(res, handle, "check_delete_complete", timeout)
        return res

    def update(self, res: Resource, props: dict[str, Any], timeout: float = 15) -> Resource:
        """Heat's update of ``res`` to ``props``: ``update_diff`` (may raise UpdateReplace /
        NotSupported), ``handle_update``, then ``check_update_complete`` until done."""
        new = self.make(res.type_name, res.name, props).properties
        res = self.again(res)
        changed = res.update_diff(new)
        handle = res.handle_update(new, changed)
        self._poll(res, handle, "check_update_complete", timeout)
        return self.again(res)

    def _poll(self, res: Resource, handle: Any, check: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        attempt = 0
        while True:
            fresh = self.again(res)
            done = getattr(fresh, check)(handle)
            res.resource_id, res.data = fresh.resource_id, fresh.data
            if done:
                return
            assert time.monotonic() < deadline, f"{res.name}: {check} never finished"
            time.sleep(min(0.2, fresh.poll_delay(handle, attempt)))
            attempt += 1


@pytest.fixture()
def driver(cloud_settings: config.Settings) -> Driver:
    return Driver()


@pytest.fixture()
def faults(sandbox: SandboxHandle) -> Callable[..., None]:
    def add(*rules: dict[str, Any]) -> None:
        for rule in rules:
            sandbox.admin("POST", "faults", json=rule)
    return add


@pytest.fixture()
def ids(sandbox: SandboxHandle) -> dict[str, str]:
    """The sandbox's bootstrap ids (``network:public``, ``image:cirros``...)."""
    return dict(sandbox.admin("GET", "ids")["ids"])


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("filterwarnings", "ignore::openstack.warnings._RemovedInSDKWarning")
    config.addinivalue_line("filterwarnings", "ignore::openstack.warnings.RemovedFieldWarning")
