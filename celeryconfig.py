"""Stoker's Celery settings: the one file an operator tunes, read by every Celery process.

``celery -A app.tasks worker|flower ...``, ``celery -A app.tasks.beat beat`` and ``stoker up``
(whose children are those same commands) build the Celery app from this module
(``app.tasks.make_celery``). Edit a value here and restart the processes; another module can
be named with ``STOKER_CELERY_CONFIG`` (it may ``from celeryconfig import *`` and change a few
names). Only Celery's lower-case setting names
are read (https://docs.celeryq.dev/en/stable/userguide/configuration.html).

Broker and result URLs, and the Redis redelivery timings, come from the ``STOKER_*`` settings
(``app.config``) so that the API, the workers and ``stoker up`` always agree on them.
"""
from __future__ import annotations

from kombu import Exchange, Queue

from app import config as _config

_settings = _config.get()

# ---- broker and results ----------------------------------------------------------------------
broker_url = _settings.broker_url                # STOKER_BROKER_URL
result_backend = _settings.result_backend        # STOKER_RESULT_BACKEND (default: the broker)
broker_connection_retry_on_startup = True
# A worker that lost its broker tries again every quarter second (app.tasks.broker_watch.Consumer)
# until it is back, however long that takes: Celery's default, 100 tries, then the worker stops
# for good (the database holds the work; a worker only needs its broker back).
broker_connection_max_retries = None
# Redis: a task not acknowledged within visibility_timeout seconds (its worker died) is given to
# another worker; dead workers' tasks are looked for every unacked_restore_interval seconds.
# max_connections: Redis connections a channel may open at once (kombu's default, 10). Under the
# gevent pool every greenlet acknowledges its own message and publishes its successors, so 100
# greenlets past 10 connections failed their acks with "MaxConnectionsError: Too many
# connections" (the message then waited a visibility timeout to be redelivered): one a worker
# thread or greenlet, and a few for the consumer and heartbeats.
broker_transport_options = {
    "visibility_timeout": _settings.visibility_timeout,        # STOKER_VISIBILITY_TIMEOUT
    "unacked_restore_interval": _settings.restore_interval,    # STOKER_RESTORE_INTERVAL
    "max_connections": _settings.worker_concurrency + 10,       # STOKER_WORKER_CONCURRENCY
}
# Producers (connections that publish) a process keeps; one a thread or greenlet, as above.
broker_pool_limit = _settings.worker_concurrency + 10

# ---- delivery: every engine task is idempotent, so it is acknowledged only when it is done -----
task_acks_late = True
task_reject_on_worker_lost = True     # a killed worker's task goes back to the queue
worker_prefetch_multiplier = 4        # messages a worker thread reserves ahead
task_ignore_result = True             # the database is the truth; nothing waits on results
# One result backend object a process, not one a thread: under the gevent pool every greenlet
# (one a task) is a thread to Celery's thread-local, so every task built a RedisBackend of its
# own (docs/decisions.md). Nothing waits on results, and redis-py's
# client is thread-safe.
result_backend_thread_safe = True
task_serializer = "json"
accept_content = ["json"]

# ---- time limits (seconds). Enforced by the prefork pool; the threads pool (Stoker's on SQLite)
# ignores them, and gevent's enforces only the hard one (it kills the greenlet). Engine steps
# never wait on a cloud action (they are polled), so a step hitting these is a hung HTTP call,
# which cloud_timeout (STOKER_CLOUD_TIMEOUT) ends first. ------------------------------------
task_soft_time_limit = 300
task_time_limit = 360

# ---- the pool: `--pool` on the worker's command line, never a setting here (Celery must
# monkey-patch gevent before anything is imported). `stoker up`, `stoker worker` and the Procfile
# pass STOKER_WORKER_POOL and STOKER_WORKER_CONCURRENCY; unset, the database chooses
# (app.config.Settings): gevent x 200 on PostgreSQL, threads x 16 on SQLite.
# Why (the measurements are in docs/decisions.md): a greenlet per cloud call, not a thread, so
# a worker is bound by its CPU rather than by threads blocked for a whole cloud call; 200 of
# them, as 200 servers resizing or deleting at once hold 200 greenlets for each call, and polls
# falling due meanwhile must find one free. SQLite keeps threads: its single writer queues
# processes on an flock, and a greenlet waiting on it blocks its whole process.
# A hand-written worker command passes both itself: `celery -A app.tasks worker --pool gevent -c 200`.

# ---- events, for Flower and `celery events` ---------------------------------------------------
# STOKER_TASK_EVENTS=1 turns both on (`stoker up --flower` does). Off, a running Flower still
# sees every task the workers receive: it sends them `enable_events` every 5 s; only the
# "sent" state of tasks needs task_send_sent_event, which is read where a task is published.
worker_send_task_events = _settings.task_events
task_send_sent_event = _settings.task_events
event_queue_expires = 60.0            # an event consumer's queue goes when it has gone
event_queue_ttl = 5.0

# ---- queues and routes: engine steps, their polls, and maintenance, each scaled on its own ---
# A worker consumes every queue by default; `celery -A app.tasks worker -Q stoker.poll` serves
# one only.
ENGINE_QUEUE, POLL_QUEUE, MAINTENANCE_QUEUE = "stoker.engine", "stoker.poll", "stoker.maintenance"
# each queue has its own exchange and routing key: a message lands in exactly one of them
task_queues = tuple(Queue(q, Exchange(q, type="direct"), routing_key=q)
                    for q in (ENGINE_QUEUE, POLL_QUEUE, MAINTENANCE_QUEUE))
task_default_queue = task_default_exchange = task_default_routing_key = ENGINE_QUEUE
task_routes = {
    "stoker.check_resource": {"queue": ENGINE_QUEUE},     # a node whose prerequisites finished
    "stoker.check_resources": {"queue": ENGINE_QUEUE},    # several, of a wide fan-out
    "stoker.poll_resource": {"queue": POLL_QUEUE},        # a node re-checked after a countdown
    "stoker.check_timeouts": {"queue": MAINTENANCE_QUEUE},
    "stoker.reconcile": {"queue": MAINTENANCE_QUEUE},
    "stoker.purge_deleted": {"queue": MAINTENANCE_QUEUE},
    "stoker.detect_drift": {"queue": MAINTENANCE_QUEUE},  # a stack's drift detection
}

# ---- beat ---------------------------------------------------------------------------------
beat_schedule = {
    "stoker-timeouts": {"task": "stoker.check_timeouts", "schedule": 5.0},
    "stoker-reconcile": {"task": "stoker.reconcile",
                         "schedule": float(_settings.reconcile_interval)},  # STOKER_RECONCILE_INTERVAL
}

# ---- purge of deleted stacks: off, as Heat's (operators run `heat-manage purge_deleted` from
# cron; `stoker db purge-deleted` is the same by hand). To have beat run it, set the seconds
# between runs and the age a deleted stack is kept (Heat's defaults: 90 days, 20 stacks a
# transaction), e.g. PURGE_DELETED_EVERY = 86400.0.
PURGE_DELETED_EVERY: float | None = None
PURGE_DELETED_KWARGS = {"age": 90, "granularity": "days", "project_id": None, "batch_size": 20}
if PURGE_DELETED_EVERY:
    beat_schedule["stoker-purge-deleted"] = {"task": "stoker.purge_deleted",
                                             "schedule": float(PURGE_DELETED_EVERY),
                                             "kwargs": PURGE_DELETED_KWARGS}
