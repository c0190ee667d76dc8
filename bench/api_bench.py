"""API benchmark at an operator's scale: read latency with many stacks, statements per request,
database size per stack before and after a purge, and a stack's 100,000 events page by page.

On PostgreSQL + Redis (127.0.0.1, a database and a Redis db number of its own) with ``stoker up``
(its API: gunicorn 2 x 4 threads, its workers, beat; no sandbox):

1. ``--stacks`` stacks (default 10,000) of one OS::Heat::None in ``--projects`` projects (100),
   created through the API by 8 clients, waited for until every one is CREATE_COMPLETE; every
   request of the bench is made as a member of its project (``X-Project-Id``, role ``member``:
   :func:`api_load.identity`), so a listing shows that project's stacks, not every project's
   as an admin's would;
2. 16 clients reading for ``--seconds`` (20) — stack list (limit 20, newest first), show,
   resource list, event list of a random stack of a random project — while 2 clients keep
   creating; p50 / p99 per route (goal: every p99 < 50 ms), and POST /stacks under that load,
   alone (one client, ``--creates`` stacks) and with ``--create-clients`` (20) clients creating
   at once (``--creates`` each), before the read load, each with the CPU every process kind
   spent per create from the first POST until every stack is complete (the engine's work
   included). Every client is a process of its own,
   a closed loop (the next request sent when the answer is read whole, no think time) over one
   keep-alive connection with a plain-socket HTTP client (``bench/api_load.py``: ~0.1 ms CPU a
   request, no GIL shared with other clients); the CPU seconds each kind of process spent
   during the read load (API, workers, PostgreSQL backends of the bench's database, clients)
   are printed per request served — the figures to compare on a shared machine;
3. SQL statements per request of each route (the same app in this process, a listener on its
   engine), with 1 stack and with all of them;
4. bytes of rows per stack (stack, resource, event, raw_template, sync_point, sync_input) with
   10 % of the stacks deleted, then after ``stoker db purge-deleted --age 0``;
5. a stack given ``--events`` events (100,000; written as rows), listed page by page (100 a
   page, by marker): per-page p50 / p99, first and last page.

``--cpu`` measures instead, in this process (no ``stoker up``): CPU time per request
(``time.process_time``) of each read route and of POST /stacks through Flask's test client, on a
PostgreSQL database of ``--stacks`` stacks (created in this process, inline) — the figure to
compare on a shared machine, where wall-clock latency is noisy (``--cpu-requests`` per route;
also the least of its batches of 30, which a busy minute inflates least) — and the Python calls
per request (cProfile's count over 50 more requests), which no load blurs.

``--profile`` runs the read route with the highest p99 300 times in this process under
cProfile and prints the functions with the most own and cumulative time.

    python bench/api_bench.py [--stacks 10000] [--projects 100] [--seconds 20] [--events 100000]
                              [--creates 20] [--create-clients 20]
    python bench/api_bench.py --cpu [--stacks 300] [--projects 10] [--cpu-requests 300]
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
import api_load  # bench/ (this script's directory, first on sys.path)

PG = os.environ.get("STOKER_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432")
REDIS = os.environ.get("STOKER_BENCH_REDIS", "redis://127.0.0.1:6379")
TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "OS::Heat::None"}}}
GOAL_P99_MS = 50.0
ROUTES = ("list", "show", "resources", "events")


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _redis_db() -> tuple[str, Any]:
    """A Redis db number nobody claimed (the tests' claim keys in db 0), claimed for this run."""
    import redis
    admin = redis.Redis.from_url(f"{REDIS}/0")
    for db in range(15, 0, -1):
        key = f"stoker-test:db{db}"
        if admin.set(key, os.getpid(), nx=True, ex=3 * 3600):
            redis.Redis.from_url(f"{REDIS}/{db}").flushdb()
            return f"{REDIS}/{db}", lambda claimed=key: admin.delete(claimed)
    raise RuntimeError("no free Redis database")


def _pg(sql: str) -> None:
    import psycopg
    with psycopg.connect(PG.replace("+psycopg", "") + "/postgres", autocommit=True) as conn:
        conn.execute(sql)


class Up:
    """``stoker up --no-sandbox`` on the bench's own PostgreSQL database and Redis db."""

    def __init__(self, data: Path, db_url: str, broker: str, workers: int) -> None:
        self.port = _free_port()
        self.env = dict(os.environ, STOKER_DATA_DIR=str(data), STOKER_DATABASE_URL=db_url,
                        STOKER_BROKER_URL=broker, STOKER_MAX_STACKS_PER_TENANT="1000000",
                        STOKER_CFN_PORT=str(_free_port()))
        self.log = open(data / "up.log", "wb")  # noqa: SIM115 (the child owns it)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "up", "--no-sandbox", "--port", str(self.port),
             "--workers", str(workers)], cwd=REPO, env=self.env, stdout=self.log,
            stderr=subprocess.STDOUT, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}/v1"
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                if requests.get(f"{self.url}/p0/stacks", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"stoker up did not answer; see {data / 'up.log'}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def _create(http: requests.Session, url: str, project: str, name: str) -> tuple[str, float]:
    t0 = time.perf_counter()
    resp = http.post(f"{url}/{project}/stacks", json={"stack_name": name, "template": TEMPLATE},
                     headers=api_load.identity(project), timeout=60)
    elapsed = time.perf_counter() - t0
    resp.raise_for_status()
    return resp.json()["stack"]["id"], elapsed


def populate(url: str, n: int, projects: int) -> list[tuple[str, str, str]]:
    """``n`` stacks created through the API by 8 clients: ``[(project, name, id)]``."""
    local = threading.local()

    def one(i: int) -> tuple[str, str, str]:
        http = getattr(local, "http", None) or requests.Session()
        local.http = http
        project, name = f"p{i % projects}", f"s{i}"
        return project, name, _create(http, url, project, name)[0]
    t0 = time.time()
    with ThreadPoolExecutor(8) as pool:
        made = list(pool.map(one, range(n)))
    print(f"created {n} stacks through the API in {time.time() - t0:.1f} s", flush=True)
    return made


def wait_complete(db_url: str, timeout: float) -> None:
    from sqlalchemy import create_engine, text
    eng = create_engine(db_url)
    deadline, t0 = time.time() + timeout, time.time()
    with eng.connect() as conn:
        while time.time() < deadline:
            left = conn.execute(text("SELECT count(*) FROM stack WHERE status = 'IN_PROGRESS'"))\
                .scalar()
            if not left:
                print(f"all stacks complete {time.time() - t0:.1f} s later", flush=True)
                eng.dispose()
                return
            time.sleep(1)
    eng.dispose()
    raise RuntimeError("stacks still in progress")


def burst(up: Up, db: str, clients: int, each: int, tag: str
          ) -> tuple[list[float], dict[str, float]]:
    """``clients`` client processes creating ``each`` stacks at once (none alone: one client),
    then waited for until complete: (POST /stacks latencies (s), {process kind: CPU s spent
    from the first POST until every stack is complete})."""
    pg = _backends(db)
    before = api_load.cpu_seconds(up.proc.pid, pg)
    posts = api_load.run(up.url, [], readers=0, creators=clients, seconds=0, template=TEMPLATE,
                         creates_each=each, tag=tag)[1]
    wait_complete(f"{PG}/{db}", 300)
    after = api_load.cpu_seconds(up.proc.pid, sorted(set(pg) | set(_backends(db))))
    return posts, api_load.cpu_delta(before, after)


def _backends(db: str) -> list[int]:
    import psycopg
    with psycopg.connect(PG.replace("+psycopg", "") + "/postgres", autocommit=True) as conn:
        return [r[0] for r in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (db,)).fetchall()]


