"""The Celery-backed Dispatcher installed in API and worker processes.

More in docs/code/tasks.md (app.tasks.dispatcher).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from celery import Celery
from kombu import exceptions as kombu_exc

from app import config, errors, logs
from app.convergence.dispatch import NodeKey, batches
from app.tasks import labels

CHECK_RESOURCE = "stoker.check_resource"
CHECK_RESOURCES = "stoker.check_resources"
POLL_RESOURCE = "stoker.poll_resource"
#: the message header carrying the request id of the API call that started the work
REQUEST_ID_HEADER = "stoker_request_id"
log = logging.getLogger(__name__)
#: A task continues at most this many successor steps itself, for at most this many seconds
CONTINUE_MAX_STEPS = 100
CONTINUE_MAX_SECONDS = 2.0
#: The running task's continuation (thread-local; greenlet-local under gevent's patching)
_local = threading.local()
#: Held while a process builds its Celery app's producer pool (:func:`producer_pool`)
_pool_lock = threading.Lock()


def producer_pool(app: Celery) -> Any:
    """``app``'s producer pool (kombu's ``ProducerPool``), built on first use, under a lock.

    Celery's own ``amqp.producer_pool`` publishes the pool before it sets its limit (and before
    ``app.pool`` sets kombu's global one, ``broker_pool_limit``): a thread taking a producer
    in between made the resize fail with kombu's "Can't shrink pool when in use". Here the
    connection pool and its limit come first, then the producer pool (born with that limit),
    all while other threads wait. Built at first use, so from the broker configured by then,
    and again after a fork (Celery drops the pool). Docs: docs/code/tasks.md."""
    with _pool_lock:
        amqp = app.amqp
        if amqp._producer_pool is None:
            _ = app.pool  # kombu's limit set to broker_pool_limit, the connection pool made
        return amqp.producer_pool


class Continuation:
    """The one ready successor a single-step task runs itself once its own step returned,
    instead of a broker round trip (publish, fetch, decode, acknowledge) for it.

    While a task holds one, the first node of the first fan-out it enqueues with no countdown
    is kept here and the rest are sent as usual; at most :data:`CONTINUE_MAX_STEPS` steps and
    :data:`CONTINUE_MAX_SECONDS`. Nothing is kept while task events are on
    (:func:`app.tasks.labels.wanted`). Why a worker's death loses nothing: docs/code/tasks.md
    (app.tasks.dispatcher.Continuation)."""

    def __init__(self, stack_id: str, traversal_id: str, steps: int | None = None) -> None:
        self.stack_id, self.traversal_id = stack_id, traversal_id
        self.kept: NodeKey | None = None
        self.left = CONTINUE_MAX_STEPS if steps is None else steps
        self.until = time.monotonic() + CONTINUE_MAX_SECONDS

    def keep(self, stack_id: str, traversal_id: str, nodes: list[NodeKey]) -> list[NodeKey]:
        """Keep the first of ``nodes`` if there is room; :returns: the nodes to send."""
        if self.kept is not None or self.left <= 0 or stack_id != self.stack_id \
                or traversal_id != self.traversal_id or time.monotonic() > self.until:
            return nodes
        self.kept, self.left = nodes[0], self.left - 1
        return nodes[1:]

    def take(self) -> NodeKey | None:
        """The kept node (and the room for another), or None."""
        kept, self.kept = self.kept, None
        return kept


@contextmanager
def continuing(stack_id: str, traversal_id: str,
               steps: int | None = None) -> Iterator[Continuation]:
    """Hold a :class:`Continuation` while a task runs its step (and the ones it keeps), with
    room for ``steps`` (default :data:`CONTINUE_MAX_STEPS`)."""
    previous = getattr(_local, "continuation", None)
    _local.continuation = c = Continuation(stack_id, traversal_id, steps)
    try:
        yield c
    finally:
        _local.continuation = previous


@contextmanager
def publishing() -> Iterator[None]:
    """Translate the broker's connection failures while publishing (kombu gave up after its
    publish retries) into :class:`app.errors.BrokerUnavailable`."""
    try:
        yield
    except errors.BrokerUnavailable:
        raise
    except (kombu_exc.OperationalError, redis.ConnectionError, redis.TimeoutError,
            ConnectionError) as exc:
        raise errors.BrokerUnavailable(f"The message broker is unavailable: {exc}") from exc


class CeleryDispatcher:
    """Enqueues engine work as Celery tasks of ``app`` (by name: no import of the tasks)."""

    def __init__(self, app: Celery) -> None:
        self.app = app
        settings = config.get()
        self.max_countdown = max(1.0, 0.8 * float(settings.visibility_timeout))
        self.parallelism = settings.workers * settings.worker_concurrency
        self.batch_max = settings.step_batch_max
        self._engine_queue: str | None = None
        self._pool: Any = None  # the app's producer pool, once built (:meth:`_ready`)

    def _ready(self) -> None:
        """Make sure the app's producer pool is built (:func:`producer_pool`) before a send;
        after the first, one identity check (None: a test's stand-in app without one)."""
        amqp = getattr(self.app, "amqp", None)
        if amqp is not None and (self._pool is None or amqp._producer_pool is not self._pool):
            self._pool = producer_pool(self.app)

    @property
    def labelled(self) -> bool:
        """Whether messages carry readable arguments: they cost reads, and only Flower and
        ``celery events`` show them, so only while task events are on (:func:`labels.wanted`)."""
        return labels.wanted()

    def _label(self, label: Callable[..., str], ids: Callable[..., str], *args: Any) -> str:
        """``argsrepr`` of a message: ``label(*args)`` (names, read once) when :attr:`labelled`,
        else ``ids(*args)``, which reads nothing (Celery would otherwise ``saferepr`` the
        arguments on every send: a batch's node list costs more than the rest of the send)."""
        return label(*args) if self.labelled else ids(*args)

    def _countdown(self, countdown: float) -> float | None:
        return min(countdown, self.max_countdown) if countdown > 0 else None

    def _send_step(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                   countdown: float, **options: Any) -> None:
        due = self._countdown(countdown)
        self.app.send_task(POLL_RESOURCE if due else CHECK_RESOURCE,
                           (stack_id, traversal_id, resource_id, is_update), countdown=due,
                           argsrepr=self._label(labels.step, labels.step_ids, stack_id,
                                                traversal_id, resource_id,
                                                is_update),
                           headers={REQUEST_ID_HEADER: logs.request_id()},
                           ignore_result=True, **options)

    def check_resource(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                       countdown: float = 0.0) -> None:
        """:raises BrokerUnavailable: the message could not be sent."""
        with publishing():
            self._ready()
            self._send_step(stack_id, traversal_id, resource_id, is_update, countdown)

    def _send(self, stack_id: str, traversal_id: str, group: list[NodeKey],
              **options: Any) -> None:
        if len(group) == 1:
            rid, upd = group[0]
            self._send_step(stack_id, traversal_id, rid, upd, 0.0, **options)
            return
        self.app.send_task(CHECK_RESOURCES, (stack_id, traversal_id, [list(n) for n in group]),
                           argsrepr=self._label(labels.steps, labels.steps_ids, stack_id, traversal_id, group),
                           headers={REQUEST_ID_HEADER: logs.request_id()},
                           ignore_result=True, **options)

    def _backlog(self, producer: Any) -> int:
        """Messages waiting in the engine queue beyond what the workers reserved (Redis
        ``LLEN``); 0 when the broker cannot tell (a batch is only an optimisation)."""
        try:
            if self._engine_queue is None:
                self._engine_queue = self.app.amqp.router.route({}, CHECK_RESOURCE)["queue"].name
            return int(producer.channel.client.llen(self._engine_queue))
        except Exception:
            return 0

    def check_resources(self, stack_id: str, traversal_id: str,
                        nodes: Iterable[NodeKey]) -> None:
        """Enqueue the ready nodes of a fan-out (a wide stack's leaves, a node's successors):
        one ``stoker.check_resource`` each, or, when there are more than twice as many as the
        fleet runs at once or the engine queue already holds work for every thread,
        ``stoker.check_resources`` messages of several steps
        (:func:`app.convergence.dispatch.batches`, ``step_batch_max``). All go out with one
        producer and kombu's ``Producer.batch`` (on Redis: one pipeline, one round trip for up
        to 500 messages). If that fails (kombu cannot tell which of its messages went out),
        every message is sent again one by one, with kombu's retries: a step sent twice runs
        once (DESIGN.md, invariant 1). Inside a single-step task, the first node is kept for the
        task to run itself (:class:`Continuation`).

        :raises BrokerUnavailable: the broker could not take them."""
        with publishing():
            self._ready()
            self._check_resources(stack_id, traversal_id, list(nodes))

    def _check_resources(self, stack_id: str, traversal_id: str, todo: list[NodeKey]) -> None:
        held: Continuation | None = getattr(_local, "continuation", None)
        if held is not None and todo and not self.labelled:
            todo = held.keep(stack_id, traversal_id, todo)
        if not todo:
            return
        if self.labelled:
            labels.prefetch(stack_id, [rid for rid, _ in todo])
        with self.app.producer_or_acquire() as producer:
            backlog = self._backlog(producer) if len(todo) > 1 else 0
            groups = batches(todo, self.parallelism, self.batch_max, backlog)
            if len(groups) > 1:
                try:
                    with producer.batch():
                        for group in groups:
                            self._send(stack_id, traversal_id, group, producer=producer)
                    return
                except Exception as exc:  # delivery uncertain: send each again
                    log.warning("batch of %d steps of traversal %s not sent at once (%s); "
                                "sending them one by one", len(todo), traversal_id, exc)
            for group in groups:
                self._send(stack_id, traversal_id, group, producer=producer)

    def safety_poll(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                    countdown: float) -> None:
        self.check_resource(stack_id, traversal_id, resource_id, is_update, countdown)

    def job(self, name: str, args: tuple[Any, ...]) -> None:
        """Enqueue a use case's background job, task ``stoker.<name>``.
        :raises BrokerUnavailable: the message could not be sent."""
        with publishing():
            self._ready()
            self.app.send_task(f"stoker.{name}", args,
                               headers={REQUEST_ID_HEADER: logs.request_id()},
                               ignore_result=True)
