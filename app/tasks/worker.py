"""The worker's thin tasks (ids in, one service call) and its boot; imported by every worker
through the Celery app's ``include`` (:func:`app.tasks.make_celery`), never by beat or the API,
which send tasks by name.

Tasks: ``stoker.check_resource`` (a node whose prerequisites finished; ``stoker.check_resources``
carries several of a wide fan-out), ``stoker.poll_resource``
(the same step re-checked after a countdown: a cloud action's poll, a busy lock), on their own
queues so that each can be scaled and watched; ``stoker.check_timeouts``,
``stoker.reconcile`` and ``stoker.purge_deleted`` (maintenance). Each message names its stack and resource in
``argsrepr`` (:mod:`app.tasks.labels`) and carries the API's request id in its headers.
A single-step task then runs the first ready successor its step enqueued itself, and so on
along a chain (:class:`app.tasks.dispatcher.Continuation`); delivered again, it re-drives that
chain from where it stopped.
"""
from __future__ import annotations

import logging
import os
import random
import socket
from typing import Any, NoReturn

from celery import signals

from app import config, heap, logs, models
from app.convergence import runtime
from app.resource_types import registry
from app.services import drift, engine, purge, wiring
from app.tasks import broker_watch, celery_app, profiling, transport
from app.tasks.dispatcher import (
    CONTINUE_MAX_STEPS,
    REQUEST_ID_HEADER,
    CeleryDispatcher,
    continuing,
)

log = logging.getLogger(__name__)
__all__ = ["check_resource", "check_resources", "poll_resource"]


@signals.worker_process_init.connect
def _init_process(**_: object) -> None:
    """Each worker process: its own DB engine (never share connections across fork)."""
    models.init(config.get().database_url)
    registry.types()  # import every plugin module now, not in the first task


def compose() -> None:
    """Compose this worker's runtime (:func:`app.services.wiring.compose`) with
    Celery's dispatcher and make it the process's: follow-up work goes out through Celery,
    child stacks and scaling go through the use cases, the events written reach their stack's
    sinks. Before the pool starts, so forked pool processes inherit it."""
    runtime.configure(wiring.compose(config.get(), CeleryDispatcher(celery_app)))


@signals.worker_init.connect
def _init_worker(**_: object) -> None:
    """Every worker (any pool): its runtime (:func:`compose`), the watch of its broker
    (:mod:`.broker_watch`: the in-flight work is sent again at once when the broker lost
    messages) and its lease (its heartbeat, and the sweep that takes dead workers' work over).
    The plugin modules are imported now, not in the first task (the threads pool, as ``stoker
    up`` runs it, sends no ``worker_process_init``)."""
    compose()
    registry.types()
    heap.settle_heap()
    profiling.install()
    url = str(celery_app.conf.broker_url or config.get().broker_url)
    if url.startswith(f"{transport.ALIAS}+"):
        url = "redis+" + url.removeprefix(f"{transport.ALIAS}+")
    broker_watch.start(url, engine.redrive, f"{socket.gethostname()}:{os.getpid()}")
    try:
        engine.start_lease()
    except Exception:  # the database is not there yet: the first step starts it
        log.warning("the engine lease could not start yet", exc_info=True)



@signals.worker_shutdown.connect
@signals.worker_process_shutdown.connect
def _end_lease(**_: object) -> None:
    """A stop after the pool finished its tasks (Celery's warm shutdown; a prefork child's
    exit): the engine's lease ends without reading as a death to the next sweep
    (:func:`engine.end_lease`); a lease still holding locks is left to run out."""
    try:
        engine.end_lease()
    except Exception:  # the database is away: the row runs out as a dead engine's would
        log.warning("the engine lease could not be ended", exc_info=True)

@signals.task_prerun.connect
def _bind_ids(task: Any = None, args: Any = None, kwargs: Any = None, **_: object) -> None:
    """Every log line of a task carries its request id, stack, traversal and resource."""
    request = getattr(task, "request", None)
    rid = getattr(request, REQUEST_ID_HEADER, None) or \
        (getattr(request, "headers", None) or {}).get(REQUEST_ID_HEADER)
    ids: dict[str, Any] = {"request_id": rid}
    if args and task is not None and task.name in ("stoker.check_resource", "stoker.poll_resource"):
        ids.update(stack_id=args[0], traversal=args[1], resource=args[2])
    elif args and task is not None and task.name == "stoker.check_resources":
        ids.update(stack_id=args[0], traversal=args[1])
    logs.bind(**ids)
    log.info("%s%s started", getattr(task, "name", "?"), getattr(request, "argsrepr", "") or "")


@signals.task_postrun.connect
def _unbind_ids(**_: object) -> None:
    logs.clear()


def _step_task(task: Any, stack_id: str, traversal_id: str, resource_id: int,
               is_update: bool) -> None:
    """The body of the one-step tasks: the step and its continuation; a database error is
    retried until the database answers (:func:`_database_retry`), anything else re-raised."""
    try:
        _step_and_continue(stack_id, traversal_id, resource_id, is_update,
                           again=_again(task.request))
    except Exception as exc:
        _database_retry(task, exc)
        raise


@celery_app.task(name="stoker.check_resource", autoretry_for=(Exception,),
                 retry_backoff=0.2, retry_backoff_max=10, max_retries=10)
def check_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """One step of one traversal node (:func:`app.convergence.check_resource`).

    The database unreachable: tried again until it answers (:func:`_database_retry`). Another
    unexpected error is retried with backoff; after the retries the beat reconciler re-drives
    the node from the database."""
    _step_task(check_resource, stack_id, traversal_id, resource_id, is_update)


