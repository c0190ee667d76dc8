"""The cost of one resource's create and delete: SQL statements, broker messages and CPU.

One process drives a create and a delete of ``n`` ``OS::Heat::None`` (wide or chained) as the
fleet would, without Celery's own cost: the engine's real dispatcher (its batching of wide
fan-outs, the continuation a single-step task keeps) publishes into an in-process queue, and the
queue is drained by the bodies of the worker tasks (``app.tasks.worker``), which start without the
definition the API's create cached, as a worker process does (each process of a fleet loads it
once; ``--warm-definitions``: not). Every statement (counted by
an SQLAlchemy ``before_cursor_execute`` listener, grouped by its verb and table), every message
(by task name) and the CPU time (``time.process_time``) are reported per resource, split into
the API's part (the request) and the workers' part (the traversal).

    python bench/step_cost.py [--n 200] [--db sqlite|pg] [--shape wide|chain|group|cern]
                              [--fleet 8] [--profile 25]
"""
from __future__ import annotations

import argparse
import atexit
import collections
import contextlib
import cProfile
import io
import pstats
import random
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.engine_bench import MEMBER, cern_template, group_template, template

_VERB = re.compile(r"^\s*(?:WITH\b.*?\)\s*)?(INSERT INTO|UPDATE|DELETE FROM|SELECT|BEGIN|"
                   r"COMMIT|ROLLBACK|PRAGMA|SAVEPOINT|RELEASE)\s*(\S*)", re.DOTALL | re.IGNORECASE)
_FROM = re.compile(r"\bFROM\s+(\w+)", re.IGNORECASE)


def kind(statement: str) -> str:
    """A statement's verb and first table: ``UPDATE resource``, ``SELECT stack``..."""
    m = _VERB.match(statement)
    if not m:
        return statement.split(None, 1)[0].upper()
    verb, table = m.group(1).upper(), m.group(2).strip('"(').lower()
    if verb == "SELECT":
        f = _FROM.search(statement)
        table = f.group(1).lower() if f else ""
    if statement.lstrip().upper().startswith("WITH"):
        verb = "WITH " + verb
    return f"{verb} {table}".strip()


class Counts:
    """Statements by kind and transactions, while :attr:`on`."""

    def __init__(self) -> None:
        self.statements: collections.Counter[str] = collections.Counter()
        self.rows = 0
        self.commits = 0
        self.on = True

    def install(self) -> None:
        from sqlalchemy import event
        from sqlalchemy.engine import Engine

        @event.listens_for(Engine, "before_cursor_execute")
        def _count(conn: Any, cursor: Any, statement: str, params: Any, context: Any,
                   executemany: bool) -> None:
            if self.on and not statement.lstrip().upper().startswith(("BEGIN", "PRAGMA")):
                self.statements[kind(statement)] += 1

        @event.listens_for(Engine, "begin")
        def _begin(conn: Any) -> None:  # BEGIN (a statement on SQLite), however it is issued
            if self.on:
                self.statements["BEGIN"] += 1

        @event.listens_for(Engine, "commit")
        def _commit(conn: Any) -> None:
            if self.on:
                self.commits += 1

    def take(self) -> tuple[collections.Counter[str], int]:
        out, commits = self.statements, self.commits
        self.statements, self.commits = collections.Counter(), 0
        return out, commits


class QueueDispatcher:
    """The Celery dispatcher's logic (batches, continuation), publishing into a local queue."""

    def __new__(cls, fleet: int) -> Any:
        from app.tasks.dispatcher import CeleryDispatcher

        queue: collections.deque[tuple[str, tuple[Any, ...]]] = collections.deque()
        sent: collections.Counter[str] = collections.Counter()

        class _Producer:
            def batch(self) -> contextlib.AbstractContextManager[None]:
                return contextlib.nullcontext()

        class _App:
            def producer_or_acquire(self) -> contextlib.AbstractContextManager[_Producer]:
                return contextlib.nullcontext(_Producer())

        class Local(CeleryDispatcher):
            labelled = False

            def _send_step(self, stack_id: str, traversal_id: str, resource_id: int,
                           is_update: bool, countdown: float, **options: Any) -> None:
                name = "poll_resource" if countdown > 0 else "check_resource"
                sent[name] += 1
                queue.append((name, (stack_id, traversal_id, resource_id, is_update)))

            def _send(self, stack_id: str, traversal_id: str, group: list[Any],
                      **options: Any) -> None:
                if len(group) == 1:
                    self._send_step(stack_id, traversal_id, *group[0], 0.0)
                    return
                sent["check_resources"] += 1
                queue.append(("check_resources", (stack_id, traversal_id, group)))

            def _backlog(self, producer: Any) -> int:  # beyond what the fleet reserved
                return max(0, len(queue) - 4 * fleet)

            def job(self, name: str, args: tuple[Any, ...]) -> None:
                sent[name] += 1

        d = Local(_App())  # type: ignore[arg-type]
        d.parallelism = fleet
        d.queue, d.sent = queue, sent  # type: ignore[attr-defined]
        return d


