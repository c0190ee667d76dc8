"""Storm benchmark: the longer storm suite, one fault a row, on the production topology of
tests/storms (its ``Storm``: private PostgreSQL and Redis, gunicorn API, 2 ``stoker worker``s,
beat, the sandbox cloud at 0.3 s a request), with the engine's production settings (lease,
reconciler, visibility timeout), printed as a table.

Each fault strikes a create of a stack of cloud objects (named networks in chains, named
ports, servers on them and volumes, random strings), or the update or the whole storm named:

* PostgreSQL restart (``pg_ctl restart -m fast``), PostgreSQL stopped 30 s;
* Redis restart (empty), Redis FLUSHALL; the broker down when the create arrives (10 s);
* the sandbox answering about 10 % 5xx (some after doing the work) with latency spikes;
* a rolling restart (SIGTERM, one worker after the other) under an update;
* SIGKILL of every worker mid-create (started again 2 s later);
* a worker host (a network namespace) cut off for 60 s while creates are in flight.

Columns: the stack's final status; duplicates (CREATE_COMPLETE events beyond one a resource,
and cloud objects beyond the stack's own before the delete); orphans (objects left in the
cloud after the delete); 5xx other than 503 (API answers during and after the fault);
recovery (s from the fault clearing to the stack's end, its remaining work included: the
first row, without a fault, shows that work; for the cut-off, from the link's return, 0 when
the stack ended while the host was still cut off, the takeover in the note).

Exits 1 when a row errs or fails a check (:func:`failures`: the stack not COMPLETE, anything
duplicated, orphaned, stuck or answered 5xx other than 503, recovery over 10 s), named after
the table; a row that cannot run (the cut-off without root) is a failure, not a skip.

    python bench/storm_bench.py            # every row (about 8 min)
    python bench/storm_bench.py pg-stop cut --cut 20
"""
from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.storms import hosts as netns
from tests.storms import services as private
from tests.storms.conftest import Storm
from tests.storms.services import PrivatePostgres, PrivateRedis
from tests.storms.test_cloud_storms import (
    FAULTS,
    FLAKY,
    LATENCY,
    _inventory,
    _physical,
    _server_ports,
    _wait_deleted,
    mixed,
)
from tests.storms.test_database_storms import nets
from tests.storms.test_partition_storms import FLEET, partition
from tests.storms.test_worker_storms import RESUME

HEADERS = {"X-Auth-Token": "x"}
#: s from a fault's clearing to the stack's end, at most (the bound the storm tests hold)
RECOVERY = 10.0


def template() -> dict[str, Any]:
    """3 chains of 3 named networks, 3 named ports with a named server each, 3 named volumes,
    3 unnamed volumes and 3 random strings (8 servers at most: the sandbox's quota is 10)."""
    t = mixed(3, "storm")
    t["resources"].update(nets(width=3, depth=3)["resources"])
    return t


class Run:
    """One row: a Storm of its own, the stack made, the fault, the checks."""

    def __init__(self, storm: Storm) -> None:
        self.storm = storm
        self.sid = ""
        self.tpl = template()
        self.row: dict[str, Any] = {"recovery": None, "fivexx": 0}
        self.answers: list[int] = []

    def create(self, name: str) -> requests.Response:
        resp = self.storm.create(name, self.tpl)
        self.answers.append(resp.status_code)
        if resp.status_code == 201:
            self.sid = resp.json()["stack"]["id"]
        return resp

    def settle(self, cleared: float, timeout: float = 120) -> None:
        _, ended = self.storm.settled(self.sid, timeout=timeout)
        self.row["recovery"] = max(0.0, ended - cleared)

    def finish(self) -> dict[str, Any]:
        """The row's checks: duplicates before the delete, orphans after it."""
        s, sid = self.storm, self.sid
        st = s.stack(sid)
        self.row["status"] = st["stack_status"]
        events = s.get(s.path(sid) + "/events?limit=2000").json()["events"]
        created = Counter(e["resource_name"] for e in events
                          if e["resource_status"] == "CREATE_COMPLETE"
                          and e["resource_name"] in self.tpl["resources"])
        ids = {k: v for k, v in _physical(s, sid).items() if v}
        mine = set(ids.values()) | _server_ports(s, set(ids.values()))
        held = set().union(*_inventory(s).values())
        self.row["dup"] = sum(n - 1 for n in created.values()) + len(held - mine)
        stuck = [r for r in s.get(s.path(sid) + "/resources").json()["resources"]
                 if r["resource_status"].endswith("IN_PROGRESS")]
        self.row["stuck"] = len(stuck)
        resp = requests.delete(s.api(s.path(sid)), headers=HEADERS, timeout=30)
        self.answers.append(resp.status_code)
        self.row["deleted"] = _wait_deleted(s, sid, timeout=120)
        self.row["orphans"] = sum(len(v) for v in _inventory(s).values())
        errors = [c for _, c, _ in s.probe.seen if c >= 500 and c != 503]
        self.row["fivexx"] = len(errors) + len([c for c in self.answers if c >= 500 and c != 503])
        return self.row

    def started(self, after: float = 1.5) -> None:
        resp = self.create("storm")
        assert resp.status_code == 201, resp.text
        time.sleep(after)


