"""One node form for every traversal: the plan ``{(resource, is_update): predecessors}`` (pure).

A traversal's nodes are ``(resource name, is_update)`` pairs, as in Heat's convergence
(``heat/engine/dependencies.py`` keys). A CREATE traversal has forward nodes only, a DELETE (or
create ROLLBACK) reverse nodes only, an UPDATE (or update ROLLBACK) both
(:func:`app.engine.update_plan.plan`). Every builder returns the same :class:`Plan`, so the
runtime stores and walks one shape. Everything here is O(V + E) and sorted.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from app.engine import graph

Node = tuple[str, bool]  # (resource name, is_update): True = forward, False = reverse/cleanup


@dataclass
class Plan:
    """``expected``: predecessor count per node; ``successors``: what each node reports to
    (sorted). Invariant: every successor is a key of ``expected``, and the number of times a
    node appears in ``successors`` equals its ``expected`` count."""
    expected: dict[Node, int] = field(default_factory=dict)
    successors: dict[Node, list[Node]] = field(default_factory=dict)

    def leaves(self) -> list[Node]:
        """Nodes with no predecessors (where the traversal starts), sorted. O(V log V)."""
        return sorted(n for n, c in self.expected.items() if c == 0)

    def descendants(self, node: Node) -> set[Node]:
        """Every node that cannot run once ``node`` failed (reachable, ``node`` excluded).
        O(V + E)."""
        return graph.descendants(self.successors, node)


def _one_direction(requires: Mapping[str, Iterable[str]], forward: bool) -> Plan:
    """The plan of one direction, as :func:`graph.predecessors` and :func:`graph.invert`
    give it, with sets built only for the nodes that have edges (a group's members have
    none: a set or two each would cost more than their plan). O(V log V + E)."""
    required: dict[str, set[str]] = {}   # name -> known names it requires (non-empty only)
    required_by: dict[str, set[str]] = {}
    for name, reqs in requires.items():
        if reqs:
            known = {r for r in reqs if r in requires}
            if known:
                required[name] = known
                for r in known:
                    required_by.setdefault(r, set()).add(name)
    preds, succs = (required, required_by) if forward else (required_by, required)
    p = Plan()
    for name in sorted(requires):
        after = succs.get(name)
        p.expected[(name, forward)] = len(preds.get(name, ()))
        p.successors[(name, forward)] = [(s, forward) for s in sorted(after)] if after else []
    return p


def forward(requires: Mapping[str, Iterable[str]]) -> Plan:
    """A CREATE traversal: ``(x, True)`` after the forward nodes of what ``x`` requires."""
    return _one_direction(requires, True)


def reverse(requires: Mapping[str, Iterable[str]]) -> Plan:
    """A DELETE or create-ROLLBACK traversal: ``(x, False)`` after the reverse nodes of what
    requires ``x``."""
    return _one_direction(requires, False)
