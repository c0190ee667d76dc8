"""Nodes that wait for an outside event (the ``Wait`` outcome), timers, and the dispatcher's
countdowns (app.convergence.outcome / wakeups / traversal, app.tasks.dispatcher), SQLite with a
recording dispatcher: a nested stack's node holds no task while its child runs and is woken by
the child's end; past its deadline it fails with a reason; a traversal's deadline is kept by beat's
sweep, with no message of its own."""
from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import update

from app import convergence
from app.context import RequestContext
from app.convergence import timeouts
from app.models import Stack, session, utcnow
from app.services import stacks
from tests.fixtures.stacks import rows
from tests.fixtures.wiring import use_dispatcher
from tests.integration.services.conftest import Recorder

CTX = RequestContext(tenant_id="wait")
CHILD = ("heat_template_version: 2018-08-31\nresources:\n"
         "  a: {type: OS::Heat::None}\n  b: {type: OS::Heat::None, depends_on: [a]}\n")
PARENT = {"heat_template_version": "2018-08-31", "resources": {"top": {"type": "child.yaml"}}}


class Timers(Recorder):
    """Records nodes like :class:`Recorder`, and the safety polls asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.safety: list[tuple[Any, ...]] = []

    def safety_poll(self, *args: Any, **kwargs: Any) -> None:
        self.safety.append(args)


@pytest.fixture()
def timers(db) -> Timers:
    t = Timers()
    use_dispatcher(t)
    return t


def _run_until_parked(t: Timers, parent_id: str) -> None:
    """Run the queue until the parent's node has parked (its safety poll was asked for)."""
    while t.queue and not t.safety:
        convergence.check_resource(*t.queue.pop(0))


def test_a_nested_stack_node_waits_without_a_task_and_the_child_wakes_it(timers):
    st = stacks.create_stack(CTX, stack_name="p", template=PARENT, files={"child.yaml": CHILD})
    _run_until_parked(timers, st.id)
    top = rows(st.id)["top"]
    assert top.status == "IN_PROGRESS" and top.handle["wait"] == \
        convergence.child_stack_event(top.physical_resource_id)
    # the only timer of the waiting node: one slow safety poll, not a 2-second re-poll
    (safety,) = timers.safety
    assert safety[:4] == (st.id, st.current_traversal, top.id, True)
    assert safety[4] == timeouts.SAFETY_POLL_SECONDS
    # nothing of the parent is queued: only the child's nodes
    assert all(args[0] == top.physical_resource_id for args in timers.queue)
    timers.run_all()  # the child converges; its end enqueues the parent's step, which finishes
    st = stacks.get_by_id(CTX, st.id)
    assert st.stack_status == "CREATE_COMPLETE", st.status_reason
    assert rows(st.id)["top"].poll_attempt == 1  # parked once, never polled
    assert len(timers.safety) == 1


def test_wake_enqueues_only_a_node_of_the_current_traversal(timers):
    st = stacks.create_stack(CTX, stack_name="w", template=PARENT, files={"child.yaml": CHILD})
    _run_until_parked(timers, st.id)
    top = rows(st.id)["top"]
    before = len(timers.queue)
    assert convergence.wake(st.id, top.id, "anything") == 1  # its step decides what it means
    assert timers.queue[-1] == (st.id, st.current_traversal, top.id, True)
    assert len(timers.queue) == before + 1
    timers.run_all()
    assert convergence.wake(st.id, top.id, "late") == 0  # finished: nothing waits any more


def test_a_waiting_node_past_the_stacks_deadline_times_the_stack_out(timers):
    st = stacks.create_stack(CTX, stack_name="late", template=PARENT,
                             files={"child.yaml": CHILD})
    _run_until_parked(timers, st.id)
    top = rows(st.id)["top"]
    long_ago = utcnow() - dt.timedelta(seconds=timeouts.limit_seconds(None) + 60)
    with session() as s:
        s.execute(update(Stack).where(Stack.id == st.id).values(traversal_started_at=long_ago))
    convergence.check_resource(*timers.safety[0][:4])  # the safety poll comes; the child runs on
    st = stacks.get_by_id(CTX, st.id)
    # the traversal's own deadline (a nested stack has none of its own): Heat's stack timeout
    # (check_resource._handle_stack_timeout), whether beat's sweep or the safety poll comes first
    assert (st.stack_status, st.status_reason) == ("CREATE_FAILED", "Timed out")
    top = rows(st.id)["top"]
    assert (top.status, top.status_reason, top.engine_id) == ("FAILED", "Timed out", None)


def test_the_deadline_is_kept_by_the_sweep_not_by_a_message_per_traversal(timers):
    st = stacks.create_stack(CTX, stack_name="t", template={
        "heat_template_version": "2018-08-31", "resources": {"a": {"type": "OS::Heat::None"}}},
        timeout_mins=10)
    # what the create enqueued: its one leaf (a dispatcher without stack_timeout was enough)
    assert timers.queue == [(st.id, st.current_traversal, rows(st.id)["a"].id, True)]
    assert convergence.check_timeouts() == 0  # ten minutes left
    assert stacks.get_by_id(CTX, st.id).status == "IN_PROGRESS"
    with session() as s:
        s.execute(update(Stack).where(Stack.id == st.id).values(
            traversal_started_at=utcnow() - dt.timedelta(minutes=11)))
    assert convergence.check_timeouts() == 1
    st = stacks.get_by_id(CTX, st.id)
    assert (st.stack_status, st.status_reason) == ("CREATE_FAILED", "Timed out")
