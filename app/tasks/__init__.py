"""The Celery app: its configuration, shared by every Celery process (worker, beat, Flower)
and by the API processes that send tasks; it imports no engine code.

Configuration: the operator's settings module (``celeryconfig.py`` at the repository root, or the
module named by ``STOKER_CELERY_CONFIG``) is the single source of the Celery settings an operator
tunes (broker/result URLs, acks, prefetch, events, queues and routes, time limits, beat); see
:func:`make_celery`. On top of it Stoker keeps what its engine needs: the Redis transport of
:mod:`app.tasks.transport` (no window between fetching a message and recording it as
unacknowledged), one priority step, a short restore mutex, and its own logging (:mod:`app.logs`).

The tasks and the worker's boot are in :mod:`app.tasks.worker`, which a worker imports through
the app's ``include``; beat runs :mod:`app.tasks.beat`, the same configuration without them
(it sends its schedule's tasks by name).
"""
from __future__ import annotations

import types
from collections.abc import Sequence
from typing import Any

from celery import Celery, signals
from celery.utils.imports import import_from_cwd

from app import config, logs
from app.tasks import transport

__all__ = ["WORKER_MODULES", "celery_app", "configure", "make_celery"]
#: the modules a worker imports at its start (Celery's ``include``): the tasks and their boot
WORKER_MODULES = ("app.tasks.worker",)


def transport_options(settings: config.Settings) -> dict[str, object]:
    """Redis transport: unacknowledged (and fetched but not yet recorded) tasks of a dead worker
    are restored after ``visibility_timeout`` seconds, scanned for every ``restore_interval``
    seconds. One priority step: one Redis key per queue, which the atomic fetch needs. The
    restore's mutex expires after a few restore intervals, not kombu's 300 s: a worker killed
    while holding it would otherwise stop every restore for five minutes."""
    return {"visibility_timeout": settings.visibility_timeout,
            "unacked_restore_interval": settings.restore_interval,
            "unacked_restore_throttle": 1,
            "unacked_mutex_expire": max(5, 3 * int(settings.restore_interval)),
            "priority_steps": [0]}


def broker(settings: config.Settings, url: str | None = None,
           options: dict[str, Any] | None = None) -> dict[str, object]:
    """The broker settings: ``url`` (default the settings' broker URL) through
    :mod:`app.tasks.transport` for Redis, and the transport options (``options`` from the
    operator's module over :func:`transport_options`; ``priority_steps`` stays ``[0]``)."""
    merged = {**transport_options(settings), **(options or {}), "priority_steps": [0]}
    return {**transport.broker_conf(url or settings.broker_url),
            "broker_transport_options": merged}


def operator_settings(module_name: str) -> dict[str, Any]:
    """The Celery settings of the operator's module: its public lower-case names (Celery's
    setting names), modules, classes and functions excepted.

    :raises ImportError: the module cannot be imported (a clear message names it).
    """
    try:
        module = import_from_cwd(module_name)  # as Celery's own loader finds celeryconfig
    except ImportError as exc:
        raise ImportError(f"the Celery settings module {module_name!r} cannot be imported "
                          f"(STOKER_CELERY_CONFIG): {exc}") from exc
    return {k: v for k, v in vars(module).items()
            if not k.startswith("_") and k.islower()
            and not isinstance(v, (types.ModuleType, type, types.FunctionType))}


def make_celery(settings: config.Settings | None = None,
                include: Sequence[str] = WORKER_MODULES) -> Celery:
    """The Celery app built from the operator's module (``settings.celery_config``), whose
    workers import ``include`` at their start (beat's app: none).

    Stoker's own fixed settings: the transport for Redis URLs (not in Flower, which fetches no
    tasks), JSON only, its logging setup (Celery does not hijack the root logger)."""
    settings = settings or config.get()
    conf = operator_settings(settings.celery_config)
    url = str(conf.pop("broker_url", "") or settings.broker_url)
    conf.update(broker(settings, url, conf.pop("broker_transport_options", None)))
    if logs.process_name() == "flower":
        # Flower consumes no tasks (events and remote control only): kombu's own transport,
        # whose URL scheme Flower's queue-length API knows (it refuses an unknown one)
        conf.update(broker_url=url, broker_transport=None)
    app = Celery("stoker", broker=conf.pop("broker_url"),
                 backend=conf.pop("result_backend", None) or settings.result_backend,
                 include=list(include))
    # reconnects to a returning broker within a second (kombu's waits grow to 30 s)
    conf.setdefault("worker_consumer", "app.tasks.broker_watch:Consumer")
    conf.setdefault("task_serializer", "json")
    conf.setdefault("accept_content", ["json"])
    app.conf.update(**conf, worker_hijack_root_logger=False)
    return app


celery_app = make_celery()


def configure(settings: config.Settings) -> None:
    """Point the (not yet used) Celery app of this process at ``settings``' broker (tests)."""
    celery_app.conf.update(**broker(settings))
    celery_app.conf.result_backend = settings.result_backend


@signals.setup_logging.connect
def _setup_logging(loglevel: Any = None, **_: object) -> None:
    """Workers and beat log through :func:`app.logs.setup` (text or JSON, with ids)."""
    logs.setup(config.get(), level=loglevel)
