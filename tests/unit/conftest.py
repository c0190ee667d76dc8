"""tests/unit runs without a database (DESIGN.md: unit/ is pure and fast).

Every test here gets engines that cannot connect: ``app.models`` may build one (``create_app``
does, lazily), but the first connection — a session, a query, a migration — raises
:class:`DatabaseInUnitTest`, and the test fails at teardown even if the code under test caught
that error (an API turning it into a 500, a step into a retry). Here ``app`` and ``client``
are the API over such engines (what a request answers before the services reach the store) and
``db`` fails at once. A test about persistence, the API over a real store or the runtime
against it belongs in ``tests/integration/``, whose fixtures (``db``, ``app``, ``client``,
tests/conftest.py) give it one.
"""
from __future__ import annotations

import traceback
from collections.abc import Iterator
from typing import Any

import pytest

MESSAGE = ("tests/unit runs without a database, and this test connected to one ({url}). "
           "Feed the code under test plain data, or move the test to tests/integration/.\n"
           "Connected from:\n{where}")


def _where() -> str:
    """The project's frames of the current stack (where a connection was asked for)."""
    frames = [f for f in traceback.extract_stack()
              if ("/app/" in f.filename or "/tests/" in f.filename)
              and not f.filename.endswith("tests/unit/conftest.py")]
    return "".join(traceback.format_list(frames[-8:]))


class DatabaseInUnitTest(Exception):
    """A test under tests/unit opened a database connection."""


@pytest.fixture(autouse=True)
def _no_database(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Engines made during the test (``app.models.base.make_engine``, which ``init`` and the
    Alembic environment call) refuse to connect; the process-wide engine of an earlier test in
    this process is set aside for the test's duration."""
    from sqlalchemy import event

    from app.models import base

    used: list[tuple[str, str]] = []
    real_make_engine = base.make_engine

    def make_engine(url: str, *, immediate: bool = True) -> Any:
        engine = real_make_engine("sqlite://", immediate=immediate)  # in memory, never opened

        @event.listens_for(engine, "do_connect")
        def _refuse(*_args: Any) -> None:
            used.append((url, _where()))
            raise DatabaseInUnitTest(MESSAGE.format(url=url, where=used[-1][1]))
        return engine

    monkeypatch.setattr(base, "make_engine", make_engine)
    for name in ("_engine", "_read_engine", "_factory", "_read_factory", "_engine_pid"):
        monkeypatch.setattr(base, name, None)
    yield
    if used:
        pytest.fail(MESSAGE.format(url=used[0][0], where=used[0][1]), pytrace=False)


@pytest.fixture()
def db() -> None:
    """No database here: a test that asks for one belongs in tests/integration/."""
    pytest.fail("tests/unit has no database: the `db` fixture (and what builds on it) is for "
                "tests/integration/", pytrace=False)


@pytest.fixture()
def app(settings: Any) -> Any:
    """The Orchestration API for ``settings`` (tasks in-process) whose engines refuse to
    connect: what a request answers before the services reach the store."""
    from app.api import create_app
    flask_app = create_app(settings)
    flask_app.config["TESTING"] = True
    return flask_app


@pytest.fixture()
def client(app: Any) -> Any:
    return app.test_client()
