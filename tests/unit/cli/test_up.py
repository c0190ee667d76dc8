"""``stoker up``'s pieces without the real services: the process list, the children's environment,
the supervisor's start/stop of process groups, the live view on a terminal."""
from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from app import config
from app.cli import render as cli_render
from app.cli import up as cli_up
from app.cli.client import Client, CliError
from tests.fixtures.procs import alive
from tests.unit.cli.conftest import FakeApi


def _settings(tmp_path: Path, **kw: object) -> config.Settings:
    return config.load({}, data_dir=str(tmp_path / "data"), **kw)


def test_procfile_embedded(tmp_path: Path) -> None:
    s = _settings(tmp_path, workers=3, worker_concurrency=6, api_port=18123)
    procs = cli_up.procfile(s, sandbox=True)
    names = [p.name for p in procs]
    assert names == ["api", "cfn", "worker1", "worker2", "worker3", "beat", "sandbox"]
    api = procs[0].argv
    assert "app.cli.wsgi:create_app()" in api and "127.0.0.1:18123" in api
    assert api[api.index("--workers") + 1] == "2" and api[api.index("--threads") + 1] == "4"
    w2 = procs[3].argv
    assert w2[w2.index("--pool") + 1] == "threads" and w2[w2.index("-c") + 1] == "6"
    assert w2[w2.index("-n") + 1] == "worker2@%h"
    beat = procs[5].argv
    assert beat[beat.index("-s") + 1] == str(Path(s.data_dir) / "celerybeat-schedule")
    assert procs[6].argv[-2:] == ["--port", str(s.sandbox_port)]
    assert "sandbox" not in [p.name for p in cli_up.procfile(s, sandbox=False)]
    cfn = procs[1].argv
    assert "app.cli.wsgi:create_cfn_app()" in cfn and f"127.0.0.1:{s.cfn_port}" in cfn


def test_child_env_carries_every_setting(tmp_path: Path) -> None:
    s = _settings(tmp_path, api_port=18124, workers=1)
    env = cli_up.child_env(s, {"PATH": "/bin"})
    assert env["PATH"] == "/bin"
    assert env["STOKER_DATA_DIR"] == s.data_dir and env["STOKER_API_PORT"] == "18124"
    assert env["STOKER_BROKER_URL"] == s.broker_url and "STOKER_EXTRA" not in env
    assert config.load({k: v for k, v in env.items() if k.startswith("STOKER_")}) == s


