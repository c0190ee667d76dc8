"""A worker's CPU profile, on request: ``STOKER_PROFILE_DIR=/some/dir celery -A app.tasks worker``.

Every thread that runs tasks gets its own ``cProfile.Profile`` timed by ``time.thread_time`` (CPU
seconds of that thread, so a call blocked on a socket costs what it costs: nothing), enabled
around each task; the worker's main thread (the consumer: fetching, decoding and dispatching
messages) has one from ``worker_init`` on. At shutdown the profiles are merged into
``<dir>/worker-<pid>.prof`` (``python -m pstats`` reads it). Under the gevent pool every
greenlet shares the main thread, whose one profile then covers everything (greenlet switches
blur the call attribution a little, not the totals). Off (no cost) when the setting is empty.
"""
from __future__ import annotations

import cProfile
import os
import pstats
import threading
import time
from pathlib import Path
from typing import Any

from celery import signals

from app import config

_profiles: dict[int, cProfile.Profile] = {}
_lock = threading.Lock()
_main: int | None = None


def _profile() -> cProfile.Profile:
    ident = threading.get_ident()
    prof = _profiles.get(ident)
    if prof is None:
        with _lock:
            prof = _profiles[ident] = cProfile.Profile(time.thread_time)
    return prof


def install() -> None:
    """Connect the profiling hooks when ``profile_dir`` is set (called by the worker's init)."""
    global _main
    if not config.get().profile_dir or _main is not None:
        return
    _main = threading.get_ident()
    _profile().enable()
    if not _green():  # OS threads: one profile each, on while a task runs
        signals.task_prerun.connect(_start, weak=False)
        signals.task_postrun.connect(_stop, weak=False)
    signals.worker_shutdown.connect(_dump, weak=False)


def _green() -> bool:
    """Whether gevent patched ``threading`` (greenlets then share the main thread's profile)."""
    import sys
    monkey = sys.modules.get("gevent.monkey")
    return bool(monkey and monkey.is_module_patched("threading"))


def _start(**_: Any) -> None:
    if threading.get_ident() != _main:
        _profile().enable()


def _stop(**_: Any) -> None:
    if threading.get_ident() != _main:
        _profile().disable()


def _dump(**_: Any) -> None:
    """Merge every thread's profile into ``<profile_dir>/worker-<pid>.prof``."""
    _profile().disable()
    profiles = [p for p in _profiles.values() if p.getstats()]
    if not profiles:
        return
    out = Path(config.get().profile_dir) / f"worker-{os.getpid()}.prof"
    out.parent.mkdir(parents=True, exist_ok=True)
    stats = pstats.Stats(profiles[0])
    for p in profiles[1:]:
        stats.add(p)
    stats.dump_stats(str(out))
