"""A traversal walked in memory: graphlib's ready/done protocol over a :class:`Plan` (pure).

The runtime (``app.convergence``) keeps the same states in sync-point rows and moves them with
compare-and-swap statements; this class is the reference model of those moves, kept with the
tests that walk a traversal without a database (the runtime does not use it). The caller owns the
concurrency, as with :class:`graphlib.TopologicalSorter`: take :meth:`ready` nodes, run them,
then :meth:`report` each.
"""
from __future__ import annotations

from dataclasses import dataclass

from app import errors
from app.engine.plan import Node, Plan
from app.engine.states import NodeEvent, NodeState, transition


class TransitionRefused(errors.Conflict):
    """The node state machine does not allow this event in the node's current state."""


@dataclass
class Report:
    """What one :meth:`Walk.report` changed: ``fired``: nodes that became ready (sorted);
    ``skipped``: nodes that will never run because of a failure (sorted)."""
    fired: list[Node]
    skipped: list[Node]


class Walk:
    """The states of every node of ``plan``; leaves start FIRED. O(V + E) to build."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.state = {n: NodeState.FIRED if c == 0 else NodeState.WAITING
                      for n, c in plan.expected.items()}
        self._heard: dict[Node, int] = {n: 0 for n in plan.expected}
        self._handed_out: set[Node] = set()

    def _move(self, node: Node, event: NodeEvent) -> None:
        new = transition(self.state[node], event)
        if new is None:
            raise TransitionRefused(f"{node}: {event.value} in {self.state[node].value}")
        self.state[node] = new

    def ready(self) -> list[Node]:
        """FIRED nodes not handed out yet, sorted (each is handed out once)."""
        out = sorted(n for n, s in self.state.items()
                     if s is NodeState.FIRED and n not in self._handed_out)
        self._handed_out.update(out)
        return out

    def report(self, node: Node, ok: bool) -> Report:
        """``node``'s step ended: Done (``ok``) tells its successors; Failed skips every
        descendant still waiting (computed once, here). O(degree) / O(V + E) on failure.

        :raises TransitionRefused: ``node`` was not FIRED (reported twice, or never ready)."""
        if not ok:
            self._move(node, NodeEvent.FAIL)
            skipped = sorted(n for n in self.plan.descendants(node)
                             if self.state[n] is NodeState.WAITING)
            for n in skipped:
                self._move(n, NodeEvent.SKIP)
            return Report([], skipped)
        self._move(node, NodeEvent.FINISH)
        fired: list[Node] = []
        for succ in self.plan.successors.get(node, ()):
            self._heard[succ] += 1
            if self._heard[succ] == self.plan.expected[succ] \
                    and self.state[succ] is NodeState.WAITING:
                self._move(succ, NodeEvent.READY)
                fired.append(succ)
        return Report(sorted(fired), [])

    def is_active(self) -> bool:
        """Whether any node can still run or is running (graphlib's ``is_active``)."""
        return any(s in (NodeState.WAITING, NodeState.FIRED) for s in self.state.values())
