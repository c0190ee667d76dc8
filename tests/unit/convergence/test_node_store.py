"""The node store (:mod:`app.convergence.store.nodes`): one interface, two implementations.

SQLite's (:class:`OneByOne`) writes a finished node and counts it in one transaction;
PostgreSQL's (:class:`Grouped`) shares transactions between the steps that finish together and
counts after the commit, writing a step alone when its group's transaction fails. The
statements (:mod:`app.convergence.store.node_writes`) are replaced by a recording fake here:
what is checked is the order of writes, counts and enqueues, with no database and no worker.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from app import errors
from app.convergence.results import Node
from app.convergence.store import nodes
from app.convergence.store.node_writes import Finished
from app.convergence.store.rows import ResourceRow, StepStack


def _node(rid: int) -> Node:
    row = ResourceRow.__new__(ResourceRow)
    row.id, row.atomic_key = rid, 7
    stack = StepStack("s1", "wide", "tenant", 1, "t1", "CREATE", 0, False, False)
    return Node(stack, row, "t1", True, looked=0.0)


class _Fake:
    """The store's statements, recorded in the order they run."""

    def __init__(self, ended: bool = True, fail_group: bool = False) -> None:
        self.log: list[tuple[Any, ...]] = []
        self.ended, self.fail_group = ended, fail_group
        self.transactions = 0

    @contextlib.contextmanager
    def session(self) -> Iterator[str]:
        self.transactions += 1
        name = f"tx{self.transactions}"
        self.log.append(("begin", name))
        yield name
        self.log.append(("commit", name))

    def write_finished(self, s: str, prepared: list[tuple[Node, Finished]]) -> Any:
        keys = [n.key for n, _ in prepared]
        if self.fail_group and len(keys) > 1:
            raise RuntimeError("deadlock")
        self.log.append(("write", s, keys))
        ended = keys if self.ended else []
        return ended, {k: [(99, True)] for k in ended}

    def count(self, s: str, node: Node, n: int, end: Any) -> None:
        self.log.append(("count in", s, n))

    def count_committed(self, node: Node, ended: list[Any], end: Any,
                        recover: bool = False) -> None:
        self.log.append(("count after", sorted(ended), recover))

    def enqueue(self, node: Node, ready: list[Any]) -> None:
        self.log.append(("enqueue", ready))

    def reenqueue_successors(self, node: Node) -> None:
        self.log.append(("reenqueue", node.key))


@pytest.fixture()
def fake(monkeypatch: pytest.MonkeyPatch) -> _Fake:
    f = _Fake()
    monkeypatch.setattr(nodes, "session", f.session)
    for name in ("write_finished", "count", "count_committed", "enqueue",
                 "reenqueue_successors"):
        monkeypatch.setattr(nodes.w, name, getattr(f, name))
    return f


def _finished() -> Finished:
    return Finished({"engine_id": None}, [], None)


def test_sqlite_counts_a_finished_node_in_its_own_transaction_then_enqueues(fake: _Fake) -> None:
    nodes.OneByOne().finish(_node(1), _finished(), end=None)  # type: ignore[arg-type]
    assert fake.log == [("begin", "tx1"), ("write", "tx1", [(1, True)]),
                        ("count in", "tx1", 1), ("commit", "tx1"), ("enqueue", [(99, True)])]


def test_postgresql_counts_a_finished_node_after_its_commit(fake: _Fake) -> None:
    nodes.Grouped().finish(_node(1), _finished(), end=None)  # type: ignore[arg-type]
    assert fake.log == [("begin", "tx1"), ("write", "tx1", [(1, True)]), ("commit", "tx1"),
                        ("count after", [(1, True)], False), ("enqueue", [(99, True)])]


def test_a_batch_is_one_transaction_on_both(fake: _Fake) -> None:
    batch = [(_node(1), _finished()), (_node(2), _finished())]
    assert nodes.OneByOne().finish_together(batch, end=None) == []  # type: ignore[arg-type]
    assert nodes.Grouped().finish_together(batch, end=None) == []  # type: ignore[arg-type]
    assert fake.transactions == 2
    assert ("count in", "tx1", 2) in fake.log
    assert ("count after", [(1, True), (2, True)], False) in fake.log


def test_a_redelivered_finish_on_postgresql_recounts_and_reenqueues(fake: _Fake) -> None:
    fake.ended = False
    nodes.Grouped().finish(_node(1), _finished(), end=None)  # type: ignore[arg-type]
    assert fake.log[-2:] == [("count after", [(1, True)], True), ("reenqueue", (1, True))]
    fake.log.clear()
    nodes.OneByOne().finish(_node(1), _finished(), end=None)  # type: ignore[arg-type]
    assert not [e for e in fake.log if e[0] in ("count in", "count after", "reenqueue")]


def test_a_group_whose_transaction_fails_is_written_one_by_one(fake: _Fake) -> None:
    fake.fail_group = True
    store = nodes.Grouped()
    got = store._finish_group([(_node(1), _finished(), None), (_node(2), _finished(), None)])
    assert got == [None, None]  # each caller then writes alone
    store.finish(_node(1), _finished(), end=None)  # type: ignore[arg-type]
    assert ("write", "tx2", [(1, True)]) in fake.log


def test_a_lost_lease_in_a_park_group_hands_each_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def lost(items: Any) -> None:
        raise errors.LeaseLost("taken over")
    monkeypatch.setattr(nodes.w, "park_many", lost)
    assert nodes.Grouped()._park_group([1, 2]) == [None, None]  # type: ignore[list-item]


def test_what_is_in_flight_and_who_may_be_dead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes.locks, "running_here", lambda engine: engine == "here:1")
    one, grouped = nodes.OneByOne(), nodes.Grouped()
    assert not one.may_be_dead("here:1") and one.may_be_dead("there:2")
    assert grouped.may_be_dead("here:1") and grouped.may_be_dead("there:2")
    assert "counted" not in str(one.in_flight()) and "counted" in str(grouped.in_flight())
    assert (one.counts_after_commit, grouped.counts_after_commit) == (False, True)


def test_the_store_is_chosen_once_per_kind_of_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nodes, "_MADE", {})
    monkeypatch.setattr(nodes, "concurrent_writers", lambda: False)
    assert isinstance(nodes.current(), nodes.OneByOne)
    assert nodes.current() is nodes.current()
    monkeypatch.setattr(nodes, "concurrent_writers", lambda: True)
    assert isinstance(nodes.current(), nodes.Grouped)
    assert nodes.current() is nodes.current()
