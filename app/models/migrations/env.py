"""Alembic environment: the URL comes from ``Settings.database_url`` (or the caller's config)."""
from __future__ import annotations

from alembic import context

from app import config as stoker_config
from app.models import Base
from app.models.base import make_engine

target_metadata = Base.metadata


def run() -> None:
    url = context.config.get_main_option("sqlalchemy.url") or stoker_config.get().database_url
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=target_metadata, literal_binds=True,
                          render_as_batch=url.startswith("sqlite"))
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(url, immediate=False)
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata,
                          render_as_batch=url.startswith("sqlite"))
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()
