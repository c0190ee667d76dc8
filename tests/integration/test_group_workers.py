"""Groups with two real Celery worker processes, real Redis and PostgreSQL: ResourceGroup
removal_policies and rolling updates in batches (Heat's resource_group.py), the order of the
member updates read from the child stack's events (not from timing)."""
from __future__ import annotations

import itertools
from typing import Any

import pytest
from sqlalchemy import select

from app.context import RequestContext
from app.models import Stack, read_session
from app.services import stacks, updates
from tests.fixtures.stacks import events, final, wait_for

pytestmark = pytest.mark.integration
CTX = RequestContext(tenant_id="itest-groups")


def group(count: int, value: str = "v%index%", **extra: Any) -> dict[str, Any]:
    policy = extra.pop("update_policy", None)
    g: dict[str, Any] = {"type": "OS::Heat::ResourceGroup", "properties": {
        "count": count, "resource_def": {"type": "OS::Heat::TestResource",
                                         "properties": {"value": value, "wait_secs": 0.2}},
        **extra}}
    if policy:
        g["update_policy"] = policy
    return {"heat_template_version": "2018-08-31", "resources": {"g": g},
            "outputs": {"vals": {"value": {"get_attr": ["g", "output"]}},
                        "refs_map": {"value": {"get_attr": ["g", "refs_map"]}},
                        "removed": {"value": {"get_attr": ["g", "removed_rsrc_list"]}}}}


def _outs(st: Stack) -> dict[str, Any]:
    return {o["output_key"]: o["output_value"] for o in st.outputs or []}


def _child(st: Stack) -> Stack:
    with read_session() as s:
        return s.execute(select(Stack).where(Stack.parent_id == st.id)).scalar_one()


def test_removal_policies_remove_the_named_member_and_the_name_stays_removed(workers):
    st = stacks.create_stack(CTX, stack_name="grp-rm", template=group(3))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    updates.update_stack(CTX, st.name, st.id,
                         template=group(2, removal_policies=[{"resource_list": ["0"]}]))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    outs = _outs(st)
    assert sorted(outs["refs_map"]) == ["1", "2"]
    assert outs["vals"] == ["v1", "v2"] and outs["removed"] == ["0"]
    child = _child(st)
    assert ("0", "DELETE", "COMPLETE") in {(e.resource_name, e.action, e.status)
                                           for e in events(child.id)}
    updates.update_stack(CTX, st.name, st.id, template=group(3))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert _outs(st)["vals"] == ["v1", "v2", "v3"] and _outs(st)["removed"] == ["0"]


def test_rolling_update_changes_members_in_batches_with_a_pause(workers):
    policy = {"rolling_update": {"max_batch_size": 2, "pause_time": 1}}
    st = stacks.create_stack(CTX, stack_name="grp-roll", template=group(5, update_policy=policy))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    child = _child(st)
    before = len(events(child.id))
    updates.update_stack(CTX, st.name, st.id, template=group(5, "w%index%", update_policy=policy))
    st = final(CTX, st.id, 240)
    assert st.stack_status == "UPDATE_COMPLETE", st.status_reason + workers.logs()
    assert _outs(st)["vals"] == [f"w{i}" for i in range(5)]
    evs = events(child.id)[before:]
    members = [e for e in evs if e.resource_name in {"0", "1", "2", "3", "4"}]
    # batches of 2, highest index first: {4, 3}, then {2, 1}, then {0}; no member of a batch
    # starts before every member of the previous one completed
    batches = [{"4", "3"}, {"2", "1"}, {"0"}]
    for earlier, later in itertools.pairwise(batches):
        last_done = max(i for i, e in enumerate(members)
                        if e.resource_name in earlier and e.status == "COMPLETE")
        first_start = min(i for i, e in enumerate(members)
                          if e.resource_name in later and e.status == "IN_PROGRESS")
        assert last_done < first_start, [(e.resource_name, e.action, e.status) for e in members]
    child_updates = [e for e in evs if e.resource_name == child.name
                     and e.action == "UPDATE" and e.status == "COMPLETE"]
    assert len(child_updates) == 3


def asg(desired: int, lo: int = 1, hi: int = 3, cooldown: int = 0) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {
        "asg": {"type": "OS::Heat::AutoScalingGroup", "properties": {
            "min_size": lo, "max_size": hi, "desired_capacity": desired, "cooldown": cooldown,
            "resource": {"type": "OS::Heat::TestResource",
                         "properties": {"value": "m", "wait_secs": 0.2}}}}},
        "outputs": {"size": {"value": {"get_attr": ["asg", "current_size"]}},
                    "refs_map": {"value": {"get_attr": ["asg", "refs_map"]}}}}


def _live_members(st: Stack) -> list[str]:
    """The group's members, oldest first."""
    from app.models import Resource
    child = _child(st)
    with read_session() as s:
        rows = s.execute(select(Resource).where(Resource.stack_id == child.id)
                         .order_by(Resource.created_at, Resource.id)).scalars().all()
    return [r.name for r in rows if r.action not in ("DELETE", "INIT")]


def _scaled(st: Stack, size: int) -> Stack:
    """Wait until the resize ended and the parent's outputs show ``size``."""
    def done() -> Stack | None:
        got = stacks.get_by_id(CTX, st.id)
        return got if _outs(got).get("size") == size else None
    return wait_for(done, timeout=180)


