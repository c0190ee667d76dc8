"""The continuation of a single-step task (:class:`app.tasks.dispatcher.Continuation`) with the
real engine on SQLite: delivered again, a task re-drives the chain it died in."""
from __future__ import annotations

import pytest

from app.services import engine
from app.tasks import worker as tasks
from app.tasks.dispatcher import CeleryDispatcher
from tests.fixtures.wiring import use_dispatcher
from tests.unit.tasks.test_continuation import FakeApp


@pytest.fixture()
def celery(settings) -> FakeApp:  # type: ignore[no-untyped-def]
    """A CeleryDispatcher on a :class:`FakeApp`, the dispatcher of this process's runtime."""
    fake = FakeApp()
    use_dispatcher(CeleryDispatcher(fake))  # type: ignore[arg-type]
    return fake


def test_a_task_killed_mid_chain_is_re_driven_by_its_message_delivered_again(db, celery,
                                                                              monkeypatch):
    """The real engine on SQLite: a task runs a chain by itself and dies between two kept
    steps (nothing but its first message covers them); that message delivered again re-drives
    the chain from where it stopped, and every resource is created once."""
    from app.context import RequestContext
    from app.services import stacks
    from tests.fixtures.stacks import events, none_stack, rows

    ctx = RequestContext(tenant_id="admin")
    st = stacks.create_stack(ctx, stack_name="chain", template=none_stack(12, chain=True))
    ids = {name: r.id for name, r in rows(st.id).items()}
    tid, leaf = st.current_traversal, ids["r0"]
    assert celery.nodes() == [(leaf, True)]

    class Killed(BaseException):
        """The worker's process dies (SIGKILL): nothing of the task runs any more."""

    real = engine.check_resource

    def dies_at_r5(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
        if resource_id == ids["r5"]:
            raise Killed
        real(stack_id, traversal_id, resource_id, is_update)

    monkeypatch.setattr(engine, "check_resource", dies_at_r5)
    with pytest.raises(Killed):
        tasks._step_and_continue(st.id, tid, leaf, True)
    monkeypatch.setattr(engine, "check_resource", real)

    def created() -> list[str]:
        return sorted((n for n, r in rows(st.id).items()
                       if (r.action, r.status) == ("CREATE", "COMPLETE")), key=lambda n: int(n[1:]))

    assert created() == [f"r{i}" for i in range(5)]
    assert celery.nodes() == [(leaf, True)]   # r1 to r4 ran in the task, r5 had no message
    tasks._step_and_continue(st.id, tid, leaf, True)   # a step of an ended node, alone
    assert created() == [f"r{i}" for i in range(5)]   # ... finds nothing of its own to do
    tasks._step_and_continue(st.id, tid, leaf, True, again=True)
    assert celery.nodes() == [(leaf, True), (ids["r5"], True)]
    del celery.sent[:]
    tasks._step_and_continue(st.id, tid, ids["r5"], True)   # the worker that takes it
    assert stacks.get_by_id(ctx, st.id).stack_status == "CREATE_COMPLETE"
    assert celery.nodes() == []   # r6 to r11 ran in that task
    creates = [e.resource_name for e in events(st.id)
               if e.action == "CREATE" and e.status == "COMPLETE" and e.resource_name in ids]
    assert creates == [f"r{i}" for i in range(12)]