#: s before a step the database failed under runs again: doubling from the first, at most
#: the last (so a step runs within this long of the server's return), jittered down by half
DATABASE_RETRY_SECONDS = (0.25, 2.0)


def _database_retry(task: Any, exc: Exception) -> None:
    """Retry ``task`` when ``exc`` says the database cannot be reached
    (:func:`app.models.unavailable`): without a limit (every step is idempotent, and the
    database, the truth, is all a step needs), every at most ``DATABASE_RETRY_SECONDS[1]``;
    any other error returns, for the caller to raise."""
    if not models.unavailable(exc):
        return
    first, most = DATABASE_RETRY_SECONDS
    delay = min(most, first * 2 ** min(task.request.retries or 0, 10))
    _retry(task, exc, delay * random.uniform(0.5, 1.0))


#: Retries of a step the database failed under: as good as unbounded (Celery reads
#: ``max_retries=None`` as "the task's own limit", not as no limit)
DATABASE_RETRY_LIMIT = 10**9


def _retry(task: Any, exc: Exception, countdown: float) -> NoReturn:
    log.warning("%s: the database is unavailable (%s); again in %.1f s", task.name,
                str(exc).splitlines()[0] if str(exc) else type(exc).__name__, countdown)
    try:
        raise task.retry(exc=exc, countdown=countdown, max_retries=DATABASE_RETRY_LIMIT)
    finally:  # Celery keeps the limit on the (shared) task for its autoretry: not ours to leave
        task.__dict__.pop("override_max_retries", None)


def _again(request: Any) -> bool:
    """Whether this message ran before: delivered again by the broker (its worker died, kombu
    marks it ``redelivered``) or a retry."""
    info = getattr(request, "delivery_info", None) or {}
    return bool(info.get("redelivered") or getattr(request, "retries", 0))


def _step_and_continue(stack_id: str, traversal_id: str, resource_id: int,
                       is_update: bool, again: bool = False) -> None:
    """The step, then the ready successors it kept for itself (:class:`~app.tasks.dispatcher.
    Continuation`), one after another. A kept step that raises is sent as a task of its own
    (where the retries apply); the task's own step raising is retried as any task's.

    ``again``: this message ran before, and may have died in the middle of the steps it kept,
    which had no message of their own: the ended nodes after its own whose end was not followed
    through (:func:`app.services.engine.unsettled_after`, as deep as a continuation goes) step
    again, which enqueues what fired after them. Such a run keeps nothing: a chain continued
    from there would reach beyond what its next delivery looks at."""
    with continuing(stack_id, traversal_id, 0 if again else None) as kept:
        engine.check_resource(stack_id, traversal_id, resource_id, is_update)
        todo = engine.unsettled_after(stack_id, traversal_id, resource_id, is_update,
                                      CONTINUE_MAX_STEPS) if again else []
        todo.reverse()
        node = todo.pop() if todo else kept.take()
        bound = logs.current().get("resource")
        try:
            while node is not None:
                logs.bind(resource=node[0])  # its log lines name the resource it steps
                try:
                    engine.check_resource(stack_id, traversal_id, *node)
                except Exception:  # logged, and sent as a task of its own
                    engine.enqueue_step(stack_id, traversal_id, *node)
                node = todo.pop() if todo else kept.take()
        finally:
            logs.bind(resource=bound)


@celery_app.task(name="stoker.check_resources")
def check_resources(stack_id: str, traversal_id: str, nodes: list[list[Any]]) -> None:
    """Several ready steps of one traversal in one message (a wide fan-out,
    :func:`app.convergence.check_resources`): each runs as ``check_resource`` would; one that
    raises is sent again on its own, with that task's retries."""
    try:
        engine.check_resources(stack_id, traversal_id, [(int(r), bool(u)) for r, u in nodes])
    except Exception as exc:
        _database_retry(check_resources, exc)
        raise


@celery_app.task(name="stoker.poll_resource", autoretry_for=(Exception,),
                 retry_backoff=0.2, retry_backoff_max=10, max_retries=10)
def poll_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """The same step as :func:`check_resource`, enqueued after a countdown (a poll of a cloud
    action, a busy lock): its own queue, so that polls never queue behind fresh steps."""
    _step_task(poll_resource, stack_id, traversal_id, resource_id, is_update)


@celery_app.task(name="stoker.check_timeouts")
def check_timeouts() -> None:
    """Beat: fail traversals that ran past their stack's timeout."""
    engine.check_timeouts()


@celery_app.task(name="stoker.reconcile")
def reconcile() -> None:
    """Beat: re-drive in-progress traversals from the database (Redis may have lost messages)."""
    engine.reconcile()


@celery_app.task(name="stoker.detect_drift")
def detect_drift(detection_id: str, names: list[str] | None = None) -> None:
    """A stack's drift detection, of its resources ``names`` only when given
    (:func:`app.services.drift.run`)."""
    drift.run(detection_id, names)


@celery_app.task(name="stoker.purge_deleted")
def purge_deleted(age: int = purge.DEFAULT_AGE, granularity: str = "days",
                  project_id: str | None = None,
                  batch_size: int = purge.DEFAULT_BATCH_SIZE) -> dict[str, int]:
    """Beat (when ``celeryconfig.py`` schedules it): Heat's ``purge_deleted`` of the stacks
    deleted more than ``age`` ``granularity`` ago (:func:`app.services.purge.purge_deleted`)."""
    return purge.purge_deleted(age, granularity, project_id, batch_size)
