"""The ``openstack`` CLI against the sandbox, with the clouds.yaml that ``stoker sandbox
clouds-yaml`` prints."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

VENV_BIN = Path(sys.executable).parent


@pytest.fixture()
def clouds_yaml(sandbox, tmp_path):
    port = str(urlsplit(sandbox.url).port)
    out = subprocess.run([sys.executable, "-m", "app.sandbox", "clouds-yaml", "--port", port],
                         capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    assert "auth_url: http://127.0.0.1:" in out.stdout
    path = tmp_path / "clouds.yaml"
    path.write_text(out.stdout)
    return path


def openstack(clouds_yaml, *args):
    exe = VENV_BIN / "openstack"
    if not exe.exists():
        pytest.skip("python-openstackclient is not installed")
    env = dict(os.environ, OS_CLIENT_CONFIG_FILE=str(clouds_yaml))
    env = {k: v for k, v in env.items() if not k.startswith("OS_") or k == "OS_CLIENT_CONFIG_FILE"}
    out = subprocess.run([str(exe), "--os-cloud", "sandbox", *args, "-f", "json"], capture_output=True,
                         text=True, env=env, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_openstack_cli_lists_through_the_sandbox(no_leaks, conn, clouds_yaml):
    server = conn.compute.create_server(name="cli-srv", flavor_id="1", image_id=conn.image.find_image("cirros").id,
                                        networks=[{"uuid": conn.network.find_network("private").id}])
    conn.compute.wait_for_server(server, interval=0.05, wait=5)
    servers = openstack(clouds_yaml, "server", "list")
    assert [s["Name"] for s in servers if s["ID"] == server.id] == ["cli-srv"]
    networks = openstack(clouds_yaml, "network", "list")
    assert {"public", "private"} <= {n["Name"] for n in networks}
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)
