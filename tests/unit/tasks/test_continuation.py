"""The continuation of a single-step task (:class:`app.tasks.dispatcher.Continuation`): the first
ready node of the first fan-out its step enqueues is kept for the task to run itself, the rest
go out as messages; only for its own stack and traversal, bounded by steps and seconds; the task
wrapper runs what it kept one step after another, and sends a kept step that raises as a task of
its own; delivered again, a task re-drives the chain it died in."""
from __future__ import annotations

import contextlib
import types
from typing import Any

import pytest

from app import logs
from app.convergence import runtime
from app.services import engine
from app.tasks import dispatcher
from app.tasks import worker as tasks
from app.tasks.dispatcher import CeleryDispatcher, Continuation, continuing
from tests.fixtures.wiring import use_dispatcher


class FakeApp:
    """What :class:`CeleryDispatcher` uses of a Celery app; records each message as
    ``(task name, args, countdown)``."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...], Any]] = []

    def producer_or_acquire(self) -> Any:
        class Producer:
            def batch(self) -> Any:
                return contextlib.nullcontext()
        return contextlib.nullcontext(Producer())

    def send_task(self, name: str, args: tuple[Any, ...], **kw: Any) -> None:
        self.sent.append((name, tuple(args), kw.get("countdown")))

    def nodes(self) -> list[tuple[int, bool]]:
        """The nodes the messages carry, in order (a batch's each)."""
        out: list[tuple[int, bool]] = []
        for name, args, _ in self.sent:
            if name == dispatcher.CHECK_RESOURCES:
                out.extend((int(r), bool(u)) for r, u in args[2])
            elif name in (dispatcher.CHECK_RESOURCE, dispatcher.POLL_RESOURCE):
                out.append((args[2], args[3]))
        return out


@pytest.fixture()
def celery(settings) -> FakeApp:  # type: ignore[no-untyped-def]
    """A CeleryDispatcher on a :class:`FakeApp`, the dispatcher of the process's runtime."""
    fake = FakeApp()
    use_dispatcher(CeleryDispatcher(fake))  # type: ignore[arg-type]
    return fake


def test_keeps_only_the_first_node_of_the_first_fan_out():
    c = Continuation("s", "t")
    assert c.keep("s", "t", [(1, True), (2, True), (3, False)]) == [(2, True), (3, False)]
    assert c.keep("s", "t", [(4, True)]) == [(4, True)]   # one kept at a time
    assert c.take() == (1, True) and c.take() is None
    assert c.keep("s", "t", [(5, False)]) == [] and c.take() == (5, False)


def test_nothing_is_kept_for_another_stack_or_traversal():
    c = Continuation("s", "t")
    assert c.keep("other", "t", [(1, True)]) == [(1, True)]
    assert c.keep("s", "t2", [(1, True)]) == [(1, True)]
    assert c.take() is None


def test_bounded_by_steps(monkeypatch):
    monkeypatch.setattr(dispatcher, "CONTINUE_MAX_STEPS", 2)
    c = Continuation("s", "t")
    kept = []
    for i in range(4):
        c.keep("s", "t", [(i, True)])
        kept.append(c.take())
    assert kept == [(0, True), (1, True), None, None]
    assert Continuation("s", "t", steps=0).keep("s", "t", [(1, True)]) == [(1, True)]


def test_bounded_by_seconds(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(dispatcher, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    c = Continuation("s", "t")
    now[0] += dispatcher.CONTINUE_MAX_SECONDS - 0.1
    assert c.keep("s", "t", [(1, True)]) == [] and c.take() == (1, True)
    now[0] += 0.2
    assert c.keep("s", "t", [(2, True)]) == [(2, True)] and c.take() is None


def test_nested_continuing_restores_the_previous_one():
    assert getattr(dispatcher._local, "continuation", None) is None
    with continuing("s", "t") as outer:
        assert dispatcher._local.continuation is outer
        with pytest.raises(RuntimeError), continuing("s2", "t2") as inner:
            assert dispatcher._local.continuation is inner
            raise RuntimeError("a step failed")
        assert dispatcher._local.continuation is outer
    assert dispatcher._local.continuation is None


def test_outside_a_task_nothing_is_kept(celery):
    runtime.dispatcher().check_resources("s", "t", [(1, True)])
    assert celery.nodes() == [(1, True)]


def test_check_resources_sends_the_others_and_the_later_fan_outs(celery):
    d = runtime.dispatcher()
    with continuing("s", "t") as kept:
        d.check_resources("s", "t", [(1, True), (2, True), (3, True)])
        d.check_resources("s", "t", [(4, False)])    # the slot is taken: sent
        d.check_resources("s", "t2", [(5, True)])    # another traversal: sent
        assert kept.take() == (1, True)
    assert celery.nodes() == [(2, True), (3, True), (4, False), (5, True)]


def test_nothing_is_kept_while_task_events_are_on(celery, settings, monkeypatch):
    """Flower lists a task a step: with task events on (``STOKER_TASK_EVENTS``, ``stoker up
    --flower``, or Flower turning the worker's on), every node goes out as a message."""
    from app import config
    from app.tasks import labels
    # the messages' labels name the resources, read from the store: not this test's subject
    monkeypatch.setattr(labels, "prefetch", lambda stack_id, resource_ids: None)
    monkeypatch.setattr(labels, "step", lambda *args: "(step)")
    monkeypatch.setattr(labels, "steps", lambda *args: "(steps)")
    config.set_current(settings.replace(task_events=True))
    d = runtime.dispatcher()
    with continuing("s", "t") as kept:
        d.check_resources("s", "t", [(1, True), (2, True)])
        assert kept.take() is None
    assert celery.nodes() == [(1, True), (2, True)]


def test_a_step_with_a_countdown_is_never_kept(celery):
    d = runtime.dispatcher()
    with continuing("s", "t") as kept:
        d.check_resource("s", "t", 1, True, countdown=2.0)   # a poll, a busy lock
        d.check_resource("s", "t", 2, True)                  # one step, not a fan-out
        d.safety_poll("s", "t", 3, True, 30.0)
        assert kept.take() is None
    assert [(name, args[2], due) for name, args, due in celery.sent] == [
        (dispatcher.POLL_RESOURCE, 1, 2.0), (dispatcher.CHECK_RESOURCE, 2, None),
        (dispatcher.POLL_RESOURCE, 3, 30.0)]


def _chain_steps(monkeypatch, ran: list[int], fails: set[int] = frozenset(),  # type: ignore[assignment]
                 last: int = 3) -> None:
    """Patch the step: resource ``r`` enqueues ``r + 1`` (while ``r < last``) and ``r + 10``
    as its fan-out, then raises if ``r`` is in ``fails``."""
    def step(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
        ran.append(resource_id)
        if resource_id < last:
            runtime.dispatcher().check_resources(stack_id, traversal_id,
                                           [(resource_id + 1, True), (resource_id + 10, True)])
        if resource_id in fails:
            raise ConnectionError("database went away")
    monkeypatch.setattr(engine, "check_resource", step)


def test_the_task_runs_the_nodes_it_kept_one_after_another(celery, monkeypatch):
    ran: list[int] = []
    _chain_steps(monkeypatch, ran)
    named: list[Any] = []
    step = engine.check_resource
    monkeypatch.setattr(engine, "check_resource", lambda *a: (
        named.append(logs.current().get("resource")), step(*a)))
    logs.bind(resource=1)  # as the task's prerun binds its ids
    try:
        tasks._step_and_continue("s", "t", 1, True)
        assert logs.current().get("resource") == 1
    finally:
        logs.clear()
    assert ran == [1, 2, 3] and named == [1, 2, 3]   # each step's log lines name its resource
    assert celery.nodes() == [(11, True), (12, True)]
    assert getattr(dispatcher._local, "continuation", None) is None


def test_a_kept_step_that_raises_is_sent_as_a_task_and_the_chain_goes_on(celery, monkeypatch):
    ran: list[int] = []
    _chain_steps(monkeypatch, ran, fails={2})
    tasks._step_and_continue("s", "t", 1, True)
    assert ran == [1, 2, 3]   # 2 kept 3 before it raised
    assert (dispatcher.POLL_RESOURCE, ("s", "t", 2, True), 0.1) in celery.sent
    assert celery.nodes() == [(11, True), (12, True), (2, True)]


def test_the_tasks_own_step_raising_is_the_tasks_error(celery, monkeypatch):
    ran: list[int] = []
    _chain_steps(monkeypatch, ran, fails={1})
    with pytest.raises(ConnectionError):   # Celery's autoretry sends the task again
        tasks._step_and_continue("s", "t", 1, True)
    assert ran == [1] and celery.nodes() == [(11, True)]


def test_a_message_delivered_again_steps_the_nodes_left_unsettled_and_keeps_nothing(
        celery, monkeypatch):
    ran: list[int] = []
    _chain_steps(monkeypatch, ran, last=2)
    asked: list[tuple[Any, ...]] = []

    def unsettled(*args: Any) -> list[tuple[int, bool]]:
        asked.append(args)
        return [(7, True), (8, False)]

    monkeypatch.setattr(engine, "unsettled_after", unsettled)
    tasks._step_and_continue("s", "t", 1, True)
    assert ran == [1, 2] and asked == [] and celery.nodes() == [(11, True)]
    ran.clear()
    celery.sent.clear()
    tasks._step_and_continue("s", "t", 1, True, again=True)
    assert ran == [1, 7, 8]
    assert asked == [("s", "t", 1, True, dispatcher.CONTINUE_MAX_STEPS)]
    assert celery.nodes() == [(2, True), (11, True)]   # its fan-out all sent


@pytest.mark.parametrize(("info", "retries", "again"), [
    (None, 0, False), ({"redelivered": False}, 0, False),
    ({"redelivered": True}, 0, True), ({}, 2, True)])
def test_a_message_ran_before_when_redelivered_or_retried(info, retries, again):
    request = types.SimpleNamespace(delivery_info=info, retries=retries)
    assert tasks._again(request) is again
