"""Scaling benchmark: an OS::Heat::AutoScalingGroup of sandbox servers scaled from 1
to ``--n`` (default 50) members and back to 1 with 1 s per mutating cloud call, through
``app.services.scaling.adjust`` (what a policy's signal runs), on real ``celery worker``
processes: wall time versus the ideal, printed as a table with ratios.

The group: ``OS::Nova::Server`` members (cirros, m1.tiny, on the sandbox's ``private`` network)
with ``min_size`` 1, ``max_size`` ``--n``, cooldown 0. A scaling is timed from the ``adjust``
call to the end of the scaling: the child stack's UPDATE complete with the new number of
members and the group's "scaling in progress" mark gone (its cooldown started, its attributes
resolved again).

Latency: as bench/cloud_bench.py (``latency_rules``): ``--latency`` (1 s) on every mutating
Nova/Neutron/Cinder request, ``--read-latency`` (0.05 s) on everything else; the sandbox's
transition delays keep their defaults (server_build 1 s, server_delete 0.5 s), so they are on
the critical path.

The ideal is measured: the same fleet scaling the same group by one member (1 -> 2, then
2 -> 1), best of ``--ideal-runs``; every member of a scaling is independent of the others, so
the critical path of 1 -> N is that of one member. The analytic lower bound is one mutating
call (the server's POST, or its DELETE) x latency, plus the transition delay. "thread bound" is
the floor set by threads blocked in HTTP calls: (N - 1) calls x latency / (workers x threads).

    python bench/scaling_bench.py                    # N=50, 2 workers x 16 threads, pg
    python bench/scaling_bench.py --n 20 --concurrency 4,16 --mode embedded

Figures measured over time are in docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.cloud_bench import TENANT, Sandbox, _settled, drop_database, latency_rules, unlimited_quotas
from bench.engine_bench import Fleet, init_engine, setup


def template(max_size: int) -> dict[str, Any]:
    """The group of 1..``max_size`` sandbox servers; ``size`` is its ``current_size``."""
    return {"heat_template_version": "2018-08-31", "resources": {"group": {
        "type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": 1, "max_size": max_size, "cooldown": 0,
            "resource": {"type": "OS::Nova::Server", "properties": {
                "image": "cirros", "flavor": "m1.tiny",
                "networks": [{"network": "private"}]}}}}},
        "outputs": {"size": {"value": {"get_attr": ["group", "current_size"]}}}}


def _wait_stack(ctx: Any, stack_id: str, timeout: float = 600) -> Any:
    from app.services import stacks
    deadline = time.monotonic() + timeout
    while True:
        st = stacks.get_by_id(ctx, stack_id)
        if st.status != "IN_PROGRESS":
            return st
        if time.monotonic() > deadline:
            raise RuntimeError(f"stack {st.name} still {st.stack_status}")
        time.sleep(0.05)


def _scaled(stack_id: str, size: int, timeout: float = 1200) -> None:
    """Wait until the group's scaling to ``size`` ended. :raises RuntimeError: it failed."""
    from sqlalchemy import select

    from app.models import Resource, Stack, read_session
    deadline = time.monotonic() + timeout
    while True:
        with read_session() as s:
            row = s.execute(select(Resource).where(Resource.stack_id == stack_id,
                                                   Resource.name == "group")).scalar_one()
            child = s.get(Stack, row.physical_resource_id)
            live = s.execute(select(Resource.id).where(
                Resource.stack_id == row.physical_resource_id,
                Resource.action != "DELETE")).all() if child else []
            ended = "scaling_op" not in (row.rsrc_data or {})
            status = (child.action, child.status) if child else None
        if ended and status is not None and status[1] != "IN_PROGRESS":
            if status != ("UPDATE", "COMPLETE") or len(live) != size:
                raise RuntimeError(f"scaling to {size} ended {status} with {len(live)} members")
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"scaling to {size} still going after {timeout:.0f} s")
        time.sleep(0.05)


def scale(stack_id: str, size: int) -> float:
    """Seconds from the ``adjust`` call (exact capacity ``size``) to the scaling's end."""
    from app.services import scaling
    t0 = time.perf_counter()
    if scaling.adjust(stack_id, "group", size, "exact_capacity") != size:
        raise RuntimeError(f"adjust did not aim at {size}")
    _scaled(stack_id, size)
    return time.perf_counter() - t0


