"""The runtime's applier (:func:`app.convergence.outcome.apply`) over both node stores, with a
fake clock and no worker: what a step's Poll, Wait and Done write, count and enqueue.

The store's statements (:mod:`app.convergence.store.node_writes`) are recorded, not run; the
dispatcher records what is enqueued. Expected values follow the runtime's contract (DESIGN.md,
invariant 4): an unfinished action is parked with its handle and looked at again after the
plugin's ``poll_delay``; a wait is parked and gets a safety poll; a finished node is written,
counted (in its transaction on SQLite, after its commit on PostgreSQL) and its ready
successors are enqueued after that.
"""
from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest

from app.convergence import outcome, timeouts
from app.convergence.results import Done, Node, Poll, Settled, Signalled, Start, Wait
from app.convergence.store import nodes, pacing
from app.convergence.store.events import ResourceEvent
from app.convergence.store.rows import ResourceRow, StepStack
from app.engine.states import Action, Status

NOW = dt.datetime(2026, 1, 1, 12, 0, 0)
LOOKED, LATER = 1_000.0, 1_002.5  # epoch seconds: the look began, the look ended


class _Plugin:
    """A driver that paces itself (its own ``poll_delay``)."""

    resource_id = "phys-1"

    def __init__(self) -> None:
        self.data: dict[str, Any] = {"k": "v"}

    def poll_delay(self, handle: Any, attempt: int) -> float:
        return 0.25 * attempt


