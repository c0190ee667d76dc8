"""Storm fixtures: a PostgreSQL cluster and a Redis server of the tests' own (so that a fault
test may restart, stop or flush them without touching the machine's shared services), and the
production topology on them: the API under gunicorn, two ``stoker worker`` processes (gevent,
as production runs them on PostgreSQL) and beat, with the engine's production timings
(lock staleness, reconciler, visibility timeout): recovery must come from the engine, not from
short test timers.

``private_pg`` (session): ``initdb`` into a temporary directory, run as the ``postgres`` OS user
when the tests run as root (PostgreSQL refuses root), trust authentication, a free port;
``restart()``, ``stop()``, ``start()`` with ``pg_ctl``. ``private_redis`` (session): ``redis-server
--save ''`` on a free port; ``stop()``, ``start()`` on the same port, ``flushall()``. Both are
stopped and removed at the end of the session, whatever happened.
"""
from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests

from app import config
from tests.fixtures.procs import free_port, stop_groups

REPO = Path(__file__).resolve().parents[2]
#: the server binaries of the machine's PostgreSQL (Debian lays each major version out apart)
PG_BIN = Path(os.environ.get("STOKER_TEST_PG_BIN") or max(
    Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name),
    default=Path("/usr/lib/postgresql/15/bin")))
pytestmark = pytest.mark.integration


