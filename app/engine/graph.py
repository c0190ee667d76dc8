"""The convergence graph: pure functions over ``{name: set(required names)}``.

A traversal has one node per resource. Forward nodes (create/update, ``is_update=True``) wait for
the resources they require; reverse nodes (delete, ``is_update=False``) wait for the resources that
require them, as in Heat's convergence (``heat/engine/dependencies.py``). Everything here is
O(V + E) and deterministic (sorted) so tests can rely on the order.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

Graph = Mapping[str, Iterable[str]]
N = TypeVar("N", bound=Hashable)  # a node: a name, or a (name, is_update) pair


def invert(requires: Graph) -> dict[str, set[str]]:
    """``{name: names that require it}`` for ``{name: names it requires}``. O(V + E)."""
    out: dict[str, set[str]] = {name: set() for name in requires}
    for name, reqs in requires.items():
        for r in reqs:
            out.setdefault(r, set()).add(name)
    return out


def predecessors(requires: Graph, forward: bool) -> dict[str, set[str]]:
    """Predecessors of every node: what must finish before it runs.

    Forward: the resources a node requires. Reverse: the resources that require it. Names not in
    ``requires`` (dangling references) are ignored. O(V + E).
    """
    known = set(requires)
    fwd = {n: {r for r in reqs if r in known} for n, reqs in requires.items()}
    return fwd if forward else invert(fwd)


def successors(requires: Graph, forward: bool) -> dict[str, set[str]]:
    """Successors of every node (the inverse of :func:`predecessors`). O(V + E)."""
    return predecessors(requires, not forward)


def leaves(preds: Mapping[str, Iterable[str]]) -> list[str]:
    """Nodes with no predecessors, sorted: where a traversal starts."""
    return sorted(n for n, p in preds.items() if not list(p))


def descendants(succs: Mapping[N, Iterable[N]], start: N) -> set[N]:
    """Every node reachable from ``start`` (not including it), over any hashable node form.
    O(V + E)."""
    seen: set[N] = set()
    stack = list(succs.get(start, ()))
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(succs.get(n, ()))
    return seen


def find_cycle(requires: Graph) -> list[str] | None:
    """A dependency cycle as a list of names (first name repeated at the end), or None.

    Iterative three-colour DFS in sorted order, O(V + E).
    """
    known = set(requires)
    colour: dict[str, int] = {}
    for root in sorted(requires):
        if colour.get(root):
            continue
        path: list[str] = []
        iters = [(root, iter(sorted(r for r in requires[root] if r in known)))]
        colour[root] = 1
        path.append(root)
        while iters:
            node, it = iters[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = 2
                iters.pop()
                path.pop()
            elif colour.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif not colour.get(nxt):
                colour[nxt] = 1
                path.append(nxt)
                iters.append((nxt, iter(sorted(r for r in requires[nxt] if r in known))))
    return None


def topological_order(requires: Graph) -> list[str]:
    """Names in an order where each comes after what it requires (Kahn, ties sorted).

    :raises ValueError: the graph has a cycle.
    """
    preds = predecessors(requires, True)
    succs = invert(preds)
    remaining = {n: len(p) for n, p in preds.items()}
    ready = sorted(n for n, c in remaining.items() if c == 0)
    order: list[str] = []
    while ready:
        n = ready.pop(0)
        order.append(n)
        for s in sorted(succs.get(n, ())):
            remaining[s] -= 1
            if remaining[s] == 0:
                ready.append(s)
        ready.sort()
    if len(order) != len(preds):
        raise ValueError("dependency cycle")
    return order
