"""The scheduler core: one plan form for every traversal, the node state machine, and the
graphlib-style walk (app.engine.plan / states / walk), pure."""
from __future__ import annotations

import pytest

from app.engine import plan as plans
from app.engine import update_plan
from app.engine.states import TRANSITIONS, NodeEvent, NodeState, sources, transition
from tests.unit.engine.walk import TransitionRefused, Walk

DIAMOND = {"a": set(), "b": {"a"}, "c": {"a"}, "d": {"b", "c"}}


def test_create_and_delete_plans_use_the_update_plans_node_form():
    fwd, rev = plans.forward(DIAMOND), plans.reverse(DIAMOND)
    upd = update_plan.plan(DIAMOND, DIAMOND)
    assert type(fwd) is type(rev) is type(upd) is plans.Plan
    assert fwd.leaves() == [("a", True)]
    assert fwd.successors[("a", True)] == [("b", True), ("c", True)]
    assert fwd.expected[("d", True)] == 2
    # a delete runs against the arrows: what requires a resource goes first
    assert rev.leaves() == [("d", False)]
    assert rev.successors[("b", False)] == [("a", False)]
    assert rev.expected[("a", False)] == 2
    assert set(upd.expected) == set(fwd.expected) | set(rev.expected)


def test_every_event_has_one_source_state_in_the_table():
    assert transition(NodeState.WAITING, NodeEvent.READY) is NodeState.FIRED
    assert transition(NodeState.FIRED, NodeEvent.FINISH) is NodeState.DONE
    assert transition(NodeState.FIRED, NodeEvent.FAIL) is NodeState.FAILED
    assert transition(NodeState.WAITING, NodeEvent.SKIP) is NodeState.SKIPPED
    assert transition(NodeState.DONE, NodeEvent.FINISH) is None  # a redelivery changes nothing
    assert transition(NodeState.SKIPPED, NodeEvent.READY) is None  # a skipped node never runs
    assert {ev: sources(ev) for ev in NodeEvent} == {
        (ev): (src, dst) for (src, ev), dst in TRANSITIONS.items()}


def test_walk_hands_out_ready_nodes_once_in_order():
    w = Walk(plans.forward(DIAMOND))
    assert w.ready() == [("a", True)]
    assert w.ready() == []
    assert w.report(("a", True), ok=True).fired == [("b", True), ("c", True)]
    assert w.ready() == [("b", True), ("c", True)]
    assert w.report(("b", True), ok=True).fired == []  # d still waits for c
    assert w.report(("c", True), ok=True).fired == [("d", True)]
    w.report(("d", True), ok=True)
    assert not w.is_active()


def test_a_failure_skips_its_descendants_once_and_lets_other_branches_finish():
    w = Walk(plans.forward(DIAMOND))
    w.report(("a", True), ok=True)
    report = w.report(("b", True), ok=False)
    assert report.skipped == [("d", True)]  # d depends on b; c does not
    assert w.state[("d", True)] is NodeState.SKIPPED
    assert w.report(("c", True), ok=True).fired == []  # d never fires
    assert not w.is_active()
    assert w.state[("b", True)] is NodeState.FAILED


def test_reporting_a_node_twice_is_refused():
    w = Walk(plans.forward(DIAMOND))
    w.report(("a", True), ok=True)
    with pytest.raises(TransitionRefused):
        w.report(("a", True), ok=True)
    with pytest.raises(TransitionRefused):
        w.report(("d", True), ok=True)  # never ready