def _during_create(run: Run, fault: Callable[[Any], object]) -> None:
    """``fault(storm)`` struck 1.5 s into the create, under the probe; recovery is counted
    from its end."""
    run.started()
    with run.storm.probing(run.storm.path(run.sid)):
        fault(run.storm)
        run.settle(time.monotonic())


def _down(service: Any, seconds: float) -> None:
    service.stop()
    time.sleep(seconds)
    service.start()


def baseline(run: Run) -> None:
    """No fault: the stack's remaining work 1.5 s in (what every recovery includes)."""
    _during_create(run, lambda storm: None)


def pg_restart(run: Run) -> None:
    _during_create(run, lambda storm: storm.pg.restart())


def pg_stop(run: Run) -> None:
    _during_create(run, lambda storm: _down(storm.pg, 30))


def redis_restart(run: Run) -> None:
    _during_create(run, lambda storm: _down(storm.redis, 2))


def redis_flush(run: Run) -> None:
    _during_create(run, lambda storm: storm.redis.flushall())


def broker_down(run: Run) -> None:
    run.storm.redis.stop()
    resp = run.create("storm")
    run.row["note"] = f"create answered {resp.status_code}"
    time.sleep(10)
    run.storm.redis.start()
    cleared = time.monotonic()
    if resp.status_code != 201:    # refused: nothing written, so the client sends it again
        assert run.create("storm").status_code == 201
    s = run.storm
    with s.probing(s.path(run.sid)):
        while all(r["resource_status"] == "INIT_COMPLETE" for r in s.get(
                s.path(run.sid) + "/resources").json()["resources"]):
            assert time.monotonic() - cleared < 60, "nothing started after the broker's return"
            time.sleep(0.05)
        run.row["note"] += f", first step {time.monotonic() - cleared:.1f} s after the return"
        run.settle(cleared)


def flaky(run: Run) -> None:
    run.storm.sandbox("PUT", "behaviour", json={"faults": FAULTS, "latency": LATENCY,
                                                "seed": 7})
    run.started(0.0)
    with run.storm.probing(run.storm.path(run.sid)):
        run.settle(time.monotonic())
    fired = sum(int(f.get("fired", 0)) for f in run.storm.sandbox("GET", "behaviour")["faults"])
    run.row["note"] = f"{fired} faults injected"
    run.row["recovery"] = None    # the fault never clears during the create


def rolling(run: Run) -> None:
    s = run.storm
    run.started(0.0)
    s.settled(run.sid, timeout=120)
    newer = {**run.tpl, "resources": {k: ({**v, "properties": {**v["properties"],
                                                               "name": v["properties"]["name"]
                                                               + "-v2"}}
                                          if v["properties"].get("name") else v)
                                      for k, v in run.tpl["resources"].items()}}
    resp = requests.put(s.api(s.path(run.sid)), json={"template": newer}, headers=HEADERS,
                        timeout=30)
    run.answers.append(resp.status_code)
    with s.probing(s.path(run.sid)):
        for name in ("worker1", "worker2"):
            time.sleep(1.0)
            s.signal(name, signal.SIGTERM)
            s.named[name].wait(30)
            s.spawn(name)
            s.wait_workers()
        run.settle(time.monotonic())


def kill_all(run: Run) -> None:
    s = run.storm
    run.started()
    with s.probing(s.path(run.sid)):
        s.kill("worker1")
        s.kill("worker2")
        time.sleep(2)
        s.spawn("worker1")
        s.spawn("worker2")
        s.wait_workers()
        run.settle(time.monotonic())


ROWS: dict[str, tuple[str, Callable[[Run], None], dict[str, Any]]] = {
    "none": ("no fault (the work left 1.5 s in)", baseline, {}),
    "pg-restart": ("PostgreSQL restart", pg_restart, {}),
    "pg-stop": ("PostgreSQL stopped 30 s", pg_stop, {}),
    "redis-restart": ("Redis restart", redis_restart, {}),
    "redis-flush": ("Redis FLUSHALL", redis_flush, {}),
    "broker-down": ("broker down at a create", broker_down, {}),
    "flaky": ("sandbox 10% 5xx + latency spikes", flaky, FLAKY),
    "rolling": ("rolling restart under an update", rolling, {}),
    "kill-all": ("SIGKILL of every worker", kill_all, {}),
    "cut": ("worker host cut off (netns)", None, {}),  # type: ignore[dict-item]
}