def measured_load(up: Up, db: str, made: list[tuple[str, str, str]], a: Any
                  ) -> tuple[dict[str, list[float]], list[float], dict[str, float]]:
    """The read load (``a.readers`` reader and ``a.creators`` creator processes for
    ``a.seconds``): ``({route: [s]}, [POST s], {process kind: CPU s spent meanwhile})``."""
    snap: dict[str, Any] = {}

    def begin() -> None:
        snap["pg"] = _backends(db)
        snap["before"] = api_load.cpu_seconds(up.proc.pid, snap["pg"])
    lat, posts, client_cpu = api_load.run(up.url, made, readers=a.readers, creators=a.creators,
                                          seconds=a.seconds, template=TEMPLATE, on_start=begin)
    after = api_load.cpu_seconds(up.proc.pid, sorted(set(snap["pg"]) | set(_backends(db))))
    cpu = api_load.cpu_delta(snap["before"], after)
    cpu["clients (bench)"] = client_cpu
    return lat, posts, cpu


def print_cpu(cpu: dict[str, float], served: int) -> None:
    """CPU s by process kind over the read load, and ms of it per request served."""
    print(f"{'process':<22}{'CPU s':>8}{'CPU ms/req':>12}   ({served} requests)")
    for role, seconds in sorted(cpu.items(), key=lambda kv: -kv[1]):
        print(f"{role:<22}{seconds:>8.2f}{seconds / max(1, served) * 1000:>12.2f}")
    total = sum(cpu.values())
    print(f"{'all':<22}{total:>8.2f}{total / max(1, served) * 1000:>12.2f}")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


