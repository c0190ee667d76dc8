"""Groups with real Celery worker processes, real Redis and PostgreSQL, each test with a fleet
and a database of its own: a worker, or the whole system, killed in the middle of a resize."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import select

from app.models import Stack, read_session
from app.services import stacks
from tests.fixtures.groups import CTX, asg, child_of, live_members, scaled
from tests.fixtures.stacks import final, wait_for

pytestmark = pytest.mark.integration


def _resize_in_flight(name: str, logs: Callable[[], str]) -> tuple[Stack, str]:
    """Stack ``name``: an AutoScalingGroup of 1 (a member takes 1.5 s) created, then resized to
    3; returns once a new member is being created. :returns: the stack, its group's child id."""
    from app.models import Resource
    from app.services import scaling
    tmpl = asg(1, hi=4)
    tmpl["resources"]["asg"]["properties"]["resource"]["properties"]["wait_secs"] = 1.5
    st = final(CTX, stacks.create_stack(CTX, stack_name=name, template=tmpl).id, 180)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason + logs()
    assert scaling.adjust(st.id, "asg", 3, "exact_capacity") == 3
    child_id = child_of(st).id

    def creating() -> bool:
        with read_session() as s:
            return bool(s.execute(select(Resource.id).where(
                Resource.stack_id == child_id, Resource.action == "CREATE",
                Resource.status == "IN_PROGRESS")).first())
    wait_for(creating, 60, 0.02, "a member being created")
    return st, child_id


def _scaling_ended(st: Stack) -> None:
    """The group's scaling has ended (no operation left in its data, not in progress) and the
    next adjustment, one member down, is allowed and settles at 2."""
    from app.models import Resource
    from app.services import scaling
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                               Resource.name == "asg")).scalar_one()
    assert "scaling_op" not in row.rsrc_data
    assert row.rsrc_data["scaling"]["scaling_in_progress"] is False
    assert scaling.adjust(st.id, "asg", -1) == 2
    scaled(st, 2)


def test_a_worker_killed_in_the_middle_of_a_resize_leaves_no_scaling_in_progress(workers):
    """A worker SIGKILLed while the members of a resize are being created: the child's
    traversal completes on the other worker, the group's scaling ends (its cooldown starts,
    its outputs show the new size), and the next adjustment is allowed."""
    st, child_id = _resize_in_flight("asg-kill", workers.logs)
    workers.kill(0)
    child = final(CTX, child_id, 240)
    assert child.stack_status == "UPDATE_COMPLETE", child.status_reason + workers.logs()
    st = scaled(st, 3)
    _scaling_ended(st)



def test_a_whole_system_restart_in_the_middle_of_a_resize_leaves_no_scaling_in_progress(
        engine_settings, tmp_path, redis_url):
    """Every worker and beat SIGKILLed while a resize's members are being created, and the
    broker's queues lost (a Redis restarted without persistence): a new fleet's reconciler
    re-drives the child's traversal from the database (DESIGN.md invariant 6), the group's
    scaling ends (not "scaling in progress" for ever: its outputs show the new size), and the
    next adjustment is allowed."""
    import redis

    from app.models import Resource
    from tests.integration.conftest import Workers, worker_env
    before = Workers(worker_env(engine_settings), tmp_path)
    (tmp_path / "after").mkdir()
    after = Workers(worker_env(engine_settings), tmp_path / "after")
    try:
        before.start(2)
        before.start_beat()
        st, child_id = _resize_in_flight("asg-restart", before.logs)
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
        st = scaled(st, 3)
        assert len(live_members(st)) == 3
        _scaling_ended(st)
    finally:
        before.stop()
        after.stop()