def one(key: str, pg: PrivatePostgres, redis: PrivateRedis, cut: float) -> dict[str, Any]:
    title, fn, kwargs = ROWS[key]
    home = Path(tempfile.mkdtemp(prefix=f"stoker-storm-{key}-"))
    started = time.monotonic()
    try:
        if key == "cut":
            title = f"worker host cut off {cut:.0f} s (netns)"
            with netns.fleet(pg, redis, home, **FLEET) as (storm, hosts):
                out = partition(storm, hosts, cut)
                return {"title": title, "status": out["status"], "dup": out["dup"] + sum(
                    n - 1 for n in out["created"].values()), "orphans": out["orphans"],
                        "fivexx": len([c for _, c, _ in storm.probe.seen if c >= 500
                                       and c != 503]),
                        "recovery": out["recovery"], "stuck": len(out["stuck"]),
                        "deleted": out["deleted"], "taken_over": out["taken_over"],
                        "never": sorted(out["held"] - set(out["resumed"])),
                        "note": f"taken over {out['taken_over']:.1f} s after the cut",
                        "took": time.monotonic() - started}
        storm = Storm(pg, redis, home, sandbox_latency=kwargs.get("sandbox_latency", "0.3"),
                      env=kwargs.get("env"))
        try:
            storm.start()
            run = Run(storm)
            fn(run)
            row = run.finish()
        finally:
            storm.stop()
            if redis.proc is None:
                redis.start()
            with contextlib.suppress(Exception):
                pg.start()
        return {"title": title, **row, "took": time.monotonic() - started}
    except Exception as exc:
        traceback.print_exc()
        return {"title": title, "status": f"ERROR {type(exc).__name__}", "note": str(exc)[:80],
                "took": time.monotonic() - started}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def show(rows: list[dict[str, Any]]) -> str:
    head = (f"{'fault':<36} {'final status':<16} {'dup':>4} {'orphans':>8} {'5xx!503':>8} "
            f"{'recovery s':>11} {'stuck':>6}  note")
    lines = [head, "-" * len(head)]
    for r in rows:
        rec = r.get("recovery")
        lines.append(f"{r['title']:<36} {r.get('status', ''):<16} {r.get('dup', '-'):>4} "
                     f"{r.get('orphans', '-'):>8} {r.get('fivexx', '-'):>8} "
                     f"{'-' if rec is None else f'{rec:.1f}':>11} {r.get('stuck', '-'):>6}  "
                     f"{r.get('note', '')} ({r['took']:.0f} s)")
    return "\n".join(lines)


def failures(row: dict[str, Any]) -> list[str]:
    """What ``row`` fails of the storm's checks: it ran, its stack ended COMPLETE, nothing
    duplicated, orphaned, stuck or answered 5xx other than 503, the delete completed, recovery
    within :data:`RECOVERY` s; a cut-off host's nodes all taken over within :data:`RESUME` s."""
    status = str(row.get("status", ""))
    if status.startswith("ERROR"):
        return [f"{status}: {row.get('note', '')}"]
    out = [] if status.endswith("_COMPLETE") else [f"ended {status}"]
    out += [f"{key} {row.get(key)}" for key in ("dup", "orphans", "fivexx", "stuck")
            if row.get(key) != 0]
    if row.get("deleted") != "DELETE_COMPLETE":
        out.append(f"delete ended {row.get('deleted')}")
    if row.get("recovery") is not None and row["recovery"] > RECOVERY:
        out.append(f"recovered in {row['recovery']:.1f} s > {RECOVERY:.0f} s")
    if row.get("never"):
        out.append(f"never taken over: {row['never']}")
    if "taken_over" in row and not row["taken_over"] <= RESUME:
        out.append(f"taken over in {row['taken_over']:.1f} s > {RESUME:.0f} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="*", choices=[*ROWS, []], help="rows to run (all)")
    parser.add_argument("--cut", type=float, default=60.0, help="s a host is cut off")
    args = parser.parse_args()
    keys = args.rows or list(ROWS)
    rows = []
    with private.private_postgres() as pg, private.private_redis() as redis:
        for key in keys:
            if key == "cut" and netns.available():   # a row of the storm that cannot run
                rows.append({"title": ROWS[key][0], "status": "ERROR not run",
                             "note": str(netns.available()), "took": 0.0})
            else:
                rows.append(one(key, pg, redis, args.cut))
            print(show(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(show(rows))
    failed = {r["title"]: f for r in rows if (f := failures(r))}
    for title, what in failed.items():
        print(f"FAILED {title}: {'; '.join(what)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
