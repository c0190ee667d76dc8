"""Shared fixtures: ``settings`` (a private data dir, SQLite, in-process engine), ``db``,
``app`` and ``client`` (the Orchestration API on the Flask test client), ``shared`` (the
ground-truth folder beside the repository)."""
from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import config

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO.parent / "shared").resolve()


@pytest.fixture(autouse=True)
def _process_state_restored() -> Iterator[None]:
    """The process's settings, runtime and engine-lease trust as they were before the test: a
    test that built an app (which makes its settings the process's, keystone mode say) or beat
    a heartbeat late leaves nothing behind for the next test in this process."""
    from app.convergence import runtime
    from app.convergence.store import lease
    settings = config._current
    composed = runtime._current
    trusted_since = lease._ok_since
    yield
    config._current = settings
    runtime.configure(composed)
    lease._ok_since = trusted_since  # a heartbeat late under load must not distrust the next


@pytest.fixture(autouse=True)
def _lease_stopped() -> Iterator[None]:
    """A test that stepped a node in-process started this process's heartbeat and sweep
    (:func:`app.convergence.store.lease.ensure_heartbeat`): stopped when it ends, before the
    next test's database (or none) is in place."""
    yield
    from app.convergence.store import lease
    lease.stop()


@pytest.fixture(scope="session")
def shared() -> Path:
    """``../shared`` (oracle vectors, corpus, Heat reference) — CI lays it beside the clone."""
    assert SHARED.is_dir(), f"ground truth folder missing: {SHARED}"
    return SHARED


@contextlib.contextmanager
def current_settings(**overrides: object) -> Iterator[config.Settings]:
    """Settings with ``overrides`` made this process's own, tasks run in-process (inline
    dispatcher: the process's runtime composed for them), the template cache empty; the previous
    settings and runtime are back afterwards."""
    from app.convergence import runtime
    from app.convergence.store import definitions
    from app.services import wiring
    s = config.load({}, always_eager=True, **overrides)
    previous = config._current
    config.set_current(s)
    previous_runtime = runtime.configure(wiring.compose(s))
    definitions._cache.clear()
    yield s
    runtime.configure(previous_runtime)
    config._current = previous


@pytest.fixture()
def settings(tmp_path: Path) -> Iterator[config.Settings]:
    """Settings for one test: SQLite in a temp dir, tasks run in-process (inline dispatcher)."""
    with current_settings(data_dir=str(tmp_path / "data")) as s:
        yield s


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty SQLite database migrated to the latest revision, made once per process: ``db``
    copies the file (about a millisecond) where migrating took 0.3 s a test."""
    from app.models import migrate
    path = tmp_path_factory.mktemp("migrated") / "stoker.db"
    migrate.upgrade(f"sqlite:///{path}")  # its engine is disposed: the WAL is checkpointed
    return path


@pytest.fixture()
def db(settings: config.Settings, migrated_sqlite: Path) -> Iterator[config.Settings]:
    """A migrated, empty database for ``settings`` (a copy of ``migrated_sqlite`` for a SQLite
    file, else migrated in place)."""
    from app import models
    from app.models import migrate
    target = settings.database_url.removeprefix("sqlite:///")
    if settings.database_url.startswith("sqlite:///") and target and target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(migrated_sqlite, target)
    else:
        migrate.upgrade(settings.database_url)
    models.init(settings.database_url)
    yield settings


@pytest.fixture()
def app(db: config.Settings):  # type: ignore[no-untyped-def]
    from app.api import create_app
    flask_app = create_app(db)
    flask_app.config["TESTING"] = True
    return flask_app


@pytest.fixture()
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


@pytest.fixture()
def frozen_type(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Test::Frozen`` (tests/fixtures/engine.py) registered as a resource type."""
    from types import MappingProxyType

    from app.resource_types import registry
    from tests.fixtures.engine import Frozen
    types = dict(registry._load())
    types[Frozen.type_name] = Frozen
    monkeypatch.setattr(registry, "_types", MappingProxyType(types))
