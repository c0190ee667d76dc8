"""Shared fixtures: ``settings`` (a private data dir, SQLite, in-process engine), ``db``,
``app`` and ``client`` (the Orchestration API on the Flask test client), ``shared`` (the
ground-truth folder beside the repository)."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from app import config

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO.parent / "shared").resolve()


@pytest.fixture(scope="session")
def shared() -> Path:
    """``../shared`` (oracle vectors, corpus, Heat reference) — CI lays it beside the clone."""
    assert SHARED.is_dir(), f"ground truth folder missing: {SHARED}"
    return SHARED


@contextlib.contextmanager
def current_settings(**overrides: object) -> Iterator[config.Settings]:
    """Settings with ``overrides`` made this process's own, tasks run in-process (inline
    dispatcher), the template cache empty; the previous settings are back afterwards."""
    from app.convergence import definitions, dispatch
    s = config.load({}, always_eager=True, **overrides)
    previous = config._current
    config.set_current(s)
    dispatch.set_dispatcher(None)
    definitions._cache.clear()
    yield s
    dispatch.set_dispatcher(None)
    config._current = previous


@pytest.fixture()
def settings(tmp_path: Path) -> Iterator[config.Settings]:
    """Settings for one test: SQLite in a temp dir, tasks run in-process (inline dispatcher)."""
    with current_settings(data_dir=str(tmp_path / "data")) as s:
        yield s


@pytest.fixture()
def db(settings: config.Settings) -> Iterator[config.Settings]:
    """A migrated, empty database for ``settings``."""
    from app import models
    from app.models import migrate
    migrate.upgrade(settings.database_url)
    models.init(settings.database_url)
    yield settings


@pytest.fixture()
def app(db: config.Settings):  # type: ignore[no-untyped-def]
    from app.api import build_app
    flask_app = build_app(db)
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
