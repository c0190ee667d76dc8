"""Flower, the Celery dashboard, as ``stoker up --flower`` and the Procfile's ``flower`` run it.

``celery -A app.tasks flower`` reads the same ``celeryconfig.py`` as the workers, so it sees
the engine, poll and maintenance queues, and the task events the workers send (every task with
its readable ``argsrepr``, :mod:`app.tasks.labels`). Its HTTP API (``/api/tasks``,
``/api/workers``, ``/api/queues/length``...):

- no authentication configured (the embedded default): Flower listens on ``127.0.0.1`` only and
  its API answers without credentials (Flower's ``FLOWER_UNAUTHENTICATED_API``, set for that
  child only: the operator sets nothing);
- ``STOKER_FLOWER_BASIC_AUTH=user:password[,user2:password2]``: HTTP basic auth on the UI and
  the API (``--basic-auth``), listening on ``api_host``;
- ``STOKER_FLOWER_AUTH=<regex of allowed e-mails>``: OAuth (``--auth``); the provider and its
  keys are Flower's own variables (``FLOWER_AUTH_PROVIDER``, ``FLOWER_OAUTH2_KEY``,
  ``FLOWER_OAUTH2_SECRET``, ``FLOWER_OAUTH2_REDIRECT_URI``), read by Flower itself.
"""
from __future__ import annotations

import sys

from app import config


def authenticated(settings: config.Settings) -> bool:
    """True when Flower asks for credentials (basic auth or OAuth configured)."""
    return bool(settings.flower_basic_auth or settings.flower_auth)


def command(settings: config.Settings) -> tuple[list[str], dict[str, str]]:
    """``(argv, extra environment)`` of the Flower process for ``settings``."""
    address = settings.api_host if authenticated(settings) else "127.0.0.1"
    argv = [sys.executable, "-m", "celery", "-A", "app.tasks", "flower",
            f"--port={settings.flower_port}", f"--address={address}"]
    env: dict[str, str] = {}
    if settings.flower_basic_auth:
        argv.append(f"--basic-auth={settings.flower_basic_auth}")
    if settings.flower_auth:
        argv.append(f"--auth={settings.flower_auth}")
    if not authenticated(settings):
        env["FLOWER_UNAUTHENTICATED_API"] = "true"
    return argv, env
