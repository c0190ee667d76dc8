"""The in-process Dispatcher: tests and the ``always_eager`` setting.

:class:`InlineDispatcher` runs enqueued work in the calling thread, in due-time order, honouring
countdowns by waiting in the draining thread (it is the test driver, not a worker). The
composition (``app.services.wiring.compose``) chooses it under ``always_eager``.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from app.convergence import check
from app.convergence.dispatch import NodeKey


class InlineDispatcher:
    """Runs enqueued work in the calling thread, draining a due-time queue.

    The first call drains; calls made while draining (by the work itself) are queued. Timers
    (stack timeouts, the safety polls of waiting nodes) are optional work: draining stops when
    only they remain (work that finished cannot time out), and any due later than ``max_wait``
    seconds are not queued (this driver does not outlive its test).
    """

    def __init__(self, max_wait: float = 120.0) -> None:
        self._heap: list[tuple[float, int, bool, Callable[[], Any]]] = []
        self._seq = itertools.count()
        self._local = threading.local()
        self._lock = threading.Lock()
        self.max_wait = max_wait

    def _push(self, countdown: float, fn: Callable[[], Any], optional: bool) -> None:
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
        self._push(countdown, lambda: check.check_resource(stack_id, traversal_id, resource_id,
                                                           is_update), False)

    def check_resources(self, stack_id: str, traversal_id: str,
                        nodes: Iterable[NodeKey]) -> None:
        for rid, upd in list(nodes):
            self.check_resource(stack_id, traversal_id, rid, upd)

    def safety_poll(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                    countdown: float) -> None:
        self._push(countdown, lambda: check.check_resource(stack_id, traversal_id, resource_id,
                                                           is_update), True)
