"""``stoker up`` (noauth, the embedded default) as a fresh user drives it with the openstack CLI:
the README's URL (``--os-endpoint .../v1/admin``, any token) and the sandbox Keystone's catalog
(``--os-cloud sandbox``: ``/v1/<admin project id>``) show one view of the project,
hidden parameters read ``******`` in stack show and environment show, ``stack list --long``
(heatclient's ``global_tenant``) and ``--tags`` / ``--tag-mode`` work. ``stoker up --auth
keystone`` starts without keystonemiddleware's "not known" warnings."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import osc as openstack_cli
from tests.identity.keystone_server import free_port

pytestmark = pytest.mark.integration

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  pw: {type: string, hidden: true, default: top-secret}
resources:
  v: {type: OS::Heat::Value, properties: {value: {get_param: pw}}}
"""
BIN = Path(sys.executable).parent


@pytest.fixture()
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="stk-1v-"))  # short: the Redis socket path is limited
    yield path
    shutil.rmtree(path, ignore_errors=True)


class Up:
    """One ``stoker up`` in its own session, stopped with SIGTERM to its group."""

    def __init__(self, home: Path, *args: str) -> None:
        self.port, self.sandbox_port = free_port(), free_port()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("STOKER_", "OS_"))}
        self.env.update(HOME=str(home), STOKER_API_PORT=str(self.port),
                        STOKER_SANDBOX_PORT=str(self.sandbox_port),
                        STOKER_CFN_PORT=str(free_port()))
        self.home = home
        self.log = home / "up.log"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen([str(BIN / "stoker"), "up", "--workers", "1", *args],
                                         cwd=home, env=self.env, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_for(f"http://127.0.0.1:{self.port}/")

    def wait_for(self, url: str) -> None:
        import requests
        t0 = time.time()
        while True:
            assert self.proc.poll() is None, self.log.read_text()[-2000:]
            assert time.time() - t0 < 120, self.log.read_text()[-2000:]
            try:
                requests.get(url, timeout=1)
                return
            except requests.RequestException:
                time.sleep(0.3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(40)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def _osc(up: Up, *args: str, cloud: bool) -> Any:
    auth = ["--os-cloud", "sandbox"] if cloud else [
        "--os-auth-type", "admin_token", "--os-endpoint",
        f"http://127.0.0.1:{up.port}/v1/admin", "--os-token", "any"]
    env = dict(up.env)
    if cloud:
        env["OS_CLIENT_CONFIG_FILE"] = str(up.home / "clouds.yaml")
    cwd = up.home / ("cloud" if cloud else "readme")  # no clouds.yaml in the README's cwd
    cwd.mkdir(exist_ok=True)
    out = openstack_cli.run([*auth, *args], env, cwd)  # in this process: tests.fixtures.osc
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout) if "-f" in args and "json" in args else out.stdout


def _wait_complete(up: Up, name: str) -> None:
    t0 = time.time()
    while True:
        shown = _osc(up, "stack", "show", name, "-f", "json", cloud=True)
        if shown["stack_status"] == "CREATE_COMPLETE":
            return
        assert "FAILED" not in shown["stack_status"], shown
        assert time.time() - t0 < 120, shown
        time.sleep(0.5)


def test_the_readme_url_and_the_sandbox_catalog_show_the_same_stacks(home: Path) -> None:
    up = Up(home)
    try:
        clouds = subprocess.run([str(BIN / "stoker"), "sandbox", "clouds-yaml"], env=up.env,
                                capture_output=True, text=True, timeout=60)
        assert clouds.returncode == 0, clouds.stderr
        (home / "clouds.yaml").write_text(clouds.stdout)
        (home / "t.yaml").write_text(TEMPLATE)
        _osc(up, "stack", "create", "-t", str(home / "t.yaml"), "--tags", "a,b",
             "--parameter", "pw=given", "from-readme", cloud=False)
        _osc(up, "stack", "create", "-t", str(home / "t.yaml"), "from-catalog", cloud=True)
        _wait_complete(up, "from-readme")
        _wait_complete(up, "from-catalog")
        names = {}
        for cloud in (False, True):
            listed = _osc(up, "stack", "list", "-f", "json", cloud=cloud)
            names[cloud] = sorted(s["Stack Name"] for s in listed)
        assert names[False] == names[True] == ["from-catalog", "from-readme"]
        catalog = _osc(up, "catalog", "list", "-f", "json", cloud=True)
        heat = next(c for c in catalog if c["Type"] == "orchestration")
        assert "/v1/admin" not in json.dumps(heat)  # the catalog names the project by id

        env = _osc(up, "stack", "environment", "show", "from-readme", "-f", "json", cloud=True)
        assert env["parameters"] == {"pw": "******"}
        shown = _osc(up, "stack", "show", "from-readme", "-f", "json", cloud=True)
        assert shown["parameters"]["pw"] == "******"

        long = _osc(up, "stack", "list", "--long", "-f", "json", cloud=True)
        assert {s["Stack Name"]: s["Stack Owner"] for s in long}["from-readme"] == "admin"
        tagged = _osc(up, "stack", "list", "--tags", "a", "-f", "json", cloud=True)
        assert [s["Stack Name"] for s in tagged] == ["from-readme"]
        untagged = _osc(up, "stack", "list", "--tags", "a", "--tag-mode", "not-any",
                        "-f", "json", cloud=False)
        assert [s["Stack Name"] for s in untagged] == ["from-catalog"]
    finally:
        up.stop()


def test_keystone_mode_starts_without_keystonemiddleware_warnings(home: Path) -> None:
    up = Up(home, "--auth", "keystone")
    try:
        import requests
        resp = requests.get(f"http://127.0.0.1:{up.port}/v1/any/stacks", timeout=10)
        assert resp.status_code == 401  # the middleware is in front and working
    finally:
        up.stop()
    text = up.log.read_text()
    assert "is not known to keystonemiddleware" not in text, text[-3000:]
