"""What every API process (the Orchestration API, the CFN API) does before it builds its app."""
from __future__ import annotations

from app import auth, config, models
from app.convergence import runtime
from app.convergence.dispatch import Dispatcher
from app.services import wiring


def prepare(settings: config.Settings | None = None,
            dispatcher: Dispatcher | None = None) -> config.Settings:
    """The settings an API process serves with: ``settings`` installed as the process-wide ones
    (default :func:`app.config.get`), checked, the process's runtime composed with
    ``dispatcher`` (:func:`app.services.wiring.compose`), and the database engine initialised
    for ``settings.database_url`` (no schema changes).

    :raises app.errors.StokerError: identity settings that cannot work
        (:func:`app.auth.check_settings`: in keystone mode, a key and a policy that load), or no
        dispatcher outside ``always_eager`` (``NoDispatcher``: every create would fail).
    """
    if settings is None:
        settings = config.get()
    else:
        config.set_current(settings)
    auth.check_settings(settings)
    runtime.configure(wiring.compose(settings, dispatcher))
    models.init(settings.database_url)
    return settings
