"""Engine leases on PostgreSQL: steps that finish or park together (group commit,
:mod:`app.convergence.store.group_commit`) and whose locks were taken over while they worked write
nothing, while the others of their group are written; and a gevent worker's heartbeat keeps
beating while a greenlet holds the CPU (it is written from a native thread)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from app.context import RequestContext
from app.convergence.steps import run as step_run
from app.convergence.store import lease
from app.models import Resource, WorkerHeartbeat, read_session, session
from app.services import stacks
from tests.fixtures.stacks import events, rows
from tests.fixtures.wiring import use_dispatcher
from tests.integration.services.conftest import Recorder
from tests.integration.test_group_steps_pg import _run_together

CTX = RequestContext(tenant_id="lease")
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("props,ended", [({}, "COMPLETE"), ({"wait_secs": 30}, "IN_PROGRESS")])
def test_a_group_writes_only_the_steps_that_kept_their_locks(pg_db, monkeypatch, props, ended):
    rec = use_dispatcher(Recorder())
    monkeypatch.setattr(lease, "sweep", lambda: 0)  # "taker:7" has no heartbeat to sweep
    st = stacks.create_stack(CTX, stack_name="group", template={
        "heat_template_version": "2018-08-31", "resources": {
            f"w{i}": {"type": "OS::Heat::TestResource",
                      "properties": {"value": f"v{i}", **props}} for i in range(8)}})
    steps = list(rec.queue)
    rec.queue.clear()
    lost = {rows(st.id)[n].id for n in ("w1", "w5")}
    real = step_run.run

    def step(node: Any) -> Any:  # w1 and w5 lose their locks while they work
        out = real(node)
        if node.resource.id in lost:
            with session() as s:
                s.execute(update(Resource).where(Resource.id == node.resource.id).values(
                    engine_id="taker:7", atomic_key=Resource.atomic_key + 1))
        return out

    monkeypatch.setattr(step_run, "run", step)
    assert _run_together(steps) == []
    seen = Counter((e.resource_name, e.action, e.status) for e in events(st.id))
    assert {n for n, a, s in seen if (a, s) == ("CREATE", ended) and n != "group"} == {
        f"w{i}" for i in range(8)} - {"w1", "w5"}
    assert all(v == 1 for v in seen.values())
    res = rows(st.id)
    assert {n: r.engine_id for n, r in res.items() if r.engine_id} == {"w1": "taker:7",
                                                                      "w5": "taker:7"}
    assert (res["w1"].action, res["w1"].handle) == ("INIT", None)
    polled = [q[2] for q in rec.queue]
    assert not lost & set(polled)  # nothing enqueued for them either


def test_a_gevent_workers_heartbeat_beats_while_a_greenlet_holds_the_cpu(pg_db):
    script = textwrap.dedent(f"""
        from gevent import monkey; monkey.patch_all()
        import sys, time
        from app import models
        from app.convergence.store import lease
        models.init({pg_db.database_url!r})
        lease.ensure_heartbeat()
        print("ready", flush=True)
        until = time.monotonic() + 4.0
        while time.monotonic() < until:  # never yields to the hub
            pass
        print("done", flush=True)
        """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE,
                            env={**os.environ, "STOKER_DATABASE_URL": pg_db.database_url},
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        engine = f"{socket.gethostname()}:{proc.pid}"
        seen: set[Any] = set()
        until = time.monotonic() + 3.5
        while time.monotonic() < until:
            with read_session() as s:
                seen.add(s.execute(select(WorkerHeartbeat.last_seen).where(
                    WorkerHeartbeat.engine_id == engine)).scalar())
            time.sleep(0.2)
        assert proc.stdout.readline().strip() == "done"  # it held the CPU all along
    finally:
        proc.kill()
        proc.wait(10)
    assert len(seen - {None}) >= 3  # beat every second, though the hub never ran
