"""Publishing an event: a stack known (from the fresh cache) to have no sinks costs nothing; an
unknown or stale one is read once, on the publishing thread, and its sinks get the event."""
from __future__ import annotations

import logging
import time
from typing import Any

import pytest

from app.services import event_sinks

ROW = {"stack_id": "s1", "uuid": "e1", "resource_name": "r", "action": "CREATE",
       "status": "COMPLETE"}


class _Courier:
    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def put(self, body: dict[str, Any]) -> None:
        self.bodies.append(body)


@pytest.fixture()
def world(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Stack ``s1``'s sinks as a read of its environment would find them, the reads counted."""
    state: dict[str, Any] = {"sinks": [], "reads": 0, "courier": _Courier()}
    monkeypatch.setattr(event_sinks, "_sinks_cache", {})

    def read(stack_id: str) -> list[Any]:
        state["reads"] += 1
        event_sinks._sinks_cache[stack_id] = (time.monotonic(), state["sinks"])
        return list(state["sinks"])
    monkeypatch.setattr(event_sinks, "stack_sinks", read)
    monkeypatch.setattr(event_sinks, "courier", lambda sink: state["courier"])
    return state


def test_an_event_of_a_stack_cached_without_sinks_reads_nothing(world: dict[str, Any]):
    event_sinks._sinks_cache["s1"] = (time.monotonic(), [])
    event_sinks.publish(ROW)
    assert world["reads"] == 0 and world["courier"].bodies == []


def test_an_unknown_or_stale_stack_is_read_once_then_known(world: dict[str, Any]):
    event_sinks.publish(ROW)            # not cached: read
    event_sinks.publish(ROW)            # cached without sinks: nothing
    assert world["reads"] == 1
    event_sinks._sinks_cache["s1"] = (time.monotonic() - event_sinks.SINKS_TTL - 1, [])
    event_sinks.publish(ROW)            # stale: read again
    assert world["reads"] == 2 and world["courier"].bodies == []


def test_a_stack_with_a_sink_gets_heats_event_body(world: dict[str, Any]):
    world["sinks"] = ["a sink"]
    event_sinks.publish(ROW)
    (body,) = world["courier"].bodies
    assert body["id"] == "e1" and body["type"] == "os.heat.event"
    assert body["payload"]["resource_status"] == "COMPLETE"


def test_publish_never_raises(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                              caplog: pytest.LogCaptureFixture):
    def broken(stack_id: str) -> list[Any]:
        raise RuntimeError("database gone")
    monkeypatch.setattr(event_sinks, "stack_sinks", broken)
    with caplog.at_level(logging.WARNING, logger=event_sinks.__name__):
        event_sinks.publish(ROW)
        event_sinks.publish({"uuid": "no stack id"})
    assert [r.getMessage() for r in caplog.records] == [
        "event e1 not handed to the sinks: database gone",
        "event no stack id not handed to the sinks: 'stack_id'"]
    assert world["courier"].bodies == []


def test_an_ignored_sink_is_logged_without_its_headers_values(caplog: pytest.LogCaptureFixture):
    spec = {"type": "webhook", "url": "ftp://hooks.example.com/x", "headers": {"X-Token": "abc"}}
    with caplog.at_level(logging.WARNING, logger=event_sinks.log.name):
        assert event_sinks.remember("s9", "st", "p1", {"event_sinks": [spec]}) == []
    (line,) = [r.getMessage() for r in caplog.records if "ignored" in r.getMessage()]
    assert "X-Token" in line and "***" in line and "abc" not in line
