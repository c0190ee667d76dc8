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


def test_the_labels_of_a_batch_are_read_in_one_query(db, monkeypatch):
    st = stacks.create_stack(CTX, stack_name="wide", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(3)}))
    st = final(CTX, st.id)
    ids = {name: r.id for name, r in rows(st.id).items()}
    labels._resource_name.cache_clear()
    labels.prefetch(st.id, list(ids.values()))

    def no_reads():  # type: ignore[no-untyped-def]
        raise AssertionError("a name was read one by one")

    monkeypatch.setattr(labels.step_labels, "read_session", no_reads)
    assert [labels._resource_name(st.id, ids[n]) for n in ("r0", "r1", "r2")] == ["r0", "r1", "r2"]


def test_a_batch_label_names_its_stack_first_resources_and_action(db):
    st = stacks.create_stack(CTX, stack_name="wide2", template=hot(
        {f"r{i}": {"type": "OS::Heat::None"} for i in range(5)}))
    st = final(CTX, st.id)
    ids = [r.id for _, r in sorted(rows(st.id).items())]
    got = labels.steps(st.id, st.current_traversal, [(i, True) for i in ids])
    assert got == "(project=admin, stack=wide2, 5 resources: r0, r1, r2, ..., CREATE)"


def test_without_task_events_no_label_is_read(db, monkeypatch):
    """Nobody sees ``argsrepr`` without task events: the dispatcher reads no names for it and
    labels each message by its ids (Celery would otherwise repr the arguments on every send)."""
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

    monkeypatch.setattr(labels.step_labels, "read_session", no_reads)
    labels._stack.cache_clear()
    labels._resource_name.cache_clear()
    d = dispatcher.CeleryDispatcher(App())
    d.check_resource(st.id, st.current_traversal, ids[0], True)
    assert [kw["argsrepr"] for kw in sent] == [f"(stack={st.id}, resource={ids[0]}, forward)"]
