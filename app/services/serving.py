"""What every API process (the Orchestration API, the CFN API) does before it builds its app."""
from __future__ import annotations

from app import auth, config, models
from app.services import engine


def prepare(settings: config.Settings | None = None) -> config.Settings:
    """The settings an API process serves with: ``settings`` installed as the process-wide ones
    (default :func:`app.config.get`), checked, and the database engine initialised for
    ``settings.database_url`` (no schema changes).

    :raises app.errors.StokerError: identity settings that cannot work
        (:func:`app.auth.check_settings`: in keystone mode, a key and a policy that load), or no
        dispatcher installed outside ``always_eager`` (every create would fail).
    """
    if settings is None:
        settings = config.get()
    else:
        config.set_current(settings)
    auth.check_settings(settings)
    engine.require_dispatcher(settings)
    models.init(settings.database_url)
    return settings
