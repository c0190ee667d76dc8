"""The Dispatcher: how services enqueue engine work without importing Celery.

``app.tasks`` installs a Celery-backed dispatcher in API and worker processes; tests and
``always_eager`` settings use :class:`InlineDispatcher`, which runs the same service functions
in-process, in order, honouring countdowns. Services call :func:`get` and never block on work.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol


class Dispatcher(Protocol):
    def check_resource(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                       countdown: float = 0.0) -> None:
        """Enqueue one node of a traversal (``is_update``: forward node, else reverse)."""

    def stack_timeout(self, stack_id: str, traversal_id: str, countdown: float) -> None:
        """Enqueue the timeout check of a traversal, due after ``countdown`` seconds."""


class InlineDispatcher:
    """Runs enqueued work in the calling thread, draining a due-time queue.

    The first call drains; calls made while draining (by the work itself) are queued. Countdowns
    are honoured by waiting in the draining thread (this is the test driver, not a worker).
    Timeout checks are optional work: draining stops when only they remain (work that finished
    cannot time out), and any due later than ``max_wait`` seconds are dropped.
    """

    def __init__(self, max_wait: float = 120.0) -> None:
        self._heap: list[tuple[float, int, bool, Callable[[], Any]]] = []
        self._seq = itertools.count()
        self._local = threading.local()
        self._lock = threading.Lock()
        self.max_wait = max_wait

    def _push(self, countdown: float, fn: Callable[[], Any], optional: bool = False) -> None:
        if countdown > self.max_wait:
            return
        with self._lock:
            heapq.heappush(self._heap, (time.monotonic() + countdown, next(self._seq), optional, fn))
        if not getattr(self._local, "draining", False):
            self._drain()

    def _drain(self) -> None:
        self._local.draining = True
        try:
            while True:
                with self._lock:
                    if all(item[2] for item in self._heap):
                        self._heap.clear()
                        return
                    due, _, _opt, fn = heapq.heappop(self._heap)
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                fn()
        finally:
            self._local.draining = False

    def check_resource(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                       countdown: float = 0.0) -> None:
        from app.services import convergence
        self._push(countdown, lambda: convergence.check_resource(stack_id, traversal_id,
                                                                 resource_id, is_update))

    def stack_timeout(self, stack_id: str, traversal_id: str, countdown: float) -> None:
        from app.services import completion
        self._push(countdown, lambda: completion.stack_timeout(stack_id, traversal_id), True)


_dispatcher: Dispatcher | None = None


def set_dispatcher(d: Dispatcher | None) -> None:
    global _dispatcher
    _dispatcher = d


def get() -> Dispatcher:
    """The installed dispatcher; with none installed, Celery's (``app.tasks``) unless the
    settings say ``always_eager``."""
    global _dispatcher
    if _dispatcher is None:
        from app import config
        if config.get().always_eager:
            _dispatcher = InlineDispatcher()
        else:
            from app.tasks.dispatcher import CeleryDispatcher
            _dispatcher = CeleryDispatcher()
    return _dispatcher