class _Recorder:
    """The dispatcher and the store's statements, in the order they were called."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []

    def check_resource(self, *args: Any, countdown: float = 0.0) -> None:
        self.log.append(("check_resource", *args, countdown))

    def safety_poll(self, *args: Any) -> None:
        self.log.append(("safety_poll", *args))


def _node() -> Node:
    row = ResourceRow(7, "u", "s1", "server", "OS::Nova::Server", Action.INIT, Status.COMPLETE,
                      "", None, [], "Delete", None, {}, None, None, 0, "me", 3, NOW, None)
    stack = StepStack("s1", "web", "tenant", 1, "t1", Action.CREATE, 0, False, False,
                      succ=[[8, True]])
    return Node(stack, row, "t1", True, looked=LOOKED)


@pytest.fixture(params=[nodes.OneByOne, nodes.Grouped], ids=["sqlite", "postgresql"])
def store(request: Any, monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[Any]:
    from tests.fixtures.wiring import use_dispatcher
    rec = _Recorder()
    use_dispatcher(rec)  # type: ignore[type-var]
    chosen = request.param()
    monkeypatch.setattr(nodes, "current", lambda: chosen)
    monkeypatch.setattr(pacing, "clock", lambda: LATER)
    monkeypatch.setattr(outcome, "utcnow", lambda: NOW)

    @contextlib.contextmanager
    def session() -> Iterator[str]:
        rec.log.append(("begin",))
        yield "tx"
        rec.log.append(("commit",))

    def park(node: Node, values: dict[str, Any], rows: Any) -> bool:
        rec.log.append(("park", node.key, values, list(rows)))
        return True

    def write_finished(s: str, prepared: list[Any]) -> Any:
        rec.log.append(("write", [(n.key, f.values, [e.status for e in f.events])
                                  for n, f in prepared]))
        return [n.key for n, _ in prepared], {prepared[0][0].key: [(8, True)]}

    monkeypatch.setattr(nodes, "session", session)
    monkeypatch.setattr(nodes.w, "park_alone", park)
    monkeypatch.setattr(nodes.w, "park_many", lambda items: [park(*i) for i in items])
    monkeypatch.setattr(nodes.w, "write_finished", write_finished)
    monkeypatch.setattr(nodes.w, "count", lambda s, node, n, end: rec.log.append(("count", n)))
    monkeypatch.setattr(nodes.w, "count_committed",
                        lambda node, ended, end, recover=False: rec.log.append(("count", 1)))
    monkeypatch.setattr(nodes.w, "settle", lambda r, values, found: rec.log.append(
        ("settle", r.id, values, list(found))))
    monkeypatch.setattr(nodes.w, "signalled", lambda r, token, data, found: rec.log.append(
        ("signalled", r.id, token, data, list(found))))
    monkeypatch.setattr(nodes.w, "enqueue", lambda node, ready: rec.log.append(
        ("check_resources", node.stack.id, node.traversal_id, ready)))
    yield rec


def test_a_poll_parks_the_handle_with_its_timing_and_looks_again_after_poll_delay(store):
    plugin = _Plugin()
    event = ResourceEvent(None, "OS::Nova::Server", Action.CREATE, Status.IN_PROGRESS, "mine")
    outcome.apply(_node(), Poll({"op": 1}, 0.25, plugin, Start(Action.CREATE), events=[event]))
    (park, key, values, rows), enqueued = store.log
    assert (park, key) == ("park", (7, True))
    assert rows[0] == event  # the step's own events, then the IN_PROGRESS of the started action
    assert [(e.action, e.status, e.reason) for e in rows[1:]] == [
        (Action.CREATE, Status.IN_PROGRESS, "state changed")]
    assert (values["action"], values["status"]) == ("CREATE", "IN_PROGRESS")
    assert values["handle"] == {"h": {"op": 1}, "t": "t1", "since": LATER, "last": LOOKED,
                                "phase": 0, "fp": pacing.fingerprint({"op": 1})}
    assert (values["engine_id"], values["poll_attempt"]) == (None, 1)
    assert (values["physical_resource_id"], values["rsrc_data"]) == ("phys-1", {"k": "v"})
    assert enqueued == ("check_resource", "s1", "t1", 7, True, 0.25)


def test_a_wait_parks_its_event_and_gets_a_safety_poll_before_its_deadline(store):
    deadline = NOW + dt.timedelta(seconds=30)
    outcome.apply(_node(), Wait("signal:7", deadline, "h", _Plugin()))
    (park, _, values, _), poll = store.log
    assert park == "park"
    assert values["handle"] == {"h": "h", "t": "t1", "wait": "signal:7"}
    assert poll == ("safety_poll", "s1", "t1", 7, True, min(timeouts.SAFETY_POLL_SECONDS, 30.0))


def test_done_writes_counts_then_enqueues_the_ready_successors(store):
    outcome.apply(_node(), Done(_Plugin(), start=Start(Action.CREATE)))
    write = next(e for e in store.log if e[0] == "write")
    [(key, values, statuses)] = write[1]
    assert key == (7, True)
    assert (values["action"], values["status"]) == (Action.CREATE, Status.COMPLETE)
    assert statuses == [Status.IN_PROGRESS, Status.COMPLETE]  # started and ended in one step
    order = [e[0] for e in store.log]
    if isinstance(nodes.current(), nodes.Grouped):  # counted after the commit
        assert order == ["begin", "write", "commit", "count", "check_resources"]
    else:  # counted in the node's own transaction
        assert order == ["begin", "write", "count", "commit", "check_resources"]
    assert store.log[-1] == ("check_resources", "s1", "t1", [(8, True)])


def test_a_stopped_traversals_action_is_written_and_looked_at_again_while_it_goes_on(store):
    row = _node().resource
    outcome.settled(Settled(row, "t0", True, {"poll_attempt": 2}, delay=0.5))
    assert store.log == [("settle", 7, {"poll_attempt": 2}, []),
                         ("check_resource", "s1", "t0", 7, True, 0.5)]


def test_a_stopped_traversals_action_that_ended_writes_its_event_and_is_not_looked_at_again(
        store):
    row, ended = _node().resource, ResourceEvent("phys-1", "OS::Nova::Server", "UPDATE",
                                                 Status.COMPLETE)
    outcome.settled(Settled(row, "t0", True, {"status": Status.COMPLETE}, [ended]))
    assert store.log == [("settle", 7, {"status": Status.COMPLETE}, [ended])]


def test_a_signal_is_written_with_its_lock_released_then_wakes_its_waiters(store, monkeypatch):
    woken: list[tuple[Any, ...]] = []
    monkeypatch.setattr(outcome.wakeups, "wake_signal_waiters",
                        lambda sid, ref, event: woken.append(("waiters", sid, ref, event)))
    monkeypatch.setattr(outcome.wakeups, "wake",
                        lambda sid, rid, event: woken.append(("resource", sid, rid, event)))
    row = _node().resource
    event = ResourceEvent(None, "OS::Heat::WaitConditionHandle", "SIGNAL", Status.COMPLETE, "ok")
    outcome.signalled(Signalled(row, 3, [event], {"signals": 1}, "ref-1"))
    assert store.log == [("signalled", 7, 3, {"signals": 1}, [event])]
    assert woken == [("waiters", "s1", "ref-1", "signal:ref-1"),
                     ("resource", "s1", 7, "signal:ref-1")]


def test_a_signal_that_changes_nothing_only_releases_the_lock_and_wakes_no_one(store):
    outcome.signalled(Signalled(_node().resource, 3, []))
    assert store.log == [("signalled", 7, 3, None, [])]
