"""The Celery dispatcher: a step goes out as ``stoker.check_resource``, a step after a countdown
as ``stoker.poll_resource``; each message names its stack, resource and action in ``argsrepr``
(what Flower shows) and carries the request id of the API call behind it."""
from __future__ import annotations

from app import logs
from app.context import RequestContext
from app.services import stacks
from app.tasks import dispatcher, labels
from tests.fixtures.stacks import final, hot, rows

CTX = RequestContext(tenant_id="admin")


def test_steps_and_polls_name_their_stack_resource_and_action(db, monkeypatch):
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
    assert k1["argsrepr"] == "(stack=web, resource=server, CREATE)" and k1["countdown"] is None
    assert n2 == "stoker.poll_resource" and k2["countdown"] == 2.5
    assert k2["argsrepr"] == "(stack=web, resource=server, DELETE)"
    assert k1["headers"] == {dispatcher.REQUEST_ID_HEADER: "req-1234"}


def test_a_label_that_cannot_be_read_gives_the_ids(db):
    labels._stack.cache_clear()
    assert labels.step("nope", "t", 999999, True) == "(stack=nope, resource=999999, forward)"
