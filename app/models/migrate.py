"""Schema migrations with Alembic (``stoker db upgrade``)."""
from __future__ import annotations

import re
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.script.revision import RangeNotAncestorError
from alembic.util import CommandError

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
    """Bring the database at ``url`` to ``revision`` (idempotent): an id, ``head``, or one
    relative to the database's (``+1``) or to another (``0012+1``), as Alembic reads them.

    :returns: ``(revision before, revision now)``, equal when it was already there
        (``"base"`` now: a database no migration has run on).
    :raises app.errors.BadRequest: no revision named (an empty one).
    :raises app.errors.Conflict: ``revision`` is not at or after the database's (``base``,
        an older id, ``-1``, ``head-1`` on a database at head...): Alembic's upgrade would do
        nothing and say nothing, as going back is a downgrade, which this is not.
    :raises alembic.util.CommandError: an unknown revision (also RevisionError, and
        ResolutionError for a relative one that resolves to none).
    """
    if not revision.strip():
        raise errors.BadRequest("no revision named to upgrade to (an id, head, or +N)")
    cfg = alembic_config(url)
    before = current(url)
    _check_forward(ScriptDirectory.from_config(cfg), revision, before)
    command.upgrade(cfg, revision)
    return before, current(url) or "base"


#: a revision relative to the database's that goes back: ``-1``, ``branch@-2``
_BACKWARDS = re.compile(r"(?:^|@)-\d+$")


def _check_forward(script: ScriptDirectory, revision: str, before: str | None) -> None:
    """Raise :class:`app.errors.Conflict` unless ``revision`` is ``before`` or after it."""
    backwards = before is not None and _BACKWARDS.search(revision) is not None
    if not backwards:
        try:
            list(script.iterate_revisions(revision, before or "base"))
        except RangeNotAncestorError:   # the target is not built on the database's revision
            backwards = before is not None
        except AssertionError:  # Alembic's parser asserts on some shapes (``head+1``)
            raise CommandError(f"Can't locate revision identified by {revision!r}") from None
    if backwards:
        raise errors.Conflict(
            f"the database is at revision {before}, newer than {revision}; an upgrade never "
            f"goes back to an older revision", current=before, revision=revision)


def revision(url: str, message: str) -> None:
    """Autogenerate a new revision from the models (developers only)."""
    command.revision(alembic_config(url), message=message, autogenerate=True)