def _as_postgres() -> list[str]:
    """The prefix that runs a command as the ``postgres`` OS user when this process is root."""
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class PrivatePostgres:
    """A PostgreSQL cluster of its own in ``root`` on ``port`` (trust auth, no fsync)."""

    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port
        self.data = root / "data"
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{port}"
        self.addresses: list[str] = []   # listened on besides 127.0.0.1

    def _ctl(self, *args: str, timeout: float = 60) -> None:
        subprocess.run([*_as_postgres(), str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args],
                       check=True, timeout=timeout, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def init(self) -> None:
        subprocess.run([*_as_postgres(), str(PG_BIN / "initdb"), "-D", str(self.data), "-A",
                        "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], check=True,
                       timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

    def start(self) -> None:
        listen = ",".join(["127.0.0.1", *self.addresses])
        opts = (f"-p {self.port} -k {self.root} -c listen_addresses={listen} -c fsync=off "
                f"-c synchronous_commit=off -c full_page_writes=off -c max_connections=300")
        self._ctl("-o", opts, "-l", str(self.root / "postgres.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop")

    def restart(self) -> None:
        """``pg_ctl restart -m fast``: every connection is closed by the server."""
        self._ctl("-m", "fast", "-w", "restart")

    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def listen(self, addresses: list[str]) -> None:
        """Listen on ``addresses`` besides 127.0.0.1, trusting ``10.231.0.0/16`` (worker hosts
        in namespaces, tests/storms/hosts.py): a stop and a start."""
        hba = self.data / "pg_hba.conf"
        line = "host all all 10.231.0.0/16 trust\n"
        text = hba.read_text()
        if line not in text:
            hba.write_text(text + line)
        self.addresses = list(addresses)
        self.stop()          # (``pg_ctl restart`` would keep the options it was started with)
        self.start()


@pytest.fixture(scope="session")
def private_pg() -> Iterator[PrivatePostgres]:
    root = Path(tempfile.mkdtemp(prefix="stoker-storm-pg-"))
    if os.geteuid() == 0:
        pg = pwd.getpwnam("postgres")
        os.chown(root, pg.pw_uid, pg.pw_gid)
    server = PrivatePostgres(root, free_port())
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


class PrivateRedis:
    """A ``redis-server`` of its own on ``port``, without persistence."""

    def __init__(self, root: Path, port: int) -> None:
        self.root, self.port = root, port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.proc: subprocess.Popen[bytes] | None = None
        self.addresses: list[str] = []   # listened on besides 127.0.0.1

    def start(self) -> None:
        log = open(self.root / "redis.log", "ab")  # noqa: SIM115 (the child owns it)
        self.proc = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--port", str(self.port),
             "--bind", "127.0.0.1", *self.addresses,
             "--protected-mode", "no" if self.addresses else "yes", "--save", "", "--appendonly", "no", "--dir", str(self.root)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        import redis
        deadline = time.monotonic() + 20
        while True:
            try:
                redis.Redis.from_url(self.url, socket_timeout=1).ping()
                return
            except redis.RedisError:
                assert time.monotonic() < deadline, "private redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            stop_groups([self.proc], grace=10)
            self.proc = None

    def flushall(self) -> None:
        import redis
        redis.Redis.from_url(self.url).flushall()

    def listen(self, addresses: list[str]) -> None:
        """Listen on ``addresses`` besides 127.0.0.1 (at once: ``CONFIG SET bind``)."""
        import redis
        self.addresses = list(addresses)
        client = redis.Redis.from_url(self.url)
        client.config_set("bind", " ".join(["127.0.0.1", *addresses]))
        # (the addresses are the veths' to namespaces of this machine, not a network's)
        client.config_set("protected-mode", "no" if addresses else "yes")


@pytest.fixture(scope="session")
def private_redis() -> Iterator[PrivateRedis]:
    root = Path(tempfile.mkdtemp(prefix="stoker-storm-redis-"))
    server = PrivateRedis(root, free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Probe:
    """Requests made to the API during a storm: ``(monotonic time it was sent, status, body)``
    each (a request sent while the database was down may be answered after it is back)."""
    seen: list[tuple[float, int, Any]] = field(default_factory=list)

    def record(self, resp: requests.Response, sent: float) -> None:
        try:
            body: Any = resp.json()
        except ValueError:
            body = resp.text
        self.seen.append((sent, resp.status_code, body))

    def server_errors(self) -> list[tuple[float, int, Any]]:
        return [s for s in self.seen if s[1] >= 500]


class Storm:
    """The production topology on the private services, for one test: its own database
    (migrated), the Redis flushed, the API (gunicorn, 2 workers x 4 threads), two ``stoker
    worker``s and beat. ``api(path)`` is the API's URL of ``path`` (project ``admin``).
    ``env``: ``STOKER_*`` settings of every process (and of the test's own Settings), e.g.
    shorter engine timings for a test that kills workers; ``kill(name)`` / ``spawn(name)``
    SIGKILL a process (``"worker1"``...) and start it again as it was started. ``hosts``:
    processes run in a network namespace of their own (tests/storms/hosts.py), by name, which
    reach the services through its veth (the sandbox then listens on every address)."""

    def __init__(self, pg: PrivatePostgres, redis: PrivateRedis, home: Path,
                 concurrency: int = 20, sandbox_latency: str = "",
                 env: dict[str, str] | None = None, hosts: dict[str, Any] | None = None) -> None:
        self.pg, self.redis, self.home = pg, redis, home
        self.hosts = dict(hosts or {})
        self.concurrency, self.sandbox_latency = concurrency, sandbox_latency
        self.overrides = dict(env or {})   # STOKER_* of every process
        self.argvs: dict[str, list[str]] = {}
        self.child_env: dict[str, str] = {}   # the processes' whole environment
        self.port, self.sandbox_port = free_port(), free_port()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.named: dict[str, subprocess.Popen[bytes]] = {}
        self.database = f"storm_{uuid.uuid4().hex[:10]}"
        self.probe = Probe()
        self.names: dict[str, str] = {}
        self._probing = threading.Event()

    def settings(self) -> config.Settings:
        return config.load({"STOKER_WORKERS": "2",
                            "STOKER_WORKER_CONCURRENCY": str(self.concurrency),
                            "STOKER_LOG_LEVEL": "WARNING", **self.overrides},
                           data_dir=str(self.home / "data"),
                           database_url=f"{self.pg.url}/{self.database}",
                           broker_url=self.redis.url, api_port=self.port,
                           sandbox_port=self.sandbox_port, sandbox_state_path=":memory:")

    def start(self) -> None:
        import psycopg

        from app.cli.up import child_env
        from app.models import migrate
        with psycopg.connect(self.pg.admin_url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.database}"')
        settings = self.settings()
        migrate.upgrade(settings.database_url)
        from app.models import base
        if base._engine is not None:
            base._engine.dispose()
            base._engine = None
        self.redis.flushall()
        env = {k: v for k, v in os.environ.items() if not k.startswith("STOKER_")}
        env = child_env(settings, env)
        py = sys.executable
        argvs = {"api": [py, "-m", "gunicorn", "-c", "python:app.api.gunicorn_conf",
                         "app.cli.wsgi:create_app()", "--bind", f"127.0.0.1:{self.port}",
                         "--workers", "2", "--threads", "4", "--graceful-timeout", "5",
                         "--log-level", "warning"],
                 "worker1": [py, "-m", "app.cli", "worker", "-n", "storm1@%h",
                             "--loglevel", "WARNING"],
                 "worker2": [py, "-m", "app.cli", "worker", "-n", "storm2@%h",
                             "--loglevel", "WARNING"],
                 "beat": [py, "-m", "celery", "-A", "app.tasks", "beat", "--loglevel",
                          "WARNING", "-s", str(self.home / "celerybeat-schedule")]}
        if self.sandbox_latency:  # the sandbox cloud, each request that much slower
            argvs["sandbox"] = [py, "-m", "app.cli", "sandbox", "--port", str(self.sandbox_port),
                                "--latency", self.sandbox_latency,
                                *(["--host", "0.0.0.0"] if self.hosts else [])]
        (self.home / "data").mkdir(parents=True, exist_ok=True)
        self.argvs, self.child_env = argvs, env
        for name in argvs:
            self.spawn(name)
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(self.api("/stacks"), timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() < deadline, self.logs()
            time.sleep(0.2)
        self._wait_workers()

    def kill(self, name: str) -> None:
        """SIGKILL process ``name`` and its children (its own process group), as a host lost
        at once: nothing it had in flight is finished or acknowledged."""
        import signal
        proc = self.named[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def sandbox(self, method: str, path: str, **kwargs: Any) -> Any:
        """The sandbox cloud's admin API (``/sandbox/<path>``), decoded."""
        resp = requests.request(method, f"http://127.0.0.1:{self.sandbox_port}/sandbox/"
                                f"{path.lstrip('/')}", timeout=30, **kwargs)
        resp.raise_for_status()
        return resp.json()

    def spawn(self, name: str) -> subprocess.Popen[bytes]:
        """Start process ``name`` of the topology (``api``, ``worker1``, ``worker2``, ``beat``)
        in a session of its own, appending to its log; a worker's engine id is
        ``<host>:<its pid>`` (``stoker worker`` execs Celery in place)."""
        log = open(self.home / f"{name}.log", "ab")  # noqa: SIM115 (the child owns it)
        argv, env = self.argvs[name], self.child_env
        host = self.hosts.get(name)
        if host is not None:
            argv, env = host.argv(argv), host.env(env)
        proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(proc)
        self.named[name] = proc
        return proc

    def signal(self, name: str, sig: int) -> None:
        """Send ``sig`` to process ``name``'s session (the process and any child of it)."""
        os.killpg(self.named[name].pid, sig)

    def wait_workers(self) -> None:
        """Wait until two workers answer a ping (at most 60 s)."""
        self._wait_workers()

    def _wait_workers(self) -> None:
        import redis
        from celery import Celery
        deadline = time.monotonic() + 60
        while True:
            app = Celery(broker=self.redis.url)
            try:
                if len(app.control.ping(timeout=0.5) or []) >= 2:
                    return
            except redis.RedisError:  # a connection of the Redis a test restarted
                time.sleep(0.2)
            finally:
                app.close()
            assert time.monotonic() < deadline, "workers did not answer: " + self.logs()

    def api(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/v1/admin{path}"

    def create(self, name: str, template: dict[str, Any]) -> requests.Response:
        resp = requests.post(self.api("/stacks"), json={"stack_name": name, "template": template},
                             headers={"X-Auth-Token": "x"}, timeout=30)
        if resp.status_code == 201:
            self.names[resp.json()["stack"]["id"]] = name
        return resp

    def path(self, stack_id: str) -> str:
        """``/stacks/<name>/<id>`` of a stack this storm created."""
        return f"/stacks/{self.names[stack_id]}/{stack_id}"

    def get(self, path: str) -> requests.Response:
        sent = time.monotonic()
        resp = requests.get(self.api(path), headers={"X-Auth-Token": "x"}, timeout=30)
        self.probe.record(resp, sent)
        return resp

    @contextlib.contextmanager
    def probing(self, path: str, every: float = 0.2) -> Iterator[Probe]:
        """GET ``path`` every ``every`` s in a thread for the duration, recorded in the probe."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.is_set():
                with contextlib.suppress(requests.RequestException):
                    self.get(path)
                stop.wait(every)

        t = threading.Thread(target=loop, daemon=True)
        t.start()
        try:
            yield self.probe
        finally:
            stop.set()
            t.join(35)

    def stack(self, stack_id: str) -> dict[str, Any]:
        """The stack as the API shows it, asked until the API answers 200 (at most 30 s)."""
        deadline = time.monotonic() + 30
        while (resp := self.get(self.path(stack_id))).status_code != 200:
            assert time.monotonic() < deadline, resp.text
            time.sleep(0.2)
        return dict(resp.json()["stack"])

    def settled(self, stack_id: str, timeout: float) -> tuple[dict[str, Any], float]:
        """``(the stack, the monotonic time)`` once it is no longer IN_PROGRESS; fails after
        ``timeout`` s with the workers' logs."""
        deadline = time.monotonic() + timeout
        while (st := self.stack(stack_id))["stack_status"].endswith("IN_PROGRESS"):
            assert time.monotonic() < deadline, \
                f"{st['stack_status']} after {timeout} s\n{self.logs()}"
            time.sleep(0.2)
        return st, time.monotonic()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n" + p.read_text(errors="replace")[-3000:]
                         for p in sorted(self.home.glob("*.log")))

    def stop(self) -> None:
        stop_groups(self.procs, grace=10)
        import psycopg
        with contextlib.suppress(Exception), \
                psycopg.connect(self.pg.admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')


@pytest.fixture()
def storm(private_pg: PrivatePostgres, private_redis: PrivateRedis, tmp_path: Path,
          request: pytest.FixtureRequest) -> Iterator[Storm]:
    """The production topology on the private services (fresh database, Redis flushed); the
    services are brought back up afterwards if a test left them down. ``request.param``
    (``indirect`` parametrization): :class:`Storm`'s keyword arguments (each worker's
    greenlets, the sandbox cloud's latency)."""
    s = Storm(private_pg, private_redis, tmp_path, **getattr(request, "param", {}))
    try:
        s.start()
        yield s
    finally:
        s.stop()
        if private_redis.proc is None:
            private_redis.start()
        with contextlib.suppress(Exception):
            private_pg.start()