def test_autoscaling_group_created_at_desired_capacity_and_adjusted(workers):
    from app.services import scaling
    st = stacks.create_stack(CTX, stack_name="asg-adj", template=asg(2))
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    assert _outs(st)["size"] == 2 and len(_live_members(st)) == 2
    oldest = _live_members(st)
    assert scaling.adjust(st.id, "asg", 1) == 3
    st = _scaled(st, 3)
    grown = _live_members(st)
    assert grown[:2] == oldest and len(grown) == 3
    child = final(CTX, _child(st).id, 60)
    assert child.stack_status == "UPDATE_COMPLETE", child.status_reason
    assert scaling.adjust(st.id, "asg", -2) == 1
    st = _scaled(st, 1)
    assert _live_members(st) == grown[2:]  # the two oldest went
    assert sorted(_outs(st)["refs_map"]) == grown[2:]
    stacks.delete_stack(CTX, st.name, st.id)
    assert final(CTX, st.id, 180).stack_status == "DELETE_COMPLETE"


def test_a_worker_killed_in_the_middle_of_a_resize_leaves_no_scaling_in_progress(workers):
    """A worker SIGKILLed while the members of a resize are being created: the child's
    traversal completes on the other worker, the group's scaling ends (its cooldown starts,
    its outputs show the new size), and the next adjustment is allowed."""
    from app.models import Resource
    from app.services import scaling
    tmpl = asg(1, hi=4)
    tmpl["resources"]["asg"]["properties"]["resource"]["properties"]["wait_secs"] = 1.5
    st = stacks.create_stack(CTX, stack_name="asg-kill", template=tmpl)
    st = final(CTX, st.id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + workers.logs()
    assert scaling.adjust(st.id, "asg", 3, "exact_capacity") == 3
    child_id = _child(st).id

    def creating() -> bool:
        with read_session() as s:
            return bool(s.execute(select(Resource.id).where(
                Resource.stack_id == child_id, Resource.action == "CREATE",
                Resource.status == "IN_PROGRESS")).first())
    wait_for(creating, 60, 0.02, "a member being created")
    workers.kill(0)
    child = final(CTX, child_id, 240)
    assert child.stack_status == "UPDATE_COMPLETE", child.status_reason + workers.logs()
    st = _scaled(st, 3)
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                               Resource.name == "asg")).scalar_one()
    assert "scaling_op" not in row.rsrc_data
    assert row.rsrc_data["scaling"]["scaling_in_progress"] is False
    assert scaling.adjust(st.id, "asg", -1) == 2
    _scaled(st, 2)


def test_a_whole_system_restart_in_the_middle_of_a_resize_leaves_no_scaling_in_progress(
        engine_settings, tmp_path, redis_url):
    """Every worker and beat SIGKILLed while a resize's members are being created, and the
    broker's queues lost (a Redis restarted without persistence): a new fleet's reconciler
    re-drives the child's traversal from the database (DESIGN.md invariant 6), the group's
    scaling ends (not "scaling in progress" for ever: its outputs show the new size), and the
    next adjustment is allowed."""
    import redis

    from app.models import Resource
    from app.services import scaling
    from tests.integration.conftest import Workers, worker_env
    before = Workers(worker_env(engine_settings), tmp_path)
    (tmp_path / "after").mkdir()
    after = Workers(worker_env(engine_settings), tmp_path / "after")
    try:
        before.start(2)
        before.start_beat()
        tmpl = asg(1, hi=4)
        tmpl["resources"]["asg"]["properties"]["resource"]["properties"]["wait_secs"] = 1.5
        st = stacks.create_stack(CTX, stack_name="asg-restart", template=tmpl)
        st = final(CTX, st.id, 180)
        assert st.stack_status == "CREATE_COMPLETE", st.status_reason + before.logs()
        assert scaling.adjust(st.id, "asg", 3, "exact_capacity") == 3
        child_id = _child(st).id

        def creating() -> bool:
            with read_session() as s:
                return bool(s.execute(select(Resource.id).where(
                    Resource.stack_id == child_id, Resource.action == "CREATE",
                    Resource.status == "IN_PROGRESS")).first())
        wait_for(creating, 60, 0.02, "a member being created")
        for i in range(len(before.procs)):
            before.kill(i)
        redis.Redis.from_url(redis_url).flushdb()
        with read_session() as s:
            row = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                                   Resource.name == "asg")).scalar_one()
        assert row.rsrc_data["scaling"]["scaling_in_progress"] is True

        after.start(2)
        after.start_beat()
        child = final(CTX, child_id, 240)
        assert child.stack_status == "UPDATE_COMPLETE", child.status_reason + after.logs()
        st = _scaled(st, 3)
        assert len(_live_members(st)) == 3
        with read_session() as s:
            row = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                                   Resource.name == "asg")).scalar_one()
        assert "scaling_op" not in row.rsrc_data
        assert row.rsrc_data["scaling"]["scaling_in_progress"] is False
        assert scaling.adjust(st.id, "asg", -1) == 2
        _scaled(st, 2)
    finally:
        before.stop()
        after.stop()
