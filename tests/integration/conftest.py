"""Integration fixtures: a private PostgreSQL database per test, a private Redis database, and real
``celery worker`` processes (``--pool threads``) running the engine against them.

Services: PostgreSQL at 127.0.0.1:5432 and Redis at 127.0.0.1:6379 (``make test`` starts them);
override with STOKER_TEST_PG (a server URL without database) and STOKER_TEST_REDIS.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import config
from tests.fixtures.procs import alive, stop_groups

REPO = Path(__file__).resolve().parents[2]
PG = os.environ.get("STOKER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432")
REDIS = os.environ.get("STOKER_TEST_REDIS", "redis://127.0.0.1:6379")

pytestmark = pytest.mark.integration


def _pg_admin() -> str:
    return PG.replace("postgresql+psycopg://", "postgresql://") + "/postgres"


def _release(url: str) -> None:
    """Close this process's pooled connections to ``url`` (a database is dropped or copied only
    without connections)."""
    from app.models import base
    if base._engine is not None and str(base._engine.url) == str(base.make_url(url)):
        base._engine.dispose()
        base._engine = None


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """A migrated PostgreSQL database for the session, the template each test's copy is made
    from (``CREATE DATABASE ... TEMPLATE``: a file copy, far cheaper than migrating), dropped
    afterwards."""
    import psycopg
    name = f"stoker_tmpl_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_pg_admin(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    from app.models import migrate
    migrate.upgrade(f"{PG}/{name}")
    _release(f"{PG}/{name}")
    yield name
    with psycopg.connect(_pg_admin(), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextlib.contextmanager
def fresh_database(pg_template: str) -> Iterator[str]:
    """The URL of a new PostgreSQL database copied from ``pg_template``, dropped afterwards."""
    import psycopg
    name = f"stoker_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(_pg_admin(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{pg_template}"')
    url = f"{PG}/{name}"
    try:
        yield url
    finally:
        _release(url)
        with psycopg.connect(_pg_admin(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture()
def pg_url(pg_template: str) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database of this test's own, dropped afterwards: no stack,
    lock or sync point another test left (in progress, or timed out) is seen by this test's
    workers, beat or reconciler."""
    with fresh_database(pg_template) as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A Redis database number of its own (claimed in db 0, so that concurrent test runs on
    the same server never share or flush each other's queues), flushed, for the session."""
    import redis
    admin = redis.Redis.from_url(f"{REDIS}/0")
    for db in range(1, 16):
        key = f"stoker-test:db{db}"
        if admin.set(key, os.getpid(), nx=True, ex=3 * 3600):
            break
        holder = admin.get(key)
        if holder is not None and not alive(int(holder)) and admin.getset(key, os.getpid()) == holder:
            # the run that claimed it was killed before its teardown (same host: its pid is gone)
            admin.expire(key, 3 * 3600)
            break
    else:
        raise RuntimeError("no free Redis database for the integration tests")
    url = f"{REDIS}/{db}"
    redis.Redis.from_url(url).flushdb()
    yield url
    redis.Redis.from_url(url).flushdb()
    admin.delete(f"stoker-test:db{db}")


ENGINE_ENV = {"STOKER_VISIBILITY_TIMEOUT": "5", "STOKER_RESTORE_INTERVAL": "1",
              "STOKER_RECONCILE_INTERVAL": "3",
              "STOKER_HEARTBEAT_SECONDS": "1", "STOKER_RECONCILE_AFTER_SECONDS": "10",
              # the fleet as Workers starts it (2 x 4 threads): a fan-out wider than 16 nodes
              # goes out in batches of steps (app.convergence.dispatch.batches)
              "STOKER_WORKERS": "2", "STOKER_WORKER_CONCURRENCY": "4"}


class Workers:
    """Real ``celery worker`` processes; ``kill(i)`` SIGKILLs one (and its process group)."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        self.procs: list[subprocess.Popen[bytes]] = []

    def spawn(self, concurrency: int = 4, argv: list[str] | None = None) -> subprocess.Popen[bytes]:
        """Start one worker without waiting for it to answer; ``argv`` replaces the celery
        command line (before its ``-n`` name)."""
        i = len(self.procs)
        log = open(self.log_dir / f"worker{i}.log", "wb")  # noqa: SIM115 (the child owns it)
        argv = argv or [sys.executable, "-m", "celery", "-A", "app.tasks", "worker",
                        "--pool", "threads", "-c", str(concurrency), "-l", "WARNING",
                        "--without-gossip", "--without-mingle"]
        self.procs.append(subprocess.Popen(
            [*argv, "-n", f"w{i}-{uuid.uuid4().hex[:6]}@%h"],
            cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True))
        return self.procs[-1]

    def start(self, n: int, concurrency: int = 4, argv: list[str] | None = None) -> None:
        """Start ``n`` workers (``argv``: as :meth:`spawn`) and wait until they answer a ping;
        if they do not (or the wait is interrupted), every process started is stopped first."""
        try:
            self._start(n, concurrency, argv)
        except BaseException:
            self.stop()
            raise

    def _start(self, n: int, concurrency: int, argv: list[str] | None) -> None:
        for _ in range(n):
            self.spawn(concurrency, argv)
        from celery import Celery
        deadline = time.time() + 60
        while time.time() < deadline:
            probe = Celery(broker=self.env["STOKER_BROKER_URL"])  # a plain connection each try
            try:
                replies = probe.control.ping(timeout=0.5) or []
            except Exception:  # a broker that a loaded machine answers late: ask again
                replies = []
            finally:
                probe.close()
            if len(replies) >= len([p for p in self.procs[-n:] if p.poll() is None]):
                return
        raise RuntimeError("workers did not answer ping: " + self.logs())

    def start_beat(self) -> None:
        """Celery beat, as `stoker up` and production run it (timeouts, the reconciler)."""
        log = open(self.log_dir / "beat.log", "wb")  # noqa: SIM115 (the child owns it)
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "app.tasks.beat", "beat", "-l", "WARNING",
             "-s", str(self.log_dir / "celerybeat-schedule")],
            cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))

    def kill(self, i: int) -> None:
        os.killpg(self.procs[i].pid, signal.SIGKILL)
        self.procs[i].wait(10)

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-2000:]
                         for p in sorted(self.log_dir.glob("worker*.log")))

    def stop(self) -> None:
        stop_groups(self.procs)


@pytest.fixture()
def engine_settings(pg_url: str, redis_url: str, tmp_path: Path) -> Iterator[config.Settings]:
    """This process's settings: PostgreSQL + Redis, its runtime composed with Celery's
    dispatcher (no inline work)."""
    with engine_composed(pg_url, redis_url, tmp_path / "data") as s:
        yield s


@contextlib.contextmanager
def engine_composed(pg_url: str, redis_url: str, data_dir: Path) -> Iterator[config.Settings]:
    """As :func:`engine_settings` for any scope: Redis flushed, settings on ``pg_url`` made this
    process's, the runtime composed with Celery's dispatcher; the previous ones back after."""
    import redis

    from app import models
    from app.convergence import runtime
    from app.convergence.store import definitions
    from app.services import wiring
    from app.tasks import celery_app, configure
    from app.tasks.dispatcher import CeleryDispatcher
    redis.Redis.from_url(redis_url).flushdb()
    s = config.load({k: v for k, v in ENGINE_ENV.items()}, data_dir=str(data_dir),
                    database_url=pg_url, broker_url=redis_url, always_eager=False)
    previous = config._current
    config.set_current(s)
    models.init(pg_url)
    configure(s)
    previous_runtime = runtime.configure(wiring.compose(s, CeleryDispatcher(celery_app)))
    definitions._cache.clear()
    try:
        yield s
    finally:
        runtime.configure(previous_runtime)
        config._current = previous


def worker_env(engine_settings: config.Settings) -> dict[str, str]:
    """The environment of worker processes on this test's PostgreSQL and Redis."""
    return dict(os.environ, STOKER_DATABASE_URL=engine_settings.database_url,
                STOKER_BROKER_URL=engine_settings.broker_url,
                STOKER_DATA_DIR=engine_settings.data_dir, **ENGINE_ENV)


@pytest.fixture()
def workers(engine_settings: config.Settings, tmp_path: Path) -> Iterator[Workers]:
    """Two real worker processes on the session's PostgreSQL and Redis."""
    with fleet(engine_settings, tmp_path) as w:
        yield w


@contextlib.contextmanager
def fleet(engine_settings: config.Settings, log_dir: Path) -> Iterator[Workers]:
    """Two real workers and beat on ``engine_settings``' database and Redis, for any scope."""
    w = Workers(worker_env(engine_settings), log_dir)
    w.start(2)  # (a start that fails stops what it started)
    try:  # a worker left on the broker would take the next tests' tasks
        w.start_beat()
        yield w
    finally:
        w.stop()


@contextlib.contextmanager
def module_engine(pg_template: str, redis_url: str, log_dir: Path) -> Iterator[config.Settings]:
    """:func:`engine_composed` on a fresh database of its own: the ``engine_settings`` of a
    module whose tests share one fleet (each on stacks of its own; none kills a worker or
    counts rows across stacks)."""
    with fresh_database(pg_template) as url, \
            engine_composed(url, redis_url, log_dir / "data") as s:
        yield s


def module_fleet(tag: str) -> tuple[Any, Any]:
    """The ``engine_settings`` and ``workers`` fixtures of a module whose tests share one
    database (:func:`module_engine`) and one fleet (:func:`fleet`: 2 workers + beat); a module
    assigns both: ``engine_settings, workers = module_fleet("tag")``."""
    @pytest.fixture(scope="module", name="engine_settings")
    def settings(pg_template: str, redis_url: str,
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[config.Settings]:
        with module_engine(pg_template, redis_url, tmp_path_factory.mktemp(tag)) as s:
            yield s

    @pytest.fixture(scope="module", name="workers")
    def shared(engine_settings: config.Settings,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
        with fleet(engine_settings, tmp_path_factory.mktemp(f"{tag}-workers")) as w:
            yield w
    return settings, shared


@pytest.fixture()
def pg_db(pg_url: str, tmp_path: Path) -> Iterator[config.Settings]:
    """This process on the test's own PostgreSQL database, steps run in-process."""
    from app import models
    from tests.conftest import current_settings
    with current_settings(data_dir=str(tmp_path / "data"), database_url=pg_url) as s:
        models.init(pg_url)
        yield s


@pytest.fixture()
def pg_client(pg_db: config.Settings) -> Any:
    """A test client of the Orchestration API on :func:`pg_db`'s database."""
    from app.api import create_app
    return create_app(pg_db).test_client()


@pytest.fixture()
def pg_cfn(pg_db: config.Settings) -> Any:
    """A test client of the CFN API on :func:`pg_db`'s database."""
    from app.cfn import create_app
    return create_app(pg_db).test_client()


@pytest.fixture()
def row_count() -> Any:
    """``row_count(model)``: how many rows the model's table holds now."""
    from sqlalchemy import func, select

    from app.models import read_session

    def count(model: Any) -> int:
        with read_session() as s:
            return int(s.execute(select(func.count()).select_from(model)).scalar() or 0)
    return count


@pytest.fixture()
def sandbox() -> Iterator[Any]:
    """The sandbox cloud for one test (a thread of this process, short delays)."""
    from tests.sandbox.conftest import start_sandbox
    handle = start_sandbox(delays={"server_build": 0.3, "server_action": 0.5,
                                   "server_delete": 0.1})
    yield handle
    handle.server.shutdown()


@pytest.fixture()
def cloud_workers(engine_settings: config.Settings, sandbox: Any,
                  tmp_path: Path) -> Iterator[Workers]:
    """Two real workers whose cloud is the sandbox."""
    from app import clients
    config.set_current(engine_settings.replace(cloud_auth_url=sandbox.auth_url))
    clients.reset_cache()
    w = Workers(dict(worker_env(engine_settings), STOKER_CLOUD_AUTH_URL=sandbox.auth_url),
                tmp_path)
    w.start(2)
    yield w
    w.stop()
    clients.reset_cache()

