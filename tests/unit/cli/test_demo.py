"""``stoker demo`` when it fails early: the log lines it prints are this run's, never those an
earlier run left in the (appended) ``<data_dir>/logs/demo.log``."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import exc

from app.cli.commands import cli


def test_an_early_failure_prints_no_line_of_an_earlier_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.models import migrate

    def unreachable(url: str) -> None:
        raise exc.OperationalError("connect", {}, ConnectionRefusedError("connection refused"))
    monkeypatch.setattr(migrate, "upgrade", unreachable)
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True)
    log = data / "logs" / "demo.log"
    log.write_text("stale line from an earlier run\n" * 20)
    res = CliRunner().invoke(cli, ["demo", "--workers", "1", "--no-sandbox"], env={
        "STOKER_DATA_DIR": str(data),
        # the migration fails at once (the server refuses): an early failure, before any stack
        "STOKER_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"})
    assert res.exit_code == 2, res.output
    assert "demo failed:" in res.output and "database upgrade of" in res.output
    assert "stale line from an earlier run" not in res.output
    assert log.read_text().startswith("stale line from an earlier run\n")  # kept, appended to