def test_redis_argv_unix_socket_only(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    argv = cli_up.redis_argv(s)
    assert Path(argv[0]).name == "redis-server" and os.access(argv[0], os.X_OK)
    assert argv[argv.index("--port") + 1] == "0"
    assert argv[argv.index("--unixsocket") + 1] == str(Path(s.data_dir) / "redis.sock")
    assert argv[argv.index("--save") + 1] == "" and argv[argv.index("--appendonly") + 1] == "no"


def test_redis_starts_and_stops(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    Path(s.data_dir).mkdir(parents=True)
    out = io.StringIO()
    sup = cli_up.Supervisor(cli_up.child_env(s), out)
    try:
        cli_up.start_redis(sup, s)
        assert cli_up.ping_redis(Path(s.data_dir) / "redis.sock")
        with pytest.raises(CliError, match="already answers"):
            cli_up.start_redis(cli_up.Supervisor({}, io.StringIO()), s)
    finally:
        sup.stop(grace=5)
    assert not cli_up.ping_redis(Path(s.data_dir) / "redis.sock")


SPAWNER = """
import subprocess, sys, time, signal
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("grandchild", child.pid, flush=True)
time.sleep(600)
"""

STUBBORN = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(600)
"""


def test_supervisor_stops_groups_with_grandchildren(tmp_path: Path) -> None:
    out = io.StringIO()
    sup = cli_up.Supervisor(dict(os.environ), out)
    a = sup.start(cli_up.Proc("spawner", [sys.executable, "-c", SPAWNER]))
    b = sup.start(cli_up.Proc("stubborn", [sys.executable, "-c", STUBBORN]))
    deadline = time.time() + 10
    while ("grandchild" not in out.getvalue() or "ready" not in out.getvalue()) and time.time() < deadline:
        time.sleep(0.05)
    grand = int(out.getvalue().split("grandchild ")[1].split()[0])
    assert a.popen and b.popen and alive(grand) and sup.exited() is None
    t0 = time.time()
    sup.stop(grace=1)
    assert time.time() - t0 < 8
    for pid in (a.popen.pid, b.popen.pid, grand):
        for _ in range(50):
            if not alive(pid):
                break
            time.sleep(0.05)
        assert not alive(pid), f"pid {pid} survived"
    assert "spawner  | grandchild" in out.getvalue()
    assert "stubborn did not stop in 1s; killing it" in out.getvalue()


def test_supervisor_reports_an_exited_child() -> None:
    sup = cli_up.Supervisor(dict(os.environ), io.StringIO())
    proc = sup.start(cli_up.Proc("quick", [sys.executable, "-c", "raise SystemExit(3)"]))
    for _ in range(100):
        if sup.exited():
            break
        time.sleep(0.05)
    assert sup.exited() is proc and proc.popen and proc.popen.returncode == 3
    sup.stop(grace=1)


def test_supervisor_relays_every_line_once_in_order() -> None:
    """Lines written together (a burst, a line split across writes, a last line with no end)
    each come out once, whole, after the child's prefix."""
    out = io.StringIO()
    sup = cli_up.Supervisor(dict(os.environ), out)
    script = ("import sys, time\n"
              "sys.stdout.write(''.join(f'line {i}\\n' for i in range(3000)))\n"
              "sys.stdout.write('split '); sys.stdout.flush(); time.sleep(0.2)\n"
              "sys.stdout.write('line\\nno end'); sys.stdout.flush()\n")
    proc = sup.start(cli_up.Proc("burst", [sys.executable, "-c", script]))
    for _ in range(200):
        if sup.exited():
            break
        time.sleep(0.05)
    assert proc.popen is not None and proc.popen.returncode == 0
    sup.stop(grace=1)
    relayed = [line.split(" | ", 1)[1] for line in out.getvalue().splitlines()
               if " burst" in line.split(" | ", 1)[0]]
    assert relayed == [f"line {i}" for i in range(3000)] + ["split line", "no end"]


def test_start_all_refuses_a_busy_port(tmp_path: Path) -> None:
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        s = _settings(tmp_path, api_port=busy.getsockname()[1])
        with pytest.raises(CliError, match=f"port {s.api_port} is already in use"):
            cli_up.start_all(cli_up.Supervisor({}, io.StringIO()), s, sandbox=False)


@pytest.mark.parametrize(("variable", "hint"), [
    ("STOKER_CFN_PORT", "choose another with STOKER_CFN_PORT"),
    ("STOKER_SANDBOX_PORT", "choose another with STOKER_SANDBOX_PORT, or --no-sandbox"),
])
def test_up_refuses_a_taken_cfn_or_sandbox_port(tmp_path: Path, variable: str,
                                                hint: str) -> None:
    """A taken CFN or sandbox port is another instance's service: ``stoker up`` exits with an
    error before it starts anything, as for a taken API port, instead of advertising it."""
    import socket

    from click.testing import CliRunner

    from app.cli.commands import cli
    with socket.socket() as busy, socket.socket() as free, socket.socket() as other:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        free.bind(("127.0.0.1", 0))
        other.bind(("127.0.0.1", 0))
        port, api_port = busy.getsockname()[1], free.getsockname()[1]
        ports = {"STOKER_CFN_PORT": str(other.getsockname()[1]),
                 "STOKER_SANDBOX_PORT": str(other.getsockname()[1]), variable: str(port)}
        free.close()
        other.close()
        data = tmp_path / "data"
        res = CliRunner().invoke(cli, ["up", "--port", str(api_port), "--workers", "0"], env={
            "STOKER_DATA_DIR": str(data), **ports})
    assert res.exit_code == 2, res.output
    assert f"port {port} is already in use (another `stoker up`?); {hint}" in res.output
    assert "CloudFormation API" not in res.output and "Stoker is up" not in res.output
    assert not (data / "redis.sock").exists() and not list(data.glob("*.db"))


def test_live_view_on_a_terminal(fake_api: FakeApi) -> None:
    fake_api.statuses = ["CREATE_IN_PROGRESS", "CREATE_COMPLETE"]
    fake_api.resources = [
        {"resource_name": "a", "resource_status": "CREATE_COMPLETE"},
        {"resource_name": "b", "resource_status": "CREATE_IN_PROGRESS"},
        {"resource_name": "c", "resource_status": "INIT_COMPLETE"}]
    fake_api.events = [{"id": "e1", "event_time": "t1", "resource_name": "a",
                        "resource_status": "CREATE_COMPLETE", "resource_status_reason": "ok"}]
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=120, color_system=None)
    watch = cli_render.Watch(Client(fake_api.url), {"stack_name": "s1", "id": "x"}, "CREATE",
                             console, poll=0.0)
    final = watch.run()
    assert final["stack_status"] == "CREATE_COMPLETE"
    text = buf.getvalue()
    assert "1/3" in text and "CREATE_IN_PROGRESS (1)" in text and "INIT_COMPLETE (1)" in text
    assert "Recent events" in text


def test_done_counts_deleted_rows() -> None:
    rows = [{"resource_status": "DELETE_COMPLETE"}, {"resource_status": "DELETE_IN_PROGRESS"}]
    assert cli_render._done("DELETE", rows, 5) == 4
    assert cli_render._done("CREATE", rows, 5) == 0


def test_the_worker_pool_follows_the_database_unless_set(tmp_path: Path) -> None:
    # celeryconfig.py: greenlets on PostgreSQL (a cloud call's wait holds no thread), threads on
    # SQLite (its writer's flock would block a whole gevent process)
    pg = _settings(tmp_path, database_url="postgresql+psycopg://u@h/db")
    assert (pg.worker_pool, pg.worker_concurrency) == ("gevent", 200)
    lite = _settings(tmp_path)
    assert lite.database_url.startswith("sqlite") and (lite.worker_pool, lite.worker_concurrency) == ("threads", 16)
    w = cli_up.procfile(pg, sandbox=False)[2].argv
    assert w[w.index("--pool") + 1] == "gevent" and w[w.index("-c") + 1] == "200"
    chosen = config.load({"STOKER_DATABASE_URL": "postgresql+psycopg://u@h/db",
                          "STOKER_WORKER_POOL": "threads", "STOKER_DATA_DIR": str(tmp_path)})
    assert (chosen.worker_pool, chosen.worker_concurrency) == ("threads", 16)
    assert _settings(tmp_path, worker_pool="gevent", worker_concurrency=7).worker_concurrency == 7


def test_stoker_worker_runs_celery_with_the_chosen_pool(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from app.cli.commands import cli
    seen: list[list[str]] = []
    monkeypatch.setattr(os, "execve", lambda path, argv, env: seen.append(list(argv)))
    monkeypatch.setenv("STOKER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("STOKER_DATABASE_URL", "postgresql+psycopg://u@h/db")
    res = CliRunner().invoke(cli, ["worker", "-n", "w1@%h"])
    assert res.exit_code == 0, res.output
    argv = seen[0]
    assert argv[argv.index("worker") - 2:argv.index("worker")] == ["-A", "app.tasks"]
    assert argv[argv.index("--pool") + 1] == "gevent" and argv[argv.index("-c") + 1] == "200"
    res = CliRunner().invoke(cli, ["worker", "-c", "8"])
    assert seen[1][seen[1].index("-c") + 1] == "8"
    monkeypatch.setenv("STOKER_WORKER_CONCURRENCY", "lots")
    res = CliRunner().invoke(cli, ["worker"])
    assert res.exit_code != 0 and "STOKER_" in res.output
