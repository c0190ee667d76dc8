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
    assert exe.exists(), "python-openstackclient (a test extra) is not installed"
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
    assert [(s["Name"], s["Status"], s["Networks"]) for s in servers if s["ID"] == server.id] == [
        ("cli-srv", "ACTIVE", {"private": [conn.compute.get_server(server).addresses["private"][0]["addr"]]})]
    conn.compute.delete_server(server)
    conn.compute.wait_for_delete(server, interval=0.05, wait=5)


def test_stoker_sandbox_command_serves_and_flushes_state_on_sigterm(tmp_path):
    import signal
    import socket
    import time

    import openstack
    import requests

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    state = tmp_path / "sandbox.json"
    proc = subprocess.Popen([sys.executable, "-m", "app.sandbox", "--port", str(port), "--state", str(state),
                             "--delay", "server_build=0.1", "--fault",
                             '{"match": "image.DELETE.images", "status": 409, "times": 1}'],
                            cwd=Path(__file__).parents[2],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if requests.get(f"http://127.0.0.1:{port}/sandbox/health", timeout=1).ok:
                    break
            except requests.RequestException:   # not listening yet, or still seeding
                pass
            assert time.monotonic() < deadline, "stoker sandbox did not start"
            time.sleep(0.1)
        behaviour = requests.get(f"http://127.0.0.1:{port}/sandbox/behaviour").json()
        assert behaviour["delays"]["server_build"] == 0.1
        assert behaviour["faults"] == [{"match": "image.DELETE.images", "status": 409, "times": 1}]
        conn = openstack.connect(auth_url=f"http://127.0.0.1:{port}/identity/v3", username="admin",
                                 password="sandbox", project_name="admin", user_domain_name="Default",
                                 project_domain_name="Default")
        net = conn.network.create_network(name="kept")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    assert net.id in state.read_text()


def test_openstack_role_assignment_list_with_names(clouds_yaml):
    rows = openstack(clouds_yaml, "role", "assignment", "list", "--names", "--project", "demo")
    assert {(r["Role"], r["User"], r["Project"]) for r in rows} >= {
        ("member", "demo@Default", "demo@Default"), ("reader", "demo@Default", "demo@Default")}
