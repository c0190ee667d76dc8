"""The WSGI entries for gunicorn: the Orchestration API (``'app.cli.wsgi:create_app()'``) and
the CloudFormation-compatible API (``'app.cli.wsgi:create_cfn_app()'``).

They are the only entries to serve: each installs Celery's Dispatcher (``app.tasks``, which the
API packages may not import), then builds the app (:func:`app.api.build_app`,
:func:`app.cfn.build_app`), so the stack operations the API starts are enqueued to the workers.
The API packages have no ``create_app`` of their own: ``gunicorn 'app.api:create_app()'`` fails at
start instead of serving an API whose every create answers 500.
"""
from __future__ import annotations

from flask import Flask

from app import api, cfn, config
from app.services import engine
from app.tasks import celery_app
from app.tasks.dispatcher import CeleryDispatcher


def create_app(settings: config.Settings | None = None) -> Flask:
    """The API app of a gunicorn worker: :func:`app.api.build_app` with Celery's dispatcher
    (the in-process one under ``always_eager``)."""
    _install_dispatcher(settings)
    return api.build_app(settings)


def create_cfn_app(settings: config.Settings | None = None) -> Flask:
    """The CFN API app of a gunicorn worker: :func:`app.cfn.build_app` with Celery's dispatcher
    (the in-process one under ``always_eager``), as :func:`create_app`."""
    _install_dispatcher(settings)
    return cfn.build_app(settings)


def _install_dispatcher(settings: config.Settings | None) -> None:
    """Celery's dispatcher, unless ``always_eager`` (then the in-process one)."""
    if not (settings or config.get()).always_eager:
        engine.use_dispatcher(CeleryDispatcher(celery_app))
