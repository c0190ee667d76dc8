"""What a step delivered again re-drives after its own node
(:func:`app.convergence.reconciler.unsettled_after`): the ended nodes reached from it through
ended nodes, depth first, that have a successor which fired (its message may be lost) or, on
PostgreSQL, were not counted; as deep as ``limit``, and nothing for a traversal that is not
the stack's current one."""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from app.context import RequestContext
from app.convergence import check, reconciler
from app.convergence.store import nodes
from app.models import Stack, SyncPoint, session
from app.services import stacks
from tests.fixtures.stacks import hot, rows
from tests.fixtures.wiring import use_dispatcher

CTX = RequestContext(tenant_id="admin")


class Recorder:
    """A dispatcher that only records: each step is run by the test itself."""

    def __init__(self) -> None:
        self.ready: list[tuple[int, bool]] = []

    def check_resources(self, stack_id: str, traversal_id: str, nodes: Any) -> None:
        self.ready.extend(nodes)

    def check_resource(self, *args: Any, countdown: float = 0.0) -> None:
        self.ready.append((args[2], args[3]))

    def safety_poll(self, *args: Any) -> None:
        pass


@pytest.fixture()
def graph(db, monkeypatch):  # type: ignore[no-untyped-def]
    """A stack ``a -> b -> c`` and ``a -> x -> y`` (OS::Heat::None), its create started and
    only ``a``, ``b`` and ``x`` stepped: ``c`` and ``y`` fired, never run."""
    use_dispatcher(Recorder())
    none: dict[str, Any] = {"type": "OS::Heat::None"}
    st = stacks.create_stack(CTX, stack_name="g", template=hot({
        "a": none, "b": {**none, "depends_on": ["a"]}, "c": {**none, "depends_on": ["b"]},
        "x": {**none, "depends_on": ["a"]}, "y": {**none, "depends_on": ["x"]}}))
    ids = {name: r.id for name, r in rows(st.id).items()}
    for name in ("a", "b", "x"):
        check.check_resource(st.id, st.current_traversal, ids[name], True)
    return st, ids


def _after(st: Any, ids: dict[str, int], name: str, limit: int = 100) -> set[str]:
    names = {v: k for k, v in ids.items()}
    got = reconciler.unsettled_after(st.id, st.current_traversal, (ids[name], True), limit)
    assert len(got) == len(set(got))
    return {names[rid] for rid, upd in got if upd}


def test_the_ended_nodes_whose_successors_fired_and_not_the_node_itself(graph):
    st, ids = graph
    assert _after(st, ids, "a") == {"b", "x"}
    assert _after(st, ids, "b") == set()   # its own step re-enqueues c


def test_only_as_many_ended_nodes_as_the_limit(graph):
    st, ids = graph
    check.check_resource(st.id, st.current_traversal, ids["c"], True)  # b's successor ended
    # depth first in successor order: b, then c (b's), then x
    assert _after(st, ids, "a") == _after(st, ids, "a", limit=3) == {"x"}
    assert _after(st, ids, "a", limit=2) == set()
    assert _after(st, ids, "a", limit=0) == set()


def test_on_postgresql_the_ended_nodes_not_counted_too(graph, monkeypatch):
    st, ids = graph
    check.check_resource(st.id, st.current_traversal, ids["c"], True)
    assert _after(st, ids, "a") == {"x"}
    monkeypatch.setattr(nodes, "current", nodes.Grouped)  # the store that counts after commit
    assert _after(st, ids, "a") == {"b", "c", "x"}   # SQLite's steps never mark them counted
    with session() as s:
        s.execute(update(SyncPoint).where(SyncPoint.traversal_id == st.current_traversal,
                                          SyncPoint.entity_id.in_([ids["b"], ids["c"]]))
                  .values(counted=True))
    assert _after(st, ids, "a") == {"x"}


def test_nothing_for_a_traversal_superseded_or_ended(graph):
    st, ids = graph
    with session() as s:
        s.execute(update(Stack).where(Stack.id == st.id).values(current_traversal="newer"))
    assert _after(st, ids, "a") == set()
    with session() as s:
        s.execute(update(Stack).where(Stack.id == st.id).values(
            current_traversal=st.current_traversal, status="COMPLETE"))
    assert _after(st, ids, "a") == set()
