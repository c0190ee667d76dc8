"""``stoker up`` end to end, as a user (and ``../shared/tools/stoker.py``) runs it: a fresh HOME, the
console script in a new session, the API port, a stack created with ``stoker stack create --wait``,
then SIGTERM to the process group — and no child may survive."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.procs import alive

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _descendants(root: int) -> set[int]:
    """Every live process below ``root`` (from /proc's parent links)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(") ", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _stoker() -> list[str]:
    script = Path(sys.executable).parent / "stoker"
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli"]


@pytest.fixture()
def home() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="stk-up-"))  # short: the Redis socket path is limited
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_up_serves_creates_a_stack_and_stops_cleanly(home: Path) -> None:
    port, sandbox_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
    env.update(HOME=str(home), STOKER_API_PORT=str(port), STOKER_SANDBOX_PORT=str(sandbox_port),
               STOKER_CFN_PORT=str(_free_port()))
    log_path = home / "up.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen([*_stoker(), "up", "--workers", "1"], cwd=home, env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    seen: set[int] = set()
    try:
        t0 = time.time()
        while not _port_open(port):
            assert proc.poll() is None, f"stoker up exited {proc.returncode}: {log_path.read_text()[-2000:]}"
            assert time.time() - t0 < 90, f"no API after 90s: {log_path.read_text()[-2000:]}"
            time.sleep(0.3)
        assert (home / ".stoker" / "redis.sock").exists()
        seen |= _descendants(proc.pid)

        create = subprocess.run(
            [*_stoker(), "stack", "create", "-t", str(REPO / "examples" / "demo.yaml"),
             "--parameter", "length=24", "it", "--wait"],
            env=env, cwd=home, capture_output=True, text=True, timeout=180)
        assert create.returncode == 0, create.stdout + create.stderr + log_path.read_text()[-3000:]
        assert "CREATE_COMPLETE" in create.stdout and "database_url" in create.stdout
        password = subprocess.run([*_stoker(), "stack", "output-show", "it", "database_url",
                                   "-f", "json"], env=env, capture_output=True, text=True, timeout=60)
        assert password.returncode == 0, password.stderr
        assert len(json.loads(password.stdout)["output_value"].split(":")[2].split("@")[0]) == 24

        listed = subprocess.run([*_stoker(), "stack", "list"], env=env, capture_output=True,
                                text=True, timeout=60)
        assert listed.returncode == 0 and "it" in listed.stdout
        seen |= _descendants(proc.pid)

        # a worker killed with SIGKILL is replaced; the system keeps serving
        workers = [pid for pid in _descendants(proc.pid) if _cmdline(pid).count("worker") and
                   "celery" in _cmdline(pid)]
        assert workers, "no celery worker found"
        os.kill(min(workers), signal.SIGKILL)
        t0 = time.time()
        while "starting a new one" not in log_path.read_text():
            assert proc.poll() is None, log_path.read_text()[-2000:]
            assert time.time() - t0 < 30, log_path.read_text()[-2000:]
            time.sleep(0.3)
        again = subprocess.run(
            [*_stoker(), "stack", "create", "-t", str(REPO / "examples" / "demo.yaml"),
             "after-kill", "--wait"], env=env, cwd=home, capture_output=True, text=True,
            timeout=180)
        assert again.returncode == 0, again.stdout + again.stderr + log_path.read_text()[-3000:]
        seen |= _descendants(proc.pid)
        assert len(seen) >= 5  # redis, gunicorn master + workers, a worker, beat
    finally:
        seen |= _descendants(proc.pid)
        running = proc.poll() is None
        if running:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(40)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
            pytest.fail(f"stoker up did not stop after SIGTERM: {log_path.read_text()[-2000:]}")
    assert proc.returncode == 0, log_path.read_text()[-2000:]
    deadline = time.time() + 5
    while time.time() < deadline and any(alive(pid) for pid in seen):
        time.sleep(0.1)
    survivors = [pid for pid in seen if alive(pid)]
    assert not survivors, f"children survived SIGTERM: {survivors}"
    assert not _port_open(port)
    assert "all processes stopped" in log_path.read_text()


def test_demo_on_a_fresh_home(home: Path) -> None:
    """``stoker demo`` (``make demo``): start with the sandbox cloud, create the multi-tier
    corpus example on it, print its outputs, update it (flavor), delete it, show the sandbox's inventory holds
    nothing the stack created, stop; exit 0 (its time is the README's figure, measured by hand,
    not a test's: a loaded host running the suite beside it takes twice as long)."""
    port, sandbox_port = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
    env.update(HOME=str(home), STOKER_API_PORT=str(port), STOKER_SANDBOX_PORT=str(sandbox_port),
               STOKER_CFN_PORT=str(_free_port()), COLUMNS="200")
    demo = subprocess.run([*_stoker(), "demo", "--workers", "1"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=240, start_new_session=True)
    log = home / ".stoker" / "logs" / "demo.log"
    detail = demo.stdout + demo.stderr + (log.read_text()[-3000:] if log.exists() else "")
    assert demo.returncode == 0, detail
    assert "multi_tier.yaml" in demo.stdout and f"127.0.0.1:{sandbox_port}" in demo.stdout, detail
    assert "CREATE_COMPLETE" in demo.stdout and "DELETE_COMPLETE" in demo.stdout, detail
    # the update: previewed, then the servers resized in place
    assert "stack update" in demo.stdout and "preview: updated" in demo.stdout, detail
    assert "UPDATE_COMPLETE" in demo.stdout, detail
    for output in ("server1_public_ip", "server2_networks", "data_volume_status"):
        assert output in demo.stdout, detail  # the outputs table
    assert "172.24.4." in demo.stdout  # a floating IP from the sandbox's public network
    for kind in ("OS::Nova::Server", "OS::Cinder::VolumeAttachment", "OS::Neutron::FloatingIP"):
        assert kind in demo.stdout, detail  # the resources table
    assert "the sandbox holds nothing the stack created" in demo.stdout, detail
    assert not _port_open(port) and not _port_open(sandbox_port)
    assert "all processes stopped" not in demo.stdout  # children's output went to the log


def test_demo_without_the_sandbox_runs_the_cloud_free_example(home: Path) -> None:
    """``stoker demo --no-sandbox`` falls back to examples/demo.yaml (no cloud needed)."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
    env.update(HOME=str(home), STOKER_API_PORT=str(port), STOKER_SANDBOX_PORT=str(_free_port()),
               STOKER_CFN_PORT=str(_free_port()), COLUMNS="200")
    demo = subprocess.run([*_stoker(), "demo", "--workers", "1", "--no-sandbox"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=240,
                          start_new_session=True)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "demo.yaml" in demo.stdout and "database_url" in demo.stdout
    assert "DELETE_COMPLETE" in demo.stdout
