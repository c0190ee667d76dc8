"""The collector's settings of a long-running server process (an engine worker, an API
process): what its boot made is kept out of the collector's walks.

CPython's collector walks every tracked object at a full (generation 2) collection; a booted
process holds ~150,000 of them (modules, plugin classes, schemas, compiled statements) that
live as long as it does. Walked at every full collection, they cost ~0.1-0.3 s of CPU each
time, during which every thread of the process waits: an engine step's or an API request's
latency, a tenth of a worker step's CPU.
"""
from __future__ import annotations

import gc

#: allocations between two collections of the young generation (CPython's default: 700)
GC_YOUNG_THRESHOLD = 7000


def settle_heap() -> None:
    """Collect once, then freeze what is left (``gc.freeze``: out of every later collection's
    walk) and collect the young generation every :data:`GC_YOUNG_THRESHOLD` allocations (a
    step or a request allocates thousands of short-lived objects). Call it once the process
    has booted, before a prefork pool forks (children inherit it and share the frozen
    pages)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
