"""The WSGI entries for gunicorn: the Orchestration API (``'app.cli.wsgi:create_app()'``) and
the CloudFormation-compatible API (``'app.cli.wsgi:create_cfn_app()'``).

Each hands Celery's Dispatcher (``app.tasks``, which the API packages may not import) to the
API's factory (:func:`app.api.create_app`, :func:`app.cfn.create_app`), which composes the rest
of the process, so the stack operations the API starts are enqueued to the workers. Under
``always_eager`` no dispatcher is handed: the factory composes the in-process one.
"""
from __future__ import annotations

from flask import Flask

from app import api, cfn, config
from app.convergence.dispatch import Dispatcher
from app.tasks import celery_app
from app.tasks.dispatcher import CeleryDispatcher


def create_app(settings: config.Settings | None = None) -> Flask:
    """The API app of a gunicorn worker: :func:`app.api.create_app` with Celery's dispatcher
    (the in-process one under ``always_eager``)."""
    return api.create_app(settings, dispatcher=_dispatcher(settings))


def create_cfn_app(settings: config.Settings | None = None) -> Flask:
    """The CFN API app of a gunicorn worker: :func:`app.cfn.create_app` with Celery's
    dispatcher (the in-process one under ``always_eager``), as :func:`create_app`."""
    return cfn.create_app(settings, dispatcher=_dispatcher(settings))


def _dispatcher(settings: config.Settings | None) -> Dispatcher | None:
    """Celery's dispatcher, unless ``always_eager`` (None: the factory's in-process one)."""
    if (settings or config.get()).always_eager:
        return None
    return CeleryDispatcher(celery_app)