_CLIENT: list[Any] = []


def _local_client(db_url: str, data: Path) -> Any:
    """A test client of the API app in this process on the bench's database (made once)."""
    if not _CLIENT:
        from app import config, models
        from app.api import create_app
        # reads only: the in-process dispatcher (always_eager) is never used
        settings = config.load(data_dir=str(data / "local"), database_url=db_url,
                               always_eager=True, max_stacks_per_tenant=1000000)
        config.set_current(settings)
        models.init(db_url)
        _CLIENT.append(create_app(settings).test_client())
    return _CLIENT[0]


def statements(db_url: str, data: Path, project: str, name: str, sid: str) -> dict[str, int]:
    """SQL statements each read route runs, counted on this process's engine."""
    from sqlalchemy import event

    from app.models import base
    client, out, mine = _local_client(db_url, data), {}, threading.get_ident()
    for route, path in _route_paths(project, name, sid).items():
        seen: list[str] = []

        def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            if threading.get_ident() == mine:  # not the engine lease's heartbeat thread
                seen.append(statement)  # noqa: B023 (one route at a time)
        event.listen(base._engine, "before_cursor_execute", record)
        try:
            assert client.get(path, headers=_as_member(path)).status_code == 200
        finally:
            event.remove(base._engine, "before_cursor_execute", record)
        out[route] = len(seen)
    return out


def _as_member(path: str) -> dict[str, str]:
    """The identity headers of a member of the project a ``/v1/<project>/...`` path names."""
    return api_load.identity(path.split("/")[2])


def _route_paths(project: str, name: str, sid: str) -> dict[str, str]:
    base_url = f"/v1/{project}/stacks"
    return {"list": f"{base_url}?limit=20&sort_dir=desc&sort_keys=creation_time",
            "show": f"{base_url}/{name}/{sid}", "resources": f"{base_url}/{name}/{sid}/resources",
            "events": f"{base_url}/{name}/{sid}/events"}