def measure(ctx: Any, name: str, n: int) -> tuple[float, float]:
    """Create the group at 1, scale it to ``n`` and back to 1, delete it.
    :returns: (up s, down s)."""
    from app.services import stacks
    st = stacks.create_stack(ctx, stack_name=name, template=template(max(n, 2)))
    st = _wait_stack(ctx, st.id)
    if st.stack_status != "CREATE_COMPLETE":
        raise RuntimeError(f"create: {st.stack_status} {st.status_reason}")
    up = scale(st.id, n)
    down = scale(st.id, 1)
    stacks.delete_stack(ctx, st.name, st.id)
    st = _wait_stack(ctx, st.id)
    if st.stack_status != "DELETE_COMPLETE":
        raise RuntimeError(f"delete: {st.stack_status} {st.status_reason}")
    return up, down


HEAD = (f"{'N':>4} {'workers x threads':>17} {'1->N s':>8} {'N->1 s':>8} {'ideal up':>9} "
        f"{'ideal dn':>9} {'up/ideal':>9} {'dn/ideal':>9} {'thread bound s':>15}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=50, help="members at the top")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--concurrency", default="16", help="threads per worker, comma-separated")
    ap.add_argument("--mode", choices=("pg", "embedded"), default="pg")
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--read-latency", type=float, default=0.05)
    ap.add_argument("--ideal-runs", type=int, default=2)
    a = ap.parse_args()
    from app.sandbox.behaviour import DEFAULT_DELAYS
    t_all = time.perf_counter()
    print(f"scaling 1 -> {a.n} -> 1 sandbox servers; {a.latency} s per mutating call, "
          f"{a.read_latency} s per other; {a.workers} workers; mode {a.mode}")
    print(f"  analytic lower bound: up 1 call x {a.latency} s + server_build "
          f"{DEFAULT_DELAYS['server_build']} s = {a.latency + DEFAULT_DELAYS['server_build']:.1f}"
          f" s; down 1 call + server_delete {DEFAULT_DELAYS['server_delete']} s = "
          f"{a.latency + DEFAULT_DELAYS['server_delete']:.1f} s")
    print(HEAD, flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="stoker-scaling-bench-"))
    env_vars, redis_server = setup(a.mode, tmp)
    sandbox = Sandbox(tmp / "sandbox.log")
    env_vars["STOKER_CLOUD_AUTH_URL"] = f"{sandbox.url}/identity/v3"
    try:
        init_engine(env_vars)
        unlimited_quotas()
        sandbox.admin("PUT", "behaviour",
                      json={"latency": latency_rules(a.latency, a.read_latency)})
        from app.context import RequestContext
        from app.tasks import celery_app
        ctx = RequestContext(tenant_id=TENANT)
        for c in [int(x) for x in str(a.concurrency).split(",")]:
            log_dir = tmp / f"c{c}"
            log_dir.mkdir()
            fleet = Fleet(dict(os.environ, **env_vars), a.workers, c, log_dir)
            try:
                fleet.wait_ready(celery_app, a.workers)
                ideals = [measure(ctx, f"ideal{c}r{i}", 2) for i in range(a.ideal_runs)]
                iu, id_ = min(x[0] for x in ideals), min(x[1] for x in ideals)
                up, down = measure(ctx, f"n{a.n}c{c}", a.n)
            finally:
                fleet.stop()
            bound = (a.n - 1) * a.latency / (a.workers * c)
            print(f"{a.n:>4} {f'{a.workers} x {c}':>17} {up:8.2f} {down:8.2f} {iu:9.2f} "
                  f"{id_:9.2f} {up / iu:9.2f} {down / id_:9.2f} {bound:15.1f}", flush=True)
        left = _settled(sandbox)
        if left:
            raise RuntimeError(f"left on the sandbox: { {k: len(v) for k, v in left.items()} }")
    finally:
        sandbox.stop()
        if redis_server:
            redis_server.terminate()
        if a.mode == "pg":
            drop_database(env_vars["STOKER_DATABASE_URL"])
    print(f"all checks passed (every scaling ended UPDATE_COMPLETE with its size, the sandbox "
          f"empty after the deletes); {time.perf_counter() - t_all:.0f} s in all")


if __name__ == "__main__":
    main()
