"""The Celery app and its thin tasks: ids in, one service call.

Configuration comes from :mod:`app.config` (``STOKER_*``); an operator's ``celeryconfig`` module,
if importable (on ``PYTHONPATH``), is applied on top (:func:`operator_overrides`).
Tasks are ``acks_late`` and rejected back to the queue when their worker dies, so a SIGKILLed
worker's tasks are redelivered; the engine makes every task idempotent. A Redis broker is used
through :mod:`app.tasks.transport`, which closes kombu's window between fetching a message and
recording it as unacknowledged (a worker killed in it lost the message).
"""
from __future__ import annotations

import logging

from celery import Celery, signals

from app import config

log = logging.getLogger(__name__)


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


def broker(settings: config.Settings) -> dict[str, object]:
    """The broker settings: URL, transport (:mod:`app.tasks.transport` for Redis) and options."""
    from app.tasks import transport
    return {**transport.broker_conf(settings.broker_url),
            "broker_transport_options": transport_options(settings)}


def make_celery() -> Celery:
    settings = config.get()
    conf = broker(settings)
    app = Celery("stoker", broker=conf.pop("broker_url"), backend=settings.result_backend,
                 include=["app.tasks"])
    app.conf.update(
        **conf,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        worker_prefetch_multiplier=int(settings.extra.get("prefetch", 4)),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        beat_schedule={
            "stoker-timeouts": {"task": "stoker.check_timeouts", "schedule": 5.0},
            "stoker-reconcile": {"task": "stoker.reconcile",
                                 "schedule": float(settings.reconcile_interval)},
        },
    )
    app.conf.update(operator_overrides())
    return app


def operator_overrides() -> dict[str, object]:
    """The settings of an importable ``celeryconfig`` module (Celery's lower-case names), which
    win over Stoker's own: ``config_from_object`` would not, as ``conf.update`` values take
    precedence over it. ``{}`` when there is no such module."""
    try:
        import celeryconfig  # type: ignore[import-not-found]
    except ImportError:
        return {}
    return {k: v for k, v in vars(celeryconfig).items()
            if not k.startswith("_") and k.islower() and not callable(v)}


celery_app = make_celery()


def configure(settings: config.Settings) -> None:
    """Point the (not yet used) Celery app of this process at ``settings``' broker (tests)."""
    celery_app.conf.update(**broker(settings))
    celery_app.conf.result_backend = settings.result_backend


@signals.worker_process_init.connect
def _init_process(**_: object) -> None:
    """Each worker process: its own DB engine (never share connections across fork)."""
    from app import models
    from app.resource_types import registry
    models.init(config.get().database_url)
    registry.types()  # import every plugin module now, not in the first task


@celery_app.task(name="stoker.check_resource", autoretry_for=(Exception,),
                 retry_backoff=0.2, retry_backoff_max=10, max_retries=10)
def check_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """One step of one traversal node (``app.services.convergence.check_resource``).

    An unexpected error (a database hiccup) is retried with backoff; after the retries the beat
    reconciler re-drives the node from the database."""
    from app.services import convergence
    convergence.check_resource(stack_id, traversal_id, resource_id, is_update)


@celery_app.task(name="stoker.stack_timeout")
def stack_timeout(stack_id: str, traversal_id: str) -> None:
    from app.services import completion
    completion.stack_timeout(stack_id, traversal_id)


@celery_app.task(name="stoker.check_timeouts")
def check_timeouts() -> None:
    """Beat: fail traversals that ran past their stack's timeout."""
    from app.services import maintenance
    maintenance.check_timeouts()


@celery_app.task(name="stoker.reconcile")
def reconcile() -> None:
    """Beat: re-drive in-progress traversals from the database (Redis may have lost messages)."""
    from app.services import maintenance
    maintenance.reconcile()
