"""Resource types through the public API with real workers: one ``stoker up`` (embedded default:
SQLite, a private Redis, a worker process, the sandbox cloud) for the whole session, driven with
python-heatclient as a user drives Heat.

``api.create`` / ``api.update`` / ``api.delete`` wait for the stack to settle and assert the
status asked for; ``api_no_leaks`` proves a test left nothing in the sandbox's inventory; the
sandbox's transition delays are shortened for the session (``DELAYS``)."""
from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.fixtures.procs import Up, stoker_up

pytestmark = pytest.mark.integration

DELAYS = {"server_build": 0.2, "server_delete": 0.1, "server_action": 0.2, "volume_create": 0.2,
          "volume_delete": 0.1, "snapshot_create": 0.1, "backup_create": 0.1,
          "lb_provision": 0.2, "lb_delete": 0.1, "image_import": 0.05}


class Api:
    """The running system seen from outside: its Orchestration API (heatclient), the sandbox's
    admin API and the sandbox's service endpoints (keystoneauth)."""

    def __init__(self, up: Up) -> None:
        self.up = up
        self.heat = up.heat()
        self.sandbox_url = f"http://127.0.0.1:{up.sandbox_port}"
        self._sessions: dict[str, Any] = {}

    # ---- stacks ------------------------------------------------------------------------------
    def create(self, template: str, parameters: dict[str, Any] | None = None,
               files: dict[str, str] | None = None, environment: dict[str, Any] | None = None,
               expect: str = "CREATE_COMPLETE", name: str | None = None,
               timeout: float = 120) -> dict[str, Any]:
        """Create a stack (a fresh name unless ``name``), wait until it settles, assert its
        status is ``expect``; the stack as ``GET /stacks/{name}/{id}`` answers (outputs too)."""
        name = name or f"t-{uuid.uuid4().hex[:10]}"
        created = self.heat.stacks.create(stack_name=name, template=template,
                                          parameters=parameters or {}, files=files or {},
                                          environment=environment or {})
        return self._settled(created["stack"]["id"], expect, timeout)

    def update(self, stack: dict[str, Any], template: str,
               parameters: dict[str, Any] | None = None, files: dict[str, str] | None = None,
               environment: dict[str, Any] | None = None, expect: str = "UPDATE_COMPLETE",
               timeout: float = 120) -> dict[str, Any]:
        """Update ``stack`` to ``template`` (PUT: the parameters given, others reset), wait,
        assert ``expect``."""
        ended = self._updates_ended(stack)
        self.heat.stacks.update(stack["id"], template=template, parameters=parameters or {},
                                files=files or {}, environment=environment or {})
        return self._settled(stack["id"], expect, timeout, updates=(stack, ended))

    def _updates_ended(self, stack: dict[str, Any]) -> int:
        """How many updates of ``stack`` have ended: its stack-level UPDATE_COMPLETE /
        UPDATE_FAILED events (``updated_time`` has whole seconds: two quick updates share one)."""
        events = self.heat.events.list(stack["id"], filters={"resource_name": stack["stack_name"],
                                                             "resource_action": "UPDATE"})
        return sum(1 for e in events if e.physical_resource_id == stack["id"]
                   and not e.resource_status.endswith("IN_PROGRESS"))

    def delete(self, stack: dict[str, Any], expect: str = "DELETE_COMPLETE",
               timeout: float = 120) -> None:
        """Delete ``stack`` and wait until it is gone (``expect`` DELETE_COMPLETE) or settles
        in ``expect``."""
        from heatclient import exc
        self.heat.stacks.delete(stack["id"])
        deadline = time.monotonic() + timeout
        while True:
            try:
                got = self.heat.stacks.get(stack["id"])
            except exc.HTTPNotFound:
                assert expect == "DELETE_COMPLETE"
                return
            if not got.stack_status.endswith("IN_PROGRESS") and got.action == "DELETE":
                assert got.stack_status == expect, (got.stack_status, got.stack_status_reason)
                return
            assert time.monotonic() < deadline, got.stack_status
            time.sleep(0.25)

    def _settled(self, stack_id: str, expect: str, timeout: float,
                 updates: tuple[dict[str, Any], int] | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        action = expect.split("_")[0]
        while True:
            got = self.heat.stacks.get(stack_id)
            if not got.stack_status.endswith("IN_PROGRESS") and (
                    updates is None or got.action != "UPDATE" or action != "UPDATE"
                    or self._updates_ended(updates[0]) > updates[1]):
                break
            assert time.monotonic() < deadline, got.stack_status
            time.sleep(0.25)
        out = got.to_dict()
        assert got.stack_status == expect, (got.stack_status, got.stack_status_reason,
                                            self.failures(out))
        return out

    def resources(self, stack: dict[str, Any], nested_depth: int = 0) -> dict[str, Any]:
        """``{resource_name: resource dict}`` of ``stack`` as the resource list answers."""
        return {r.resource_name: r.to_dict()
                for r in self.heat.resources.list(stack["id"], nested_depth=nested_depth)}

    def events(self, stack: dict[str, Any]) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.heat.events.list(stack["id"])]

    def output(self, stack: dict[str, Any], key: str) -> Any:
        """The value of output ``key`` (``GET .../outputs/{key}``)."""
        return self.heat.stacks.output_show(stack["id"], key)["output"]["output_value"]

    def failures(self, stack: dict[str, Any]) -> dict[str, str]:
        """Each FAILED resource's reason (an assertion's message when a stack did not settle
        as expected)."""
        try:
            return {name: r["resource_status_reason"] for name, r in self.resources(stack).items()
                    if r["resource_status"].endswith("FAILED")}
        except Exception as err:  # the message of an assertion that already failed
            return {"?": repr(err)}

    # ---- the sandbox -------------------------------------------------------------------------
    def sandbox(self, method: str, path: str, **kwargs: Any) -> Any:
        """The sandbox's admin API (``/sandbox/<path>``), decoded JSON."""
        resp = requests.request(method, f"{self.sandbox_url}/sandbox/{path.lstrip('/')}",
                                timeout=10, **kwargs)
        resp.raise_for_status()
        return resp.json()

    def created(self) -> dict[str, set[str]]:
        """Ids of the objects made since the sandbox's bootstrap, by collection."""
        return {k: {o["id"] for o in v}
                for k, v in self.sandbox("GET", "inventory")["created"].items()}

    def cloud(self, service_type: str, project: str = "admin", user: str = "admin") -> Any:
        """A keystoneauth Adapter on the sandbox's ``service_type`` endpoint, as ``user`` of
        ``project`` (the bootstrap users' password is ``sandbox``)."""
        from keystoneauth1 import adapter, session
        from keystoneauth1.identity import v3
        key = f"{user}@{project}"
        if key not in self._sessions:
            auth = v3.Password(auth_url=f"{self.sandbox_url}/identity/v3", username=user,
                               password="sandbox", project_name=project,
                               user_domain_name="Default", project_domain_name="Default")
            self._sessions[key] = session.Session(auth=auth)
        return adapter.Adapter(self._sessions[key], service_type=service_type,
                               region_name="RegionOne", interface="public")


@pytest.fixture(scope="session")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """One ``stoker up`` for the session (embedded default, one worker process, the sandbox
    with short transition delays)."""
    home: Path = tmp_path_factory.mktemp("types-api")
    with stoker_up(home, workers=1) as up:
        handle = Api(up)
        handle.sandbox("PUT", "behaviour", json={"delays": DELAYS})
        yield handle


@pytest.fixture()
def api_no_leaks(api: Api) -> Iterator[None]:
    """Fail the test when the sandbox's inventory holds objects it did not hold before."""
    before = api.created()
    yield
    deadline = time.monotonic() + 15   # a deadline under load, not a wait
    while True:
        after = api.created()
        leaked = {k: v - before.get(k, set()) for k, v in after.items() if v - before.get(k, set())}
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not leaked, f"objects left behind: {leaked}"
