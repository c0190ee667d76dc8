"""The engine with two real Celery worker processes, real Redis and real PostgreSQL."""
from __future__ import annotations

import time
from collections import Counter

import pytest
from sqlalchemy import select

from app import convergence
from app.context import RequestContext
from app.models import Resource, Stack, read_session
from app.services import stacks
from tests.fixtures.stacks import events, final, layered_random_stack, none_stack, rows, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest")


def _final(stack_id: str, timeout: float = 180) -> Stack:
    return final(CTX, stack_id, timeout)


_resources = _rows = rows
_events = events


def test_create_and_delete_converge_on_two_workers(workers):
    tmpl = layered_random_stack(levels=3, width=6)
    tmpl["outputs"] = {"first": {"value": {"get_attr": ["l0_0", "value"]}},
                       "joined": {"value": {"get_attr": ["l1_0", "value"]}}}
    st = stacks.create_stack(CTX, stack_name="two-workers", template=tmpl)
    st = _final(st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert st.status_reason == "Stack CREATE completed successfully"
    res = _resources(st.id)
    assert {r.action + "_" + r.status for r in res.values()} == {"CREATE_COMPLETE"}
    outs = {o["output_key"]: o["output_value"] for o in st.outputs}
    a, b = res["l0_0"].attr_data["attrs"]["value"], res["l0_1"].attr_data["attrs"]["value"]
    assert outs == {"first": a, "joined": f"{a}-{b}"}
    stacks.delete_stack(CTX, st.name, st.id)
    st = _final(st.id)
    assert st.stack_status == "DELETE_COMPLETE"
    assert st.deleted_at is not None
    kinds = Counter((e.resource_name, e.action, e.status) for e in _events(st.id))
    for name in res:
        assert kinds[(name, "CREATE", "COMPLETE")] == 1
        assert kinds[(name, "DELETE", "COMPLETE")] == 1


def test_failure_stops_dependents_but_not_independent_branches(workers):
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        "boom": {"type": "OS::Heat::TestResource", "properties": {"fail": True}},
        "after": {"type": "OS::Heat::None", "depends_on": ["boom"]},
        "slow": {"type": "OS::Heat::TestResource", "properties": {"wait_secs": 1}},
        "independent": {"type": "OS::Heat::None", "depends_on": ["slow"]}}}
    st = _final(stacks.create_stack(CTX, stack_name="fails", template=tmpl).id)
    assert st.stack_status == "CREATE_FAILED"
    assert st.status_reason == \
        "Resource CREATE failed: ValueError: resources.boom: Test Resource failed boom"
    res = _resources(st.id)
    got = {n: f"{r.action}_{r.status}" for n, r in res.items()}
    assert got == {"boom": "CREATE_FAILED", "after": "INIT_COMPLETE",
                   "slow": "CREATE_COMPLETE", "independent": "CREATE_COMPLETE"}


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


def test_wide_and_chained_none_stacks(workers):
    for chain in (False, True):
        st = stacks.create_stack(CTX, stack_name=f"none-{int(chain)}",
                                 template=none_stack(60, chain=chain))
        st = _final(st.id)
        assert st.stack_status == "CREATE_COMPLETE"
        stacks.delete_stack(CTX, st.name, st.id)
        assert _final(st.id).stack_status == "DELETE_COMPLETE"


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


def test_a_nested_stack_node_is_woken_by_its_child_not_polled(workers):
    """Two real workers: the parent's node of a template resource parks (``Wait``: its event
    stored, no poll of its own but the slow safety poll) while its child runs for 10 s, and the
    child's end wakes it; create and delete both converge."""
    child = ("heat_template_version: 2018-08-31\nresources:\n"
             "  slow: {type: OS::Heat::TestResource, properties: {action_wait_secs: {create: 10}}}\n"
             "outputs:\n  out: {value: {get_attr: [slow, output]}}\n")
    tmpl = {"heat_template_version": "2018-08-31",
            "resources": {"top": {"type": "child.yaml"},
                          "after": {"type": "OS::Heat::Value",
                                    "properties": {"value": {"get_attr": ["top", "out"]}}}}}
    st = stacks.create_stack(CTX, stack_name="woken", template=tmpl, files={"child.yaml": child})

    def parked() -> bool:
        top = _rows(st.id)["top"]
        return isinstance(top.handle, dict) and "wait" in top.handle
    wait_for(parked, 60, 0.02, "the parent's node parks")
    top = _rows(st.id)["top"]
    # a Wait, not a Poll: the node holds the event it waits for and no task of its own
    assert top.handle["wait"] == convergence.child_stack_event(top.physical_resource_id)
    assert stacks.get_by_id(CTX, top.physical_resource_id).status == "IN_PROGRESS"
    st = _final(st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    stacks.delete_stack(CTX, st.name, st.id)
    st = _final(st.id)
    assert st.stack_status == "DELETE_COMPLETE", st.status_reason


def test_a_wide_fan_out_goes_out_in_batches_and_converges(workers, monkeypatch):
    """60 leaves on a fleet of 2 x 4 threads: the API sends them as ``stoker.check_resources``
    messages of several steps (not one message a leaf); the real workers create each leaf once,
    the fan-in after all of them, then delete everything once."""
    from app.tasks import celery_app
    sent: list[tuple[str, int]] = []
    real = celery_app.send_task

    def recording(name, args=None, **kw):  # type: ignore[no-untyped-def]
        sent.append((name, len(args[2]) if name == "stoker.check_resources" else 1))
        return real(name, args, **kw)

    monkeypatch.setattr(celery_app, "send_task", recording)
    leaves = {f"leaf{i}": {"type": "OS::Heat::RandomString", "properties": {"length": 8}}
              for i in range(60)}
    tmpl = {"heat_template_version": "2018-08-31", "resources": {
        **leaves, "all": {"type": "OS::Heat::Value", "properties": {"value": {
            "list_join": ["", [{"get_attr": [n, "value"]} for n in leaves]]}}}},
        "outputs": {"all": {"value": {"get_attr": ["all", "value"]}}}}
    st = _final(stacks.create_stack(CTX, stack_name="wide-batches", template=tmpl).id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    batches = [n for name, n in sent if name == "stoker.check_resources"]
    assert batches and sum(batches) == 60 and max(batches) > 1
    res = _resources(st.id)
    joined = "".join(res[n].attr_data["attrs"]["value"] for n in leaves)
    assert {o["output_key"]: o["output_value"] for o in st.outputs} == {"all": joined}
    stacks.delete_stack(CTX, st.name, st.id)
    st = _final(st.id)
    assert st.stack_status == "DELETE_COMPLETE"
    kinds = Counter((e.resource_name, e.action, e.status) for e in _events(st.id))
    for name in res:
        assert kinds[(name, "CREATE", "COMPLETE")] == 1
        assert kinds[(name, "DELETE", "COMPLETE")] == 1


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
