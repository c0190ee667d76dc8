"""The Celery dispatcher: a step goes out as ``stoker.check_resource``, a step after a countdown
as ``stoker.poll_resource``; with task events on, each message names its stack, resource and
action in ``argsrepr`` (what Flower shows); every message carries the request id of the API call
behind it."""
from __future__ import annotations

import dataclasses

import pytest

from app import config, logs
from app.context import RequestContext
from app.services import stacks
from app.tasks import dispatcher, labels
from tests.fixtures.stacks import final, hot, rows

CTX = RequestContext(tenant_id="admin")


@pytest.fixture()
def events_on(db):  # type: ignore[no-untyped-def]
    """Task events on (``STOKER_TASK_EVENTS=1``, as ``stoker up --flower``)."""
    config.set_current(dataclasses.replace(db, task_events=True))
    return db


def test_steps_and_polls_name_their_stack_resource_and_action(events_on, monkeypatch):
    st = stacks.create_stack(CTX, stack_name="web", template=hot({"server": {"type": "OS::Heat::None"}}))
    st = final(CTX, st.id)
    rid = rows(st.id)["server"].id
    sent: list[tuple[str, tuple, dict]] = []

    class App:
        def send_task(self, name, args, **kw):
            sent.append((name, args, kw))

    logs.bind(request_id="req-1234")
    try:
        d = dispatcher.CeleryDispatcher(App())
        d.check_resource(st.id, st.current_traversal, rid, True)
        d.check_resource(st.id, st.current_traversal, rid, False, countdown=2.5)
    finally:
        logs.clear()
    (n1, a1, k1), (n2, _a2, k2) = sent
    assert n1 == "stoker.check_resource" and a1 == (st.id, st.current_traversal, rid, True)
    assert k1["argsrepr"] == "(project=admin, stack=web, resource=server, CREATE)" and k1["countdown"] is None
    assert n2 == "stoker.poll_resource" and k2["countdown"] == 2.5
    assert k2["argsrepr"] == "(project=admin, stack=web, resource=server, DELETE)"
    assert k1["headers"] == {dispatcher.REQUEST_ID_HEADER: "req-1234"}


def test_a_label_that_cannot_be_read_gives_the_ids(db):
    labels._stack.cache_clear()
    assert labels.step("nope", "t", 999999, True) == "(stack=nope, resource=999999, forward)"


class _Producer:
    def __init__(self, fail: bool) -> None:
        self.fail, self.batches = fail, 0

    def batch(self):  # type: ignore[no-untyped-def]
        producer = self

        class Batch:
            def __enter__(self):  # type: ignore[no-untyped-def]
                producer.batches += 1
                return self

            def __exit__(self, exc_type, *_: object) -> None:
                if exc_type is None and producer.fail:
                    raise ConnectionError("batch failed; delivery is uncertain")

        return Batch()


class _App:
    def __init__(self, fail: bool) -> None:
        self.producer, self.sent = _Producer(fail), []

    def producer_or_acquire(self):  # type: ignore[no-untyped-def]
        import contextlib
        return contextlib.nullcontext(self.producer)

    def send_task(self, name, args, **kw):  # type: ignore[no-untyped-def]
        assert kw["producer"] is self.producer and kw["ignore_result"] is True
        self.sent.append(args[2])


def test_a_batch_of_steps_goes_out_in_one_producer_batch(db):
    app = _App(fail=False)
    dispatcher.CeleryDispatcher(app).check_resources("s", "t", [(1, True), (2, True), (3, True)])
    assert app.producer.batches == 1 and app.sent == [1, 2, 3]


def test_a_failed_batch_is_sent_again_step_by_step(db):
    app = _App(fail=True)  # kombu cannot tell what went out: everything again, one by one
    dispatcher.CeleryDispatcher(app).check_resources("s", "t", [(1, True), (2, True)])
    assert app.producer.batches == 1 and app.sent == [1, 2, 1, 2]


