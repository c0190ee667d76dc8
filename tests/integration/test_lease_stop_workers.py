"""A worker stopped cleanly ends its engine lease; a killed worker's lease is left to run out.

Celery's warm shutdown (SIGTERM) lets the pool finish its tasks, then the worker deletes its
heartbeat row, so that no sweep takes the stop for a death ("engines ... lost their lease");
a worker killed outright leaves its row, and the sweep takes its work over once the lease ran
out (DESIGN.md, invariant 2).
"""
from __future__ import annotations

import os
import signal
import socket
import time

from sqlalchemy import select

from app.context import RequestContext
from app.models import WorkerHeartbeat, read_session
from app.services import stacks

CTX = RequestContext(tenant_id="lease-stop")


def _heartbeats() -> set[str]:
    with read_session() as s:
        return set(s.execute(select(WorkerHeartbeat.engine_id)).scalars())


def _engine(pid: int) -> str:
    return f"{socket.gethostname()}:{pid}"  # a threads-pool worker's engine: its own process


def test_a_warm_stop_removes_the_heartbeat_and_a_kill_leaves_it(workers):  # type: ignore[no-untyped-def]
    st = stacks.create_stack(CTX, stack_name="before-stop", template={
        "heat_template_version": "2018-08-31",
        "resources": {f"r{i}": {"type": "OS::Heat::None"} for i in range(20)}})
    deadline = time.time() + 60
    while stacks.get_by_id(CTX, st.id).stack_status == "CREATE_IN_PROGRESS" \
            and time.time() < deadline:
        time.sleep(0.1)
    assert stacks.get_by_id(CTX, st.id).stack_status == "CREATE_COMPLETE"
    stopped, killed = workers.procs[0], workers.procs[1]
    deadline = time.time() + 30
    while not {_engine(stopped.pid), _engine(killed.pid)} <= _heartbeats() \
            and time.time() < deadline:
        time.sleep(0.1)
    assert {_engine(stopped.pid), _engine(killed.pid)} <= _heartbeats()

    os.killpg(stopped.pid, signal.SIGTERM)
    assert stopped.wait(30) == 0
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(10)

    left = _heartbeats()
    assert _engine(stopped.pid) not in left, workers.logs()
    assert _engine(killed.pid) in left
