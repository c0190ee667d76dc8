"""Fixtures of the sandbox suite: one sandbox cloud for the session on a free loopback port (a
werkzeug threaded server in a background thread, short transition delays), openstacksdk
connections as the bootstrap admin and as the ``demo`` user, and ``no_leaks``, which proves a test
left nothing behind using the sandbox's inventory endpoint."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests
from werkzeug.serving import WSGIRequestHandler, make_server

# Short enough for a fast suite, long enough that a test can observe each transitional state.
DELAYS = {"server_build": 0.3, "server_delete": 0.1, "server_action": 0.3, "volume_create": 0.3,
          "volume_delete": 0.1, "snapshot_create": 0.1, "backup_create": 0.1, "lb_provision": 0.3,
          "lb_delete": 0.2, "image_import": 0.05}


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args: Any, **kwargs: Any) -> None:
        pass


@dataclass
class SandboxHandle:
    """A running sandbox: ``url`` (``http://127.0.0.1:<port>``), ``auth_url`` and the Flask app."""
    url: str
    app: Any
    server: Any

    @property
    def auth_url(self) -> str:
        return f"{self.url}/identity/v3"

    def admin(self, method: str, path: str, **kwargs: Any) -> Any:
        """Call the sandbox admin API (``/sandbox/...``) and return the decoded JSON."""
        resp = requests.request(method, f"{self.url}/sandbox/{path.lstrip('/')}", timeout=10, **kwargs)
        resp.raise_for_status()
        return resp.json()

    def stop(self) -> None:
        """Stop serving and flush the state file, as ``stoker sandbox`` does on SIGTERM."""
        self.server.shutdown()
        self.server.server_close()
        self.app.extensions["sandbox"].store.close()

    def created(self) -> dict[str, set[str]]:
        return {k: {o["id"] for o in v} for k, v in self.admin("GET", "inventory")["created"].items()}


def start_sandbox(**kwargs: Any) -> SandboxHandle:
    """Start a sandbox app (``create_app(**kwargs)``) on a free loopback port in a thread."""
    from app.sandbox import create_app
    kwargs.setdefault("delays", DELAYS)
    app = create_app(**kwargs)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return SandboxHandle(url=f"http://127.0.0.1:{server.server_port}", app=app, server=server)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    handle = start_sandbox()
    yield handle
    handle.server.shutdown()


def connect(sandbox: SandboxHandle, user: str = "admin", project: str = "admin") -> Any:
    import openstack
    return openstack.connect(auth_url=sandbox.auth_url, username=user, password="sandbox",
                             project_name=project, user_domain_name="Default",
                             project_domain_name="Default", region_name="RegionOne")


@pytest.fixture(scope="session")
def conn(sandbox: SandboxHandle) -> Any:
    """openstacksdk as the bootstrap admin (project admin)."""
    return connect(sandbox)


@pytest.fixture(scope="session")
def demo_conn(sandbox: SandboxHandle) -> Any:
    """openstacksdk as ``demo`` (member of project demo, not an admin)."""
    return connect(sandbox, "demo", "demo")


@pytest.fixture()
def faults(sandbox: SandboxHandle) -> Iterator[Callable[..., Any]]:
    """Add fault rules for one test: ``faults({"match": ..., "kind": ...})``; cleared afterwards."""
    def add(*rules: dict[str, Any]) -> None:
        for rule in rules:
            sandbox.admin("POST", "faults", json=rule)
    yield add
    sandbox.admin("DELETE", "faults")
    sandbox.admin("PUT", "behaviour", json={"latency": []})


@pytest.fixture()
def no_leaks(sandbox: SandboxHandle) -> Iterator[None]:
    """Fail the test if, once pending deletes have settled, objects exist that did not before."""
    before = sandbox.created()
    yield
    deadline = time.monotonic() + 15   # a deadline under load, not a wait
    while True:
        after = sandbox.created()
        leaked = {k: ids - before.get(k, set()) for k, ids in after.items() if ids - before.get(k, set())}
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not leaked, f"objects left behind: {leaked}"


def wait_for(predicate: Callable[[], Any], timeout: float = 5.0, interval: float = 0.05) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)


def pytest_configure(config: Any) -> None:
    # openstacksdk's own deprecation notices about its proxies are not the sandbox's concern
    config.addinivalue_line("filterwarnings", "ignore::openstack.warnings._RemovedInSDKWarning")
    config.addinivalue_line("filterwarnings", "ignore::openstack.warnings.RemovedFieldWarning")