def profile(db_url: str, data: Path, route: str, made: list[tuple[str, str, str]],
            requests_n: int = 300, top: int = 25) -> None:
    """``route`` served ``requests_n`` times by the app in this process under cProfile (after
    :func:`statements`): the functions with the most own time."""
    import cProfile
    import pstats
    client = _local_client(db_url, data)
    rnd = random.Random(7)
    paths = [_route_paths(*rnd.choice(made))[route] for _ in range(requests_n)]
    client.get(paths[0], headers=_as_member(paths[0]))  # warm
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for path in paths:
        assert client.get(path, headers=_as_member(path)).status_code == 200
    prof.disable()
    took = (time.perf_counter() - t0) / requests_n * 1000
    print(f"\nprofile of {route}: {took:.1f} ms a request in this process (under cProfile)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)
    pstats.Stats(prof).sort_stats("cumulative").print_stats(top)


class _NoDispatch:
    """A dispatcher that drops the work: POST /stacks measured alone, not the engine after it."""

    def check_resource(self, *args: Any, **kwargs: Any) -> None:
        pass

    check_resources = safety_poll = check_resource


def cpu_per_request(n_stacks: int, projects: int, requests_n: int) -> None:
    """CPU ms per request (``time.process_time``, this process: API code and the driver, not
    PostgreSQL's) of each read route and of POST /stacks, through Flask's test client on a new
    PostgreSQL database of ``n_stacks`` stacks created inline; prints a table."""
    from app.convergence import runtime
    from app.models import base, migrate
    from app.services import wiring
    name = f"stoker_bench_{uuid.uuid4().hex[:8]}"
    _pg(f'CREATE DATABASE "{name}"')
    db_url = f"{PG}/{name}"
    data = Path(tempfile.mkdtemp(prefix="api_bench_cpu_"))
    try:
        migrate.upgrade(db_url)
        client = _local_client(db_url, data)
        made = []
        for i in range(n_stacks):
            project, sname = f"p{i % projects}", f"s{i}"
            resp = client.post(f"/v1/{project}/stacks", headers=api_load.identity(project),
                               json={"stack_name": sname, "template": TEMPLATE})
            assert resp.status_code == 201, resp.get_data(as_text=True)
            made.append((project, sname, resp.get_json()["stack"]["id"]))
        print(f"{n_stacks} stacks in {projects} projects (created inline)", flush=True)
        rnd = random.Random(7)
        print(f"{'route':<14}{'CPU ms/req':>11}{'wall ms/req':>12}{'n':>6}{'calls/req':>11}"
              f"{'least batch':>13}")
        for route in ROUTES:
            paths = [_route_paths(*rnd.choice(made))[route] for _ in range(requests_n)]
            for path in paths[:20]:  # warm: caches, prepared statements
                assert client.get(path, headers=_as_member(path)).status_code == 200
            batches: list[float] = []
            c0, w0 = time.process_time(), time.perf_counter()
            for start in range(0, requests_n, BATCH):
                b0 = time.process_time()
                for path in paths[start:start + BATCH]:
                    assert client.get(path, headers=_as_member(path)).status_code == 200
                batches.append((time.process_time() - b0) / len(paths[start:start + BATCH]))
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            calls = calls_per_request(lambda path: client.get(path, headers=_as_member(path)).status_code == 200,
                                      paths[:CALLS_REQUESTS])
            print(f"{route:<14}{cpu / requests_n * 1000:>11.2f}"
                  f"{wall / requests_n * 1000:>12.2f}{requests_n:>6}{calls:>11.0f}"
                  f"{min(batches) * 1000:>13.2f}", flush=True)
        settings = config_current()
        runtime.configure(wiring.compose(settings, _NoDispatch()))
        posts = [(f"p{i % projects}", f"cpu{i}") for i in range(requests_n + CALLS_REQUESTS)]

        def post(project_name: tuple[str, str]) -> bool:
            return bool(client.post(f"/v1/{project_name[0]}/stacks",
                                    headers=api_load.identity(project_name[0]), json={
                "stack_name": project_name[1], "template": TEMPLATE}).status_code == 201)
        post_batches: list[float] = []
        c0, w0 = time.process_time(), time.perf_counter()
        for start in range(0, requests_n, BATCH):
            b0 = time.process_time()
            for one in posts[start:min(start + BATCH, requests_n)]:
                assert post(one)
            post_batches.append((time.process_time() - b0)
                                / len(posts[start:min(start + BATCH, requests_n)]))
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        calls = calls_per_request(post, posts[requests_n:])
        print(f"{'POST /stacks':<14}{cpu / requests_n * 1000:>11.2f}"
              f"{wall / requests_n * 1000:>12.2f}{requests_n:>6}{calls:>11.0f}"
              f"{min(post_batches) * 1000:>13.2f}  (work enqueued, not run)")
    finally:
        if base._engine is not None:
            base._engine.dispose()
        _pg(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


#: requests counted under cProfile for a route's Python calls per request
CALLS_REQUESTS = 50
#: requests a batch of ``--cpu``: the least CPU a request of any batch is the figure a busy
#: minute of the shared machine inflates least
BATCH = 30


def calls_per_request(send: Any, items: list[Any]) -> float:
    """Python function calls (cProfile's total, C functions included) per ``send(item)``: a
    route's CPU as a count, which a loaded machine does not blur."""
    import cProfile
    import pstats
    prof = cProfile.Profile()
    prof.enable()
    for item in items:
        assert send(item)
    prof.disable()
    return pstats.Stats(prof).total_calls / len(items)  # type: ignore[attr-defined]


def config_current() -> Any:
    from app import config
    return config.get()


TABLES = ("stack", "resource", "event", "raw_template", "sync_point", "sync_input")


def row_bytes(db_url: str) -> tuple[int, int]:
    """(bytes of the rows of :data:`TABLES`, stack rows)."""
    from sqlalchemy import create_engine, text
    eng = create_engine(db_url)
    with eng.connect() as conn:
        total = sum(int(conn.execute(text(f"SELECT coalesce(sum(pg_column_size(t.*)), 0) "
                                          f"FROM {t} AS t")).scalar() or 0) for t in TABLES)
        stacks = int(conn.execute(text("SELECT count(*) FROM stack")).scalar() or 0)
    eng.dispose()
    return total, stacks


def delete_some(url: str, made: list[tuple[str, str, str]], fraction: float) -> int:
    chosen = made[:: max(1, int(1 / fraction))]
    http = requests.Session()
    for project, name, sid in chosen:
        http.delete(f"{url}/{project}/stacks/{name}/{sid}", headers=api_load.identity(project),
                    timeout=60).raise_for_status()
    return len(chosen)


def many_events(db_url: str, sid: str, n: int) -> None:
    from sqlalchemy import create_engine, insert

    from app.models import Event
    eng = create_engine(db_url)
    with eng.begin() as conn:
        for start in range(0, n, 10000):
            conn.execute(insert(Event), [
                {"uuid": str(uuid.uuid4()), "stack_id": sid, "resource_name": "r",
                 "resource_type": "OS::Heat::None", "action": "UPDATE", "status": "COMPLETE",
                 "status_reason": "state changed"} for _ in range(start, min(n, start + 10000))])
    eng.dispose()


def page_through(url: str, project: str, name: str, sid: str, page: int) -> list[float]:
    http, marker, lat, seen = requests.Session(), "", [], 0
    while True:
        path = f"{url}/{project}/stacks/{name}/{sid}/events?limit={page}&sort_dir=asc" + (
            f"&marker={marker}" if marker else "")
        t0 = time.perf_counter()
        resp = http.get(path, headers=api_load.identity(project), timeout=60)
        lat.append(time.perf_counter() - t0)
        resp.raise_for_status()
        events = resp.json()["events"]
        if not events:
            break
        seen += len(events)
        marker = events[-1]["id"]
    print(f"listed {seen} events in {len(lat)} requests, {sum(lat):.1f} s", flush=True)
    return lat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stacks", type=int, help="10000; --cpu: 300 (created inline)")
    ap.add_argument("--projects", type=int, help="100; --cpu: 10")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--readers", type=int, default=16)
    ap.add_argument("--creators", type=int, default=2)
    ap.add_argument("--events", type=int, default=100000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--creates", type=int, default=20, help="creates per client, alone and burst")
    ap.add_argument("--create-clients", type=int, default=20)
    ap.add_argument("--profile", action="store_true",
                    help="profile the route with the highest p99 in this process (cProfile)")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU ms per request of each route in this process (no stoker up)")
    ap.add_argument("--cpu-requests", type=int, default=300)
    a = ap.parse_args()
    a.stacks = a.stacks or (300 if a.cpu else 10000)
    a.projects = a.projects or (10 if a.cpu else 100)
    if a.cpu:
        cpu_per_request(a.stacks, a.projects, a.cpu_requests)
        return
    name = f"stoker_bench_{uuid.uuid4().hex[:8]}"
    _pg(f'CREATE DATABASE "{name}"')
    db_url = f"{PG}/{name}"
    broker, release = _redis_db()
    data = Path(tempfile.mkdtemp(prefix="api_bench_"))
    up = None
    try:
        up = Up(data, db_url, broker, a.workers)
        made = populate(up.url, a.stacks, a.projects)
        wait_complete(db_url, 600 + a.stacks / 10)
        alone, alone_cpu = burst(up, name, 1, a.creates, "alone")
        many, many_cpu = burst(up, name, a.create_clients, a.creates, "burst")
        lat, posts, cpu = measured_load(up, name, made, a)
        wait_complete(db_url, 300)
        reads = sum(len(v) for v in lat.values())
        print(f"\n{a.stacks} stacks in {a.projects} projects; {a.readers} readers, "
              f"{a.creators} creators, {a.seconds:.0f} s: {reads / a.seconds:.0f} reads/s, "
              f"{len(posts) / a.seconds:.1f} creates/s")
        print_cpu(cpu, reads + len(posts))
        counts = statements(db_url, data, *made[0])
        print(f"{'route':<12}{'p50 ms':>9}{'p99 ms':>9}{'n':>7}{'SQL/req':>9}  goal p99 < 50 ms")
        for route in ROUTES:
            p99 = pct(lat[route], 0.99)
            print(f"{route:<12}{pct(lat[route], 0.5):>9.1f}{p99:>9.1f}{len(lat[route]):>7}"
                  f"{counts[route]:>9}  {'met' if p99 < GOAL_P99_MS else 'MISSED'}")
        print(f"{'POST /stacks':<12}{pct(posts, 0.5):>9.1f}{pct(posts, 0.99):>9.1f}{len(posts):>7}"
              f"  under the read load, {a.creators} creating")
        print(f"{'POST alone':<12}{pct(alone, 0.5):>9.1f}{pct(alone, 0.99):>9.1f}{len(alone):>7}"
              "  one client, nothing else running")
        print(f"{'POST x' + str(a.create_clients):<12}{pct(many, 0.5):>9.1f}"
              f"{pct(many, 0.99):>9.1f}{len(many):>7}  {a.create_clients} clients creating at once")
        print("\nCPU per create (POST until complete), alone:")
        print_cpu(alone_cpu, len(alone))
        print(f"with {a.create_clients} clients creating at once:")
        print_cpu(many_cpu, len(many))

        if a.profile:
            slowest = max(ROUTES, key=lambda r: pct(lat[r], 0.99))
            profile(db_url, data, slowest, made)

        deleted = delete_some(up.url, made, 0.1)
        wait_complete(db_url, 600)
        before, n_before = row_bytes(db_url)
        from app.services import purge
        t0 = time.time()
        removed = purge.purge_deleted(0, "seconds")
        took = time.time() - t0
        after, n_after = row_bytes(db_url)
        print(f"\n{deleted} stacks deleted; row bytes per stack row: {before / n_before:.0f} "
              f"({n_before} rows) before the purge, {after / max(1, n_after):.0f} "
              f"({n_after} rows) after; purge removed {removed} in {took:.1f} s")

        project, sname, sid = made[-1]
        many_events(db_url, sid, a.events)
        pages = page_through(up.url, project, sname, sid, 100)
        print(f"{a.events} events, 100 a page: page p50 {pct(pages, 0.5):.1f} ms, "
              f"p99 {pct(pages, 0.99):.1f} ms, first {pages[0] * 1000:.1f} ms, "
              f"last full {pages[-2] * 1000:.1f} ms")
    finally:
        if up is not None:
            up.stop()
        from app.models import base
        if base._engine is not None:
            base._engine.dispose()
        _pg(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        release()


if __name__ == "__main__":
    main()
