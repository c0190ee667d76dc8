"""A worker's memory over a ResourceGroup's create and delete: RSS and what Python retains.

One process runs the engine as :mod:`bench.step_cost` does (the real dispatcher into a local
queue, drained by the worker tasks' bodies) over a ResourceGroup of ``n`` ``OS::Heat::None`` at
each size, in turn. After each create + delete and a ``gc.collect()`` it prints the RSS, its peak
over that round (``VmHWM``, reset before each round), and with ``--trace`` the Python allocations
``tracemalloc`` sees: at the peak of the round (after the create) and retained after the delete,
each against the start of the round, the top ``--top`` by traceback. A flat worker shows the
same retained figures at every size.

    python bench/group_memory.py [--sizes 2000,5000,10000] [--db pg|sqlite] [--trace] [--top 15]
"""
from __future__ import annotations

import argparse
import gc
import sys
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.engine_bench import group_template, template
from bench.step_cost import drain as step_drain
from bench.step_cost import setup


class Peak:
    """The traced snapshot taken when the traced memory was highest, sampled every ``every``
    messages of a drain (None: not tracing)."""

    def __init__(self, every: int = 100) -> None:
        self.every, self.size, self.snapshot = every, 0, None

    def sample(self) -> None:
        now = tracemalloc.get_traced_memory()[0]
        if now > self.size * 1.02:
            self.size, self.snapshot = now, tracemalloc.take_snapshot()


def drain(d: Any, peak: Peak | None) -> None:
    """:func:`bench.step_cost.drain`, sampling the traced memory's peak."""
    k = [0]

    def each() -> None:
        k[0] += 1
        if peak is not None and k[0] % peak.every == 0:
            peak.sample()
    step_drain(d, each)


def status_mb(field: str) -> float:
    """This process's ``field`` of /proc/self/status (VmRSS, VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def reset_peak() -> None:
    """Start VmHWM again from the current RSS (Linux: clear_refs 5)."""
    Path("/proc/self/clear_refs").write_text("5")


def show(title: str, new: Any, old: Any, top: int) -> None:
    stats = new.compare_to(old, "traceback")
    total = sum(s.size_diff for s in stats)
    print(f"  {title}: {total / 2**20:+.1f} MB traced, top {top} by traceback:")
    for s in stats[:top]:
        frames = [f for f in reversed(s.traceback) if "/app/" in f.filename] \
            or list(reversed(s.traceback))  # the most recent first
        where = " <- ".join(f"{'/'.join(Path(f.filename).parts[-2:])}:{f.lineno}"
                            for f in frames[:5])
        print(f"    {s.size_diff / 2**20:+8.2f} MB {s.count_diff:+8d} blocks  {where}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000,5000,10000")
    ap.add_argument("--db", default="pg", choices=("sqlite", "pg"))
    ap.add_argument("--fleet", type=int, default=8)
    ap.add_argument("--trace", action="store_true", help="tracemalloc snapshots (slower)")
    ap.add_argument("--trim", action="store_true",
                    help="then give the C heap's free pages back (glibc malloc_trim) and show the RSS")
    ap.add_argument("--frames", type=int, default=12)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    d = setup(a.db, max(int(s) for s in a.sizes.split(",")), a.fleet)
    from app.context import RequestContext
    from app.convergence.store import definitions
    from app.services import stacks
    ctx = RequestContext(tenant_id="mem")
    st = stacks.create_stack(ctx, stack_name="warm", template=template(5, False))
    drain(d, None)
    stacks.delete_stack(ctx, st.name, st.id)
    drain(d, None)
    import app.tasks.worker
    app.tasks.worker.settle_heap()
    if a.trace:
        tracemalloc.start(a.frames)
    print(f"# ResourceGroup of OS::Heat::None, {a.db}, one process (API + workers), "
          f"fleet of {a.fleet} emulated; start RSS {status_mb('VmRSS'):.0f} MB")
    for k, n in enumerate(int(s) for s in a.sizes.split(",")):
        gc.collect()
        start = tracemalloc.take_snapshot() if a.trace else None
        start_size = tracemalloc.get_traced_memory()[0] if a.trace else 0
        rss0 = status_mb("VmRSS")
        reset_peak()
        peak = Peak() if a.trace else None
        if a.trace:
            tracemalloc.reset_peak()
        st = stacks.create_stack(ctx, stack_name=f"g{k}", template=group_template(n))
        definitions.forget(st.id)
        drain(d, peak)
        created = stacks.get_by_id(ctx, st.id).stack_status
        mid = tracemalloc.take_snapshot() if a.trace else None
        rss_mid = status_mb("VmRSS")
        stacks.delete_stack(ctx, st.name, st.id)
        definitions.forget(st.id)
        drain(d, peak)
        deleted = stacks.get_by_id(ctx, st.id).stack_status
        gc.collect()
        rss1, hwm = status_mb("VmRSS"), status_mb("VmHWM")
        print(f"n={n:6d} {created}/{deleted}: RSS {rss0:.0f} -> {rss_mid:.0f} (created) -> "
              f"{rss1:.0f} MB (deleted, collected), peak {hwm:.0f} MB; "
              f"retained {rss1 - rss0:+.0f} MB")
        if a.trim:
            import ctypes
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            print(f"  after malloc_trim(0): RSS {status_mb('VmRSS'):.0f} MB")
        if a.trace:
            end = tracemalloc.take_snapshot()
            print(f"  traced peak {(tracemalloc.get_traced_memory()[1] - start_size) / 2**20:+.1f} MB")
            show("at the sampled peak", peak.snapshot, start, a.top)
            show("after the create", mid, start, a.top)
            show("retained after the delete", end, start, a.top)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
