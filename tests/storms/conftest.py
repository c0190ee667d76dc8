"""Storm fixtures: a PostgreSQL cluster and a Redis server of the tests' own
(tests/storms/services.py: a fault test may restart, stop or flush them without touching the
machine's shared services; session-scoped, removed at the end whatever happened), and the
production topology on them: the API under gunicorn, two ``stoker worker`` processes (gevent,
as production runs them on PostgreSQL) and beat, with the engine's production timings
(lease, reconciler, visibility timeout): recovery must come from the engine, not from short
test timers.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
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
from tests.storms import services
from tests.storms.services import PrivatePostgres, PrivateRedis

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


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
                 "beat": [py, "-m", "celery", "-A", "app.tasks.beat", "beat", "--loglevel",
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


@pytest.fixture(scope="session")
def private_pg() -> Iterator[PrivatePostgres]:
    with services.private_postgres() as server:
        yield server


@pytest.fixture(scope="session")
def private_redis() -> Iterator[PrivateRedis]:
    with services.private_redis() as server:
        yield server