def drain(d: Any, each: Callable[[], None] | None = None) -> None:
    """Run the queued messages as workers would, in order, until none is left (``each``
    called after every message)."""
    from app.services import engine
    from app.tasks.worker import _step_and_continue
    while d.queue:
        name, args = d.queue.popleft()
        if name == "check_resources":
            engine.check_resources(args[0], args[1], [tuple(n) for n in args[2]])
        else:
            _step_and_continue(*args)
        if each is not None:
            each()


def setup(db: str, n: int, fleet: int) -> Any:
    random.seed(38)  # the event purge draws (event_retention): the same on every run
    from app import config, models
    from app.convergence import runtime
    from app.models import migrate
    from app.services import wiring
    tmp = tempfile.mkdtemp(prefix="stoker-step-cost-")
    overrides: dict[str, Any] = {}
    if db == "pg":
        import psycopg
        name = f"stoker_cost_{uuid.uuid4().hex[:8]}"
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres",
                             autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        overrides["database_url"] = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        atexit.register(_drop, name)
    settings = config.load({}, data_dir=tmp, max_resources_per_stack=max(1000, n + 1),
                           workers=max(1, fleet // 4), worker_concurrency=min(4, fleet),
                           **overrides)
    config.set_current(settings)
    migrate.upgrade(settings.database_url)
    models.init(settings.database_url)
    d = QueueDispatcher(fleet)
    runtime.configure(wiring.compose(settings, d))
    return d


def _drop(name: str) -> None:
    """Drop this run's PostgreSQL database (its connections closed first)."""
    import psycopg

    from app import models
    models.get_engine().dispose()
    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--db", default="sqlite", choices=("sqlite", "pg"))
    ap.add_argument("--shape", default="wide", choices=("wide", "chain", "group", "cern"),
                    help="group: one ResourceGroup of n members (counted per member); cern: a "
                         "ResourceGroup of n provider-template members of 22 resources (per member)")
    ap.add_argument("--fleet", type=int, default=8, help="worker threads of the fleet emulated")
    ap.add_argument("--profile", type=int, default=0, help="print the top N of cProfile (-1: the count of calls only)")
    ap.add_argument("--statements", action="store_true", help="list statements by kind")
    ap.add_argument("--warm-definitions", dest="cold", action="store_false",
                    help="let the workers use the definition the API's create cached (a worker "
                         "process of the fleet loads it once: the default counts that load)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="create and delete this many stacks; the CPU shown is the least")
    a = ap.parse_args()
    d = setup(a.db, a.n * 23 if a.shape == "cern" else a.n, a.fleet)  # cern: the tree counts
    from app.context import RequestContext
    from app.services import stacks
    counts = Counts()
    counts.install()
    ctx = RequestContext(tenant_id="cost")
    # a warm-up stack: imports, compiled statements and caches as a running fleet has them
    st = stacks.create_stack(ctx, stack_name="warm", template=template(5, a.shape == "chain"))
    drain(d)
    stacks.delete_stack(ctx, st.name, st.id)
    drain(d)
    counts.take()
    d.sent.clear()
    import app.tasks.worker
    settle = getattr(app.tasks.worker, "settle_heap", None)  # what a worker's boot does to its heap
    if settle is not None:
        settle()
    prof: Any = cProfile.Profile() if a.profile else None
    if prof:
        prof.api = cProfile.Profile()  # the API's calls, counted apart
    best: dict[str, tuple[Any, ...]] = {}
    for k in range(a.repeat):
        for row in _round(d, counts, ctx, a, prof, f"s{k}"):
            if row[0] not in best or row[1] + row[5] < best[row[0]][1] + best[row[0]][5]:
                best[row[0]] = row
    rows = [best["create"], best["delete"]]
    report(rows, a, "every phase COMPLETE", prof)


def _round(d: Any, counts: Counts, ctx: Any, a: Any, prof: Any, name: str) -> list[tuple[Any, ...]]:
    """One create and delete: per phase its API's and its workers' statements, CPU, messages."""
    from app.services import stacks
    rows = []
    for phase in ("create", "delete"):
        body = group_template(a.n) if a.shape == "group" else cern_template(a.n) \
            if a.shape == "cern" else template(a.n, a.shape == "chain")
        files = {"member.yaml": MEMBER} if a.shape == "cern" else None
        c0, t0 = time.process_time(), time.perf_counter()
        if prof:
            prof.api.enable()
        if phase == "create":
            st = stacks.create_stack(ctx, stack_name=name, template=body, files=files)
        else:
            stacks.delete_stack(ctx, st.name, st.id)
        if prof:
            prof.api.disable()
        api_cpu = time.process_time() - c0
        api_stmts, api_commits = counts.take()
        api_msgs = sum(d.sent.values())
        if a.cold:  # a worker process has not loaded the definition the API's create cached
            from app.convergence.store import definitions
            definitions.forget(st.id)
        c1 = time.process_time()
        if prof:
            prof.enable()
        drain(d)
        if prof:
            prof.disable()
        w_cpu = time.process_time() - c1
        wall = time.perf_counter() - t0
        w_stmts, w_commits = counts.take()
        msgs = dict(d.sent)
        d.sent.clear()
        rows.append((phase, api_cpu, api_stmts, api_commits, api_msgs, w_cpu, w_stmts,
                     w_commits, msgs, wall))
        if stacks.get_by_id(ctx, st.id).status != "COMPLETE":
            raise SystemExit(f"{phase}: {stacks.get_by_id(ctx, st.id).stack_status}")
    return rows


def report(rows: list[tuple[Any, ...]], a: Any, final: str, prof: Any) -> None:
    n = a.n
    print(f"# {n} OS::Heat::None {a.shape}, {a.db}, fleet of {a.fleet} threads emulated: {final}")
    print(f"{'phase':7} {'api stm/r':>9} {'api cpu ms/r':>12} {'wrk stm/r':>9} "
          f"{'wrk tx/r':>8} {'msgs/r':>7} {'wrk cpu ms/r':>12} {'wall s':>7}  messages")
    tot = collections.Counter()
    for phase, api_cpu, api_s, _api_c, api_m, w_cpu, w_s, w_c, msgs, wall in rows:
        print(f"{phase:7} {sum(api_s.values()) / n:9.2f} {api_cpu * 1000 / n:12.3f} "
              f"{sum(w_s.values()) / n:9.2f} {w_c / n:8.2f} "
              f"{(sum(msgs.values()) - api_m) / n + api_m / n:7.3f} {w_cpu * 1000 / n:12.3f} "
              f"{wall:7.2f}  {msgs}")
        tot.update(w_s)
        tot.update(api_s)
    total_cpu = sum(r[1] + r[5] for r in rows) * 1000 / n
    total_st = sum(tot.values()) / n
    print(f"total: {total_st:.2f} statements/resource, {total_cpu:.3f} ms CPU/resource "
          "(create + delete, API + workers, no Celery)")
    if a.statements:
        for phase, _, api_s, _, _, _, w_s, _, _, _ in rows:
            print(f"\n{phase}: statements per resource (api + workers), by kind")
            both = api_s + w_s
            for k, v in both.most_common():
                print(f"  {v / n:8.3f}  {v:6d}  {k}")
    if prof:
        out = io.StringIO()
        ps = pstats.Stats(prof, stream=out)
        api_calls = pstats.Stats(prof.api).total_calls if prof.api.getstats() else 0
        print(f"workers: {ps.total_calls / (n * a.repeat):.0f} Python function calls/resource, "
              f"API: {api_calls / (n * a.repeat):.0f} (create + delete; a CPU measure a loaded "
              "machine does not change)")
        if a.profile < 0:
            return
        ps.sort_stats("tottime").print_stats(a.profile)
        ps.sort_stats("cumulative").print_stats(a.profile * 2)
        print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


if __name__ == "__main__":
    main()
