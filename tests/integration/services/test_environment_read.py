"""A step that reads a stack's stored environment hands it to the event sinks: the stack's
events in that process then cost no read of their own, and a stack with a sink gets it."""
from __future__ import annotations

from typing import Any

from app.convergence.store import definitions
from app.models import Stack, read_session
from app.services import event_sinks

T = {"heat_template_version": "2018-08-31", "resources": {"r": {"type": "OS::Heat::None"}}}
SINK = {"type": "zaqar-queue", "target": "q1"}


def _stack(client: Any, name: str, environment: dict[str, Any]) -> Any:
    resp = client.post("/v1/admin/stacks", json={"stack_name": name, "template": T,
                                                  "environment": environment})
    assert resp.status_code == 201, resp.get_json()
    with read_session() as s:
        st = s.get(Stack, resp.get_json()["stack"]["id"])
        assert st is not None
        return st


def _load_fresh(st: Any, monkeypatch: Any) -> None:
    """A process that has seen neither the stack's definition nor its sinks loads it."""
    monkeypatch.setattr(event_sinks, "_sinks_cache", {})
    monkeypatch.setattr(definitions, "_cache", type(definitions._cache)())
    definitions.load(st.id, st.raw_template_id, st.name, st.tenant)


def test_a_loaded_stack_without_sinks_is_known_without_a_read(client, monkeypatch):
    st = _stack(client, "plain", {})
    _load_fresh(st, monkeypatch)
    monkeypatch.setattr(event_sinks, "read_session", None)  # a read would fail
    assert event_sinks._known_without_sinks(st.id)
    event_sinks.publish({"stack_id": st.id, "uuid": "e1"})


def test_a_loaded_stack_with_a_sink_has_it_without_a_read(client, monkeypatch):
    st = _stack(client, "sunk", {"event_sinks": [SINK]})
    _load_fresh(st, monkeypatch)
    monkeypatch.setattr(event_sinks, "read_session", None)
    assert [sink.key for sink in event_sinks.stack_sinks(st.id)] == [
        ("zaqar-queue", st.tenant, "q1")]
