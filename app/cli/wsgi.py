"""The WSGI entries for gunicorn: the Orchestration API (``'app.cli.wsgi:create_app()'``) and
the CloudFormation-compatible API (``'app.cli.wsgi:create_cfn_app()'``).

It composes what the API package may not import itself: the Orchestration API
(:func:`app.api.create_app`) with Celery's Dispatcher (``app.tasks``), so the stack operations
the API starts are enqueued to the workers.
"""
from __future__ import annotations

from flask import Flask

from app import api, cfn, config
from app.services import engine
from app.tasks import celery_app
from app.tasks.dispatcher import CeleryDispatcher


def create_app(settings: config.Settings | None = None) -> Flask:
    """The API app of a gunicorn worker: :func:`app.api.create_app` with Celery's dispatcher
    (the in-process one under ``always_eager``)."""
    flask_app = api.create_app(settings)
    if not config.get().always_eager:
        engine.use_dispatcher(CeleryDispatcher(celery_app))
    return flask_app


def create_cfn_app(settings: config.Settings | None = None) -> Flask:
    """The CFN API app of a gunicorn worker: :func:`app.cfn.create_app` with Celery's dispatcher
    (the in-process one under ``always_eager``), as :func:`create_app`."""
    flask_app = cfn.create_app(settings)
    if not config.get().always_eager:
        engine.use_dispatcher(CeleryDispatcher(celery_app))
    return flask_app
