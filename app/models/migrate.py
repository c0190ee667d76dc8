"""Schema migrations with Alembic (``stoker db upgrade``)."""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import RevisionError

from app import errors
from app.models.base import make_engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def current(url: str) -> str | None:
    """The revision the database at ``url`` is at (None: never migrated)."""
    engine = make_engine(url, immediate=False)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def upgrade(url: str, revision: str = "head") -> tuple[str | None, str]:
    """Bring the database at ``url`` to ``revision`` (idempotent).

    :returns: ``(revision before, revision now)``, equal when it was already there.
    :raises app.errors.Conflict: the database is at a revision newer than ``revision`` (Alembic's
        upgrade would do nothing and say nothing: going back is a downgrade, which this is not).
    :raises alembic.util.CommandError: an unknown revision.
    """
    cfg = alembic_config(url)
    script = ScriptDirectory.from_config(cfg)
    target = script.get_revision(revision)
    wanted = target.revision if target is not None else "base"
    before = current(url)
    if before is not None and before != wanted and wanted in _ancestors(script, before):
        raise errors.Conflict(
            f"the database is at revision {before}, newer than {wanted}; an upgrade never "
            f"goes back to an older revision", current=before, revision=wanted)
    command.upgrade(cfg, revision)
    return before, wanted


def _ancestors(script: ScriptDirectory, revision: str) -> set[str]:
    """The revisions ``revision`` was built on (itself included); empty for one this code does
    not know (a database migrated by a newer Stoker)."""
    try:
        return {rev.revision for rev in script.iterate_revisions(revision, "base")}
    except RevisionError:  # an unknown revision (ResolutionError is one)
        return set()


def revision(url: str, message: str) -> None:
    """Autogenerate a new revision from the models (developers only)."""
    command.revision(alembic_config(url), message=message, autogenerate=True)
