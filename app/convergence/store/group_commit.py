"""Group commit: the steps of one worker process that finish together share one transaction.

More in docs/code/convergence.md (app.convergence.store.group_commit).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from app import errors

T = TypeVar("T")
R = TypeVar("R")
K = TypeVar("K", bound=Hashable)


class Interrupted(errors.ServiceUnavailable):
    """The batch's write stopped before it gave this item a result (its leader was killed):
    the item is not known to be written; it may be written again."""


@dataclass
class _Slot(Generic[T]):
    item: T
    ready: threading.Event = field(default_factory=threading.Event)
    lead: bool = False
    result: Any = None


class GroupCommit(Generic[T, R]):
    """Batches concurrent :meth:`submit` calls into calls of ``write``.

    ``write(items)`` gets at most ``largest`` items and returns one result per item, in order
    (an exception instance as a result is raised in that item's caller); if ``write`` itself
    raises, every caller of the batch gets that exception."""

    def __init__(self, write: Callable[[list[T]], list[R | BaseException]],
                 largest: int = 500) -> None:
        self._write = write
        self._largest = max(1, largest)
        self._lock = threading.Lock()
        self._queue: list[_Slot[T]] = []
        self._busy = False
        #: batches written and items in them, since the process started (diagnostics, tests)
        self.batches = 0
        self.items = 0
        self._writing = threading.local()  # set while this thread (greenlet) writes a batch

    def submit(self, item: T) -> R:
        """Write ``item`` in the next batch; :returns: its result.

        :raises BaseException: the exception its batch's write gave for it (or raised)."""
        if getattr(self._writing, "on", False):  # from inside this thread's own write
            result = self._write([item])[0]
            if isinstance(result, BaseException):
                raise result
            return result
        slot: _Slot[T] = _Slot(item)
        with self._lock:
            self._queue.append(slot)
            lead = not self._busy
            self._busy = True
        if not lead:
            slot.ready.wait()
            lead = slot.lead
        if lead:
            self._write_batch()
        if isinstance(slot.result, BaseException):
            raise slot.result
        return slot.result  # type: ignore[no-any-return]

    def _write_batch(self) -> None:
        """Write the queue's first ``largest`` items (the caller's own is the first), give
        each its result, and hand over to the next queued caller, if any."""
        with self._lock:
            batch = self._queue[:self._largest]
            del self._queue[:self._largest]
            self.batches += 1
            self.items += len(batch)
        results: list[Any] = []
        self._writing.on = True
        try:
            results = list(self._write([s.item for s in batch]))
        except BaseException as exc:
            results = [exc] * len(batch)
            if not isinstance(exc, Exception):
                raise
        finally:
            self._writing.on = False
            results += [Interrupted("the batch's write was interrupted")] * (
                len(batch) - len(results))
            with self._lock:
                nxt = self._queue[0] if self._queue else None
                if nxt is None:
                    self._busy = False
                else:
                    nxt.lead = True
            for s, r in zip(batch, results):
                s.result = r
                s.ready.set()
            if nxt is not None:
                nxt.ready.set()

    @property
    def waiting(self) -> int:
        """Items queued for the next batch (for tests and diagnostics)."""
        with self._lock:
            return len(self._queue)


def indexes_by(items: list[T], key: Callable[[T], K]) -> dict[K, list[int]]:
    """The positions of ``items`` by ``key`` (a batch split into the parts that share a
    transaction, each result put back in its place), in first-seen order."""
    parts: dict[K, list[int]] = {}
    for i, item in enumerate(items):
        parts.setdefault(key(item), []).append(i)
    return parts