def test_the_labels_of_a_batch_are_read_in_one_query(db, monkeypatch):
    st = stacks.create_stack(CTX, stack_name="wide", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(3)}))
    st = final(CTX, st.id)
    ids = {name: r.id for name, r in rows(st.id).items()}
    labels._resource_name.cache_clear()
    labels.prefetch(st.id, list(ids.values()))

    def no_reads():  # type: ignore[no-untyped-def]
        raise AssertionError("a name was read one by one")

    monkeypatch.setattr(labels, "read_session", no_reads)
    assert [labels._resource_name(st.id, ids[n]) for n in ("r0", "r1", "r2")] == ["r0", "r1", "r2"]


def test_a_fan_out_wider_than_twice_the_fleet_goes_out_in_batches(db, monkeypatch):
    app = _App(fail=False)
    sent: list[tuple[str, tuple]] = []
    app.send_task = lambda name, args, **kw: sent.append((name, args))  # type: ignore[method-assign]
    d = dispatcher.CeleryDispatcher(app)
    d.parallelism, d.batch_max = 2, 3
    nodes = [(i, True) for i in range(10)]
    d.check_resources("s", "t", nodes)
    assert {name for name, _ in sent} == {"stoker.check_resources"}
    carried = [tuple(n) for _, args in sent for n in args[2]]
    assert carried == nodes                      # every node once, in order
    assert max(len(args[2]) for _, args in sent) <= 3
    sent.clear()
    d.check_resources("s", "t", nodes[:4])       # not wider than twice the fleet: one each
    assert [name for name, _ in sent] == ["stoker.check_resource"] * 4


def test_a_batch_label_names_its_stack_first_resources_and_action(db):
    st = stacks.create_stack(CTX, stack_name="wide2", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(5)}))
    st = final(CTX, st.id)
    ids = [r.id for _, r in sorted(rows(st.id).items())]
    got = labels.steps(st.id, st.current_traversal, [(i, True) for i in ids])
    assert got == "(project=admin, stack=wide2, 5 resources: r0, r1, r2, ..., CREATE)"


def test_a_stack_timer_names_its_stack_and_action(events_on):
    st = stacks.create_stack(CTX, stack_name="timed", template=hot({"r": {"type": "OS::Heat::None"}}))
    st = final(CTX, st.id)
    sent: list[dict] = []

    class App:
        def send_task(self, name, args, **kw):  # type: ignore[no-untyped-def]
            sent.append(kw)

    dispatcher.CeleryDispatcher(App()).stack_timeout(st.id, st.current_traversal, 60)
    assert sent[0]["argsrepr"] == "(project=admin, stack=timed, CREATE timeout)"
    labels._stack.cache_clear()
    assert labels.timer("nope", "t") == "(stack=nope, timeout)"


def test_without_task_events_no_label_is_read(db, monkeypatch):
    """Nobody sees ``argsrepr`` without task events: the dispatcher reads no names for it and
    Celery shows the arguments themselves."""
    st = stacks.create_stack(CTX, stack_name="quiet", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(3)}))
    st = final(CTX, st.id)
    ids = sorted(r.id for r in rows(st.id).values())
    sent: list[dict] = []

    class App:
        def send_task(self, name, args, **kw):  # type: ignore[no-untyped-def]
            sent.append(kw)

    def no_reads():  # type: ignore[no-untyped-def]
        raise AssertionError("a label was read")

    monkeypatch.setattr(labels, "read_session", no_reads)
    labels._stack.cache_clear()
    labels._resource_name.cache_clear()
    d = dispatcher.CeleryDispatcher(App())
    d.check_resource(st.id, st.current_traversal, ids[0], True)
    d.stack_timeout(st.id, st.current_traversal, 60)
    assert [kw["argsrepr"] for kw in sent] == [None, None]


def test_labels_are_wanted_once_a_flower_turns_the_workers_task_events_on(db, monkeypatch):
    """Celery's ``enable_events`` (what a Flower sends) adds ``task`` to the worker's event
    groups; from then on the messages the worker sends carry labels again."""
    class Events:
        enabled, groups = True, {"worker"}

    class Consumer:
        event_dispatcher = Events()

    monkeypatch.setattr(labels, "_consumer", Consumer())
    assert not labels.wanted()
    Events.groups = {"worker", "task"}
    assert labels.wanted()
    Events.enabled = False
    assert not labels.wanted()
    monkeypatch.setattr(labels, "_consumer", None)
    config.set_current(dataclasses.replace(db, task_events=True))
    assert labels.wanted()
