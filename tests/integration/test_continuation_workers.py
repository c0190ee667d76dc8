"""A single-step task runs the first ready successor it enqueued itself (the continuation of
``app.tasks.dispatcher``), with real ``celery worker`` processes, Redis and PostgreSQL: a
dependency chain converges in order with every event once, and a worker SIGKILLed in the middle
of a chain it was running by itself loses nothing, with no beat (so no reconciler): the broker's
redelivery of the task's own message alone re-drives the rest."""
from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app import config
from app.context import RequestContext
from app.models import Resource, read_session
from app.services import stacks
from tests.fixtures.stacks import events, final, none_stack, rows, wait_for
from tests.integration.conftest import Workers, worker_env

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest-continue")
#: a worker whose log shows every task it starts (app.tasks.worker._bind_ids logs it at INFO)
INFO_WORKER = [sys.executable, "-m", "celery", "-A", "app.tasks", "worker", "--pool", "threads",
               "-c", "4", "-l", "INFO", "--without-gossip", "--without-mingle"]


@pytest.fixture()
def fleet(engine_settings: config.Settings, tmp_path: Path) -> Iterator[Workers]:
    """Workers started by the test, no beat."""
    w = Workers(worker_env(engine_settings), tmp_path)
    yield w
    w.stop()


def _in_order(stack_id: str, names: list[str], action: str) -> list[str]:
    """``names`` as their ``action`` COMPLETE events came, oldest first."""
    got = [e.resource_name for e in events(stack_id)
           if e.action == action and e.status == "COMPLETE" and e.resource_name in set(names)]
    return got


def test_a_chain_runs_in_order_with_every_event_once(fleet: Workers, tmp_path: Path):
    fleet.start(2, argv=INFO_WORKER)
    n = 60
    st = stacks.create_stack(CTX, stack_name="chain", template=none_stack(n, chain=True))
    st = final(CTX, st.id, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + fleet.logs()
    names = [f"r{i}" for i in range(n)]
    assert _in_order(st.id, names, "CREATE") == names
    stacks.delete_stack(CTX, st.name, st.id)
    st = final(CTX, st.id, 120)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason + fleet.logs()
    assert _in_order(st.id, names, "DELETE") == names[::-1]
    kinds = Counter((e.resource_name, e.action, e.status) for e in events(st.id)
                    if e.resource_name != st.name)
    assert {k[0] for k in kinds} == set(names) and set(kinds.values()) == {1}
    for name in names:
        assert kinds[(name, "CREATE", "COMPLETE")] == kinds[(name, "DELETE", "COMPLETE")] == 1
    # the workers ran the chain's 2 x 60 steps in fewer tasks than steps: they continued it
    started = [line for p in sorted(tmp_path.glob("worker*.log"))
               for line in p.read_text(errors="replace").splitlines()
               if line.endswith(" started") and ("stoker.check_resource" in line
                                                 or "stoker.poll_resource" in line)]
    assert 2 <= len(started) < n, started


def test_parallel_chains_on_gevent_workers_each_keep_their_own(fleet: Workers):
    """Greenlets of one process run chains of the same stack and traversal side by side, each
    switching away at every database call: each continues its own chain (the continuation is
    greenlet-local under gevent's patching) and nothing is lost or run twice."""
    fleet.start(2, argv=[sys.executable, "-m", "celery", "-A", "app.tasks", "worker",
                         "--pool", "gevent", "-c", "20", "-l", "WARNING",
                         "--without-gossip", "--without-mingle"])
    width, depth = 8, 25
    res: dict[str, object] = {}
    for i in range(width):
        for k in range(depth):
            res[f"c{i}_{k}"] = {"type": "OS::Heat::None",
                                **({"depends_on": [f"c{i}_{k - 1}"]} if k else {})}
    st = stacks.create_stack(CTX, stack_name="gevent-chains",
                             template={"heat_template_version": "2018-08-31", "resources": res})
    st = final(CTX, st.id, 120)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + fleet.logs()
    for i in range(width):
        chain = [f"c{i}_{k}" for k in range(depth)]
        assert _in_order(st.id, chain, "CREATE") == chain
    stacks.delete_stack(CTX, st.name, st.id)
    st = final(CTX, st.id, 120)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason + fleet.logs()
    kinds = Counter((e.resource_name, e.action, e.status) for e in events(st.id)
                    if e.resource_name != st.name)
    assert {k[0] for k in kinds} == set(res) and set(kinds.values()) == {1}


def _created(stack_id: str) -> int:
    with read_session() as s:
        return int(s.execute(select(func.count()).select_from(Resource).where(
            Resource.stack_id == stack_id, Resource.action == "CREATE",
            Resource.status == "COMPLETE")).scalar() or 0)


def test_a_worker_killed_mid_chain_loses_nothing_without_beat(fleet: Workers):
    """The one worker runs a long chain by itself, step after step in one task; SIGKILLed in
    the middle of it, its task's message is delivered again to a fresh worker, which re-drives
    the chain from where it stopped: the stack completes, every resource created once, each
    from its predecessor's value."""
    n = 300
    res = {f"c{k}": {"type": "OS::Heat::TestResource", "properties": {
        "value": "c" if k == 0 else {"list_join": ["-", [
            {"get_attr": [f"c{k - 1}", "output"]}, str(k)]]}}} for k in range(n)}
    fleet.start(1)
    st = stacks.create_stack(CTX, stack_name="killed-mid-chain",
                             template={"heat_template_version": "2018-08-31", "resources": res})
    wait_for(lambda: _created(st.id) >= n // 6, 60, 0.005, "a sixth of the chain")
    fleet.kill(0)
    at_kill = _created(st.id)
    assert at_kill < n, "the chain finished before the kill: make it longer"
    fleet.start(1)  # a fresh worker; no beat, so no reconciler
    deadline = time.time() + 90  # visibility timeout 5 s, stale locks 4 s: ample
    while stacks.get_by_id(CTX, st.id).status == "IN_PROGRESS" and time.time() < deadline:
        time.sleep(0.2)
    done = stacks.get_by_id(CTX, st.id)
    assert done.stack_status == "CREATE_COMPLETE", (
        f"{done.stack_status}: {_created(st.id)}/{n} created ({at_kill} at the kill)"
        + fleet.logs())
    creates = Counter(e.resource_name for e in events(st.id) if e.action == "CREATE"
                      and e.status == "COMPLETE" and e.resource_name != st.name)
    assert set(creates) == set(res) and set(creates.values()) == {1}
    got = rows(st.id)
    for k in range(n):  # each resolved from its predecessor's final value
        assert got[f"c{k}"].properties_data["value"] == "-".join(["c", *map(str, range(1, k + 1))])
