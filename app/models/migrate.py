"""Schema migrations with Alembic (``stoker db upgrade``)."""
from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` (idempotent)."""
    command.upgrade(alembic_config(url), revision)


def revision(url: str, message: str) -> None:
    """Autogenerate a new revision from the models (developers only)."""
    command.revision(alembic_config(url), message=message, autogenerate=True)
