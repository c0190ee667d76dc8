"""The engine with real Celery worker processes, real Redis and real PostgreSQL, each test with a
fleet and a database of its own: it kills workers, flushes Redis, counts the timed-out stacks
or starts a fleet of another kind."""
from __future__ import annotations

import time
from collections import Counter

import pytest
from sqlalchemy import select

from app import convergence
from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.services import stacks
from tests.fixtures.stacks import events, final, layered_random_stack, rows, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest")


def _final(stack_id: str, timeout: float = 180) -> Stack:
    return final(CTX, stack_id, timeout)


_resources = _rows = rows
_events = events


def test_stack_timeout_fails_the_stack_and_stops_the_traversal(workers, engine_settings):
    from app import config
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        # only the create is slow: a TestResource's delete waits wait_secs too (Heat's)
        "slow": {"type": "OS::Heat::TestResource",
                 "properties": {"action_wait_secs": {"create": 60}}},
        "next": {"type": "OS::Heat::None", "depends_on": ["slow"]}}}
    st = stacks.create_stack(CTX, stack_name="times-out", template=tmpl)
    wait_for(lambda: _resources(st.id)["slow"].status == "IN_PROGRESS", 30, what="slow starts")
    config.set_current(engine_settings.replace(stack_action_timeout=1))
    time.sleep(1.2)
    assert convergence.check_timeouts() == 1
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_FAILED" and st.status_reason == "Timed out"
    res = _resources(st.id)
    assert f"{res['slow'].action}_{res['slow'].status}" == "CREATE_FAILED"
    assert res["next"].action == "INIT"
    config.set_current(engine_settings)
    stacks.delete_stack(CTX, st.name, st.id)
    assert _final(st.id).stack_status == "DELETE_COMPLETE"



def test_sigkilled_worker_is_redelivered_and_nothing_is_created_twice(workers):
    tmpl = layered_random_stack(levels=10, width=20, wait=0.3)
    assert len(tmpl["resources"]) == 200
    st = stacks.create_stack(CTX, stack_name="kill-one", template=tmpl)

    def some_done():
        with read_session() as s:
            return s.execute(select(Resource.id).where(
                Resource.stack_id == st.id, Resource.status == "COMPLETE",
                Resource.action == "CREATE")).all().__len__() >= 40
    wait_for(some_done, 60, 0.02, "40 resources")
    workers.kill(0)
    st = _final(st.id, timeout=180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    res = _resources(st.id)
    assert len(res) == 200
    creates = Counter(e.resource_name for e in _events(st.id)
                      if e.action == "CREATE" and e.status == "COMPLETE"
                      and e.resource_name != st.name)
    assert set(creates) == set(res) and set(creates.values()) == {1}
    # values never regenerated: every resource was created from its parents' final values
    def final(n: str) -> str:
        if n.startswith("l0_"):
            return res[n].attr_data["attrs"]["value"]
        return res[n].properties_data["value"]
    for name in res:
        if name.startswith("l0_"):
            continue
        k, i = (int(x) for x in name[1:].split("_"))
        assert final(name) == f"{final(f'l{k-1}_{i}')}-{final(f'l{k-1}_{(i + 1) % 20}')}"
        passed = res[name].attr_data["attrs"]
        if k < 9:  # what dependents were handed is what the resource holds
            assert passed.get("value", passed.get("output")) == final(name)



def test_lost_messages_are_redriven_from_the_database(workers, engine_settings, redis_url):
    """Invariant 6: Redis holds only messages. Kill every worker and flush Redis mid-create
    (every queued, reserved and unacknowledged task is gone); the reconciler re-drives the
    traversal from the database and new workers finish it."""
    import redis

    from app import config
    tmpl = layered_random_stack(levels=4, width=5, wait=0.5)
    st = stacks.create_stack(CTX, stack_name="lost-messages", template=tmpl)

    def some_done():
        with read_session() as s:
            return len(s.execute(select(Resource.id).where(
                Resource.stack_id == st.id, Resource.status == "COMPLETE")).all()) >= 5
    wait_for(some_done, 60, 0.02, "5 resources")
    workers.kill(0)
    workers.kill(1)
    redis.Redis.from_url(redis_url).flushdb()
    assert stacks.get_by_id(CTX, st.id).status == "IN_PROGRESS"
    workers.start(2)
    config.set_current(engine_settings.replace(reconcile_after_seconds=1, engine_lease_seconds=2))
    time.sleep(2.5)  # the dead workers' locks and heartbeats go stale
    redriven = 0
    deadline = time.time() + 120
    while stacks.get_by_id(CTX, st.id).status == "IN_PROGRESS" and time.time() < deadline:
        redriven += convergence.reconcile()
        time.sleep(1.5)
    config.set_current(engine_settings)
    final = stacks.get_by_id(CTX, st.id)
    assert final.stack_status == "CREATE_COMPLETE", final.status_reason
    print(f"nodes re-driven by this process's reconciler: {redriven} (beat runs it too)")
    creates = Counter(e.resource_name for e in _events(st.id)
                      if e.action == "CREATE" and e.status == "COMPLETE" and e.resource_name != st.name)
    assert set(creates.values()) == {1} and len(creates) == 20



def test_on_postgresql_stoker_worker_runs_gevent_and_converges(engine_settings, tmp_path):
    """The pool chosen when none is set (app.config, celeryconfig.py): `stoker worker` on
    PostgreSQL runs 200 greenlets a process; psycopg, redis-py and the steps' waits cooperate
    under gevent's monkey-patching, and a stack with polled waits and a kill converges."""
    import sys

    from app.tasks import celery_app
    from tests.integration.conftest import Workers, worker_env
    env = {k: v for k, v in worker_env(engine_settings).items()
           if k not in ("STOKER_WORKER_POOL", "STOKER_WORKER_CONCURRENCY")}
    fleet = Workers(env, tmp_path)
    try:
        fleet.start(2, argv=[sys.executable, "-m", "app.cli", "worker", "--loglevel", "WARNING"])
        deadline, pools = time.monotonic() + 30, []
        while len(pools) < 2 and time.monotonic() < deadline:  # a loaded host answers late
            stats = celery_app.control.inspect(timeout=5).stats() or {}
            pools = sorted((s["pool"]["implementation"], s["pool"]["max-concurrency"])
                           for s in stats.values())
        assert pools == [("celery.concurrency.gevent:TaskPool", 200)] * 2, pools
        tmpl = layered_random_stack(levels=4, width=8, wait=0.3)
        st = stacks.create_stack(CTX, stack_name="greenlets", template=tmpl)
        wait_for(lambda: any(r.status == "COMPLETE" for r in _resources(st.id).values()),
                 60, 0.02, "a first resource")
        fleet.kill(0)          # its unacknowledged steps are redelivered to the other worker
        st = _final(st.id)
        assert st.stack_status == "CREATE_COMPLETE", st.status_reason + fleet.logs()
        creates = Counter(e.resource_name for e in _events(st.id)
                          if e.action == "CREATE" and e.status == "COMPLETE"
                          and e.resource_name != st.name)
        assert len(creates) == 32 and set(creates.values()) == {1}
        stacks.delete_stack(CTX, st.name, st.id)
        assert _final(st.id).stack_status == "DELETE_COMPLETE"
    finally:
        fleet.stop()
