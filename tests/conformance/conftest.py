"""Fixtures of the conformance tests: python-heatclient and the ``openstack`` CLI against a
running API (a real HTTP server on a free port, the in-process engine behind it)."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from heatclient import client as heat_client
from werkzeug.serving import make_server

from tests.fixtures import osc as openstack_cli


@pytest.fixture()
def heat(app):  # type: ignore[no-untyped-def]
    """python-heatclient talking HTTP to the API (a real server on a free port)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield heat_client.Client("1", endpoint=f"http://127.0.0.1:{server.port}/v1/conform",
                             token="any-token")
    server.shutdown()


class Osc:
    """``openstack --os-auth-type none --os-endpoint <api> ...`` (python-openstackclient and
    heatclient's OSC plugin, unmodified, run in this process: :mod:`tests.fixtures.osc`)."""

    def __init__(self, endpoint: str, env: dict[str, str]) -> None:
        self.endpoint, self.env = endpoint, env

    def _run(self, args: tuple[str, ...]) -> openstack_cli.Result:
        return openstack_cli.run(["--os-auth-type", "none", "--os-endpoint", self.endpoint,
                                  *args], self.env)

    def __call__(self, *args: str) -> str:
        """Run a command that must succeed; :returns: its stdout."""
        p = self._run(args)
        assert p.returncode == 0, (args, p.stdout, p.stderr)
        return p.stdout

    def fails(self, *args: str) -> str:
        """Run a command that must fail; :returns: its stderr."""
        p = self._run(args)
        assert p.returncode != 0, (args, p.stdout, p.stderr)
        return p.stderr


@pytest.fixture()
def osc(app, tmp_path: Path):  # type: ignore[no-untyped-def]
    """An :class:`Osc` against the API over HTTP (project ``conform``)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = dict(os.environ, HOME=str(tmp_path))
    for key in [k for k in env if k.startswith("OS_")]:
        env.pop(key)
    yield Osc(f"http://127.0.0.1:{server.port}/v1/conform", env)
    server.shutdown()
