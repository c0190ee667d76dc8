"""Publishing an event: a stack known (from the fresh cache) to have no sinks costs nothing."""
from __future__ import annotations

import queue
import time

import pytest

from app.services import event_sinks


class _Alive:
    def is_alive(self) -> bool:
        return True


@pytest.fixture()
def inbox(monkeypatch: pytest.MonkeyPatch) -> queue.Queue:
    q: queue.Queue = queue.Queue()
    monkeypatch.setattr(event_sinks, "_inbox", q)
    monkeypatch.setattr(event_sinks, "_router", _Alive())
    monkeypatch.setattr(event_sinks, "_sinks_cache", {})
    return q


ROW = {"stack_id": "s1", "uuid": "e1", "resource_name": "r", "action": "CREATE",
       "status": "COMPLETE"}


def test_an_event_of_a_stack_cached_without_sinks_is_not_routed(inbox: queue.Queue):
    event_sinks._sinks_cache["s1"] = (time.monotonic(), [])
    event_sinks.publish(ROW)
    assert inbox.empty()


def test_an_event_of_an_unknown_or_stale_stack_goes_to_the_router(inbox: queue.Queue):
    event_sinks.publish(ROW)  # not cached: the router looks its sinks up
    event_sinks._sinks_cache["s1"] = (time.monotonic() - event_sinks.SINKS_TTL - 1, [])
    event_sinks.publish(ROW)  # stale: looked up again
    assert [inbox.get_nowait()[1]["id"] for _ in range(2)] == ["e1", "e1"]
