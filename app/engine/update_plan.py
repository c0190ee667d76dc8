"""The graph of an UPDATE traversal: forward nodes for the new template, cleanup nodes for what
exists (pure).

As Heat's convergence (``Stack.convergence_dependencies``): every resource of the new template
has a forward node ``(name, True)`` (create, update in place, replace, or nothing) that runs after
the forward nodes of the resources it requires in the NEW template; every resource that exists has
a cleanup node ``(name, False)`` (delete it if it left the template, delete the physical resource
it replaced, or nothing) that runs after the cleanup nodes of the resources that required it in
the OLD graph, after the forward nodes of those that require it in the NEW one, and after its own
forward node. So a removed resource is deleted only once
everything that used it has moved on, and a replaced one only once its dependents point at the
replacement. Forward nodes never wait for cleanup nodes, so the graph has no cycle across
directions. O(V + E).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from graphlib import TopologicalSorter

from app.engine.plan import Node, Plan


def plan(old_requires: Mapping[str, Iterable[str]],
         new_requires: Mapping[str, Iterable[str]]) -> Plan:
    """The update graph from the existing resources' ``requires`` (old) and the new template's
    dependencies. Names required but absent from their own side are ignored (dangling)."""
    p = Plan()
    old = {n: {r for r in reqs if r in old_requires} for n, reqs in old_requires.items()}
    new = {n: {r for r in reqs if r in new_requires} for n, reqs in new_requires.items()}
    for name, reqs in new.items():
        p.expected[(name, True)] = len(reqs)
        p.successors.setdefault((name, True), [])
    for name in old:
        p.expected[(name, False)] = 0
        p.successors.setdefault((name, False), [])
    for name, reqs in new.items():
        for r in reqs:
            p.successors[(r, True)].append((name, True))
            if r in old:  # what `name` used to point at goes once `name` points at the new
                p.successors[(name, True)].append((r, False))
                p.expected[(r, False)] += 1
    for name, reqs in old.items():
        for r in reqs:  # r is cleaned up after `name`, which used it
            p.successors[(name, False)].append((r, False))
            p.expected[(r, False)] += 1
        if name in new:
            p.successors[(name, True)].append((name, False))
            p.expected[(name, False)] += 1
    for succ in p.successors.values():
        succ.sort()
    return p


@dataclass
class Settled:
    """An update plan with the no-op nodes known at its start taken out (:func:`settle`).

    ``plan``: the nodes that still run (the :class:`Plan` invariant holds among them);
    ``given``: per forward node that runs, the names of settled resources whose data it takes
    at the start (as if they had reported); ``settled``: the resources whose forward node was
    taken out; ``dropped``: those whose cleanup node was taken out too."""
    plan: Plan
    given: dict[Node, list[str]] = field(default_factory=dict)
    settled: set[str] = field(default_factory=set)
    dropped: set[str] = field(default_factory=set)


def settle(p: Plan, unchanged: Iterable[str]) -> Settled:
    """Take out of update plan ``p`` the nodes whose step would do nothing (pure, O(V + E)).

    ``unchanged``: resources whose forward node is known, before the traversal starts, to
    leave them as they are (the caller compared their resolved properties). Of those, a
    forward node is settled only when every forward node before it is settled too (its inputs
    are then known at the start). The cleanup node of a settled resource does nothing either
    (it was not replaced and stays in the template); it is dropped when nothing that runs
    waits for it, directly or through other dropped cleanup nodes — a cleanup node that still
    has a running successor stays, since it orders that successor after its own predecessors.
    Heat's convergence runs every node; the outcome is the same, minus a task per no-op."""
    preds: dict[Node, list[Node]] = {n: [] for n in p.expected}
    for n, succs in p.successors.items():
        for sn in succs:
            preds[sn].append(n)
    wanted = set(unchanged)
    forward_graph = {n: [q for q in preds[n] if q[1]] for n in p.expected if n[1]}
    settled: set[str] = set()
    for n in TopologicalSorter(forward_graph).static_order():
        if n[0] in wanted and all(q[0] in settled for q in forward_graph[n]):
            settled.add(n[0])
    cleanup_graph = {n: list(p.successors[n]) for n in p.expected if not n[1]}
    dropped: set[str] = set()
    for n in TopologicalSorter(cleanup_graph).static_order():  # successors first
        if n[0] in settled and all(sn[0] in dropped for sn in cleanup_graph[n]):
            dropped.add(n[0])
    gone = {(x, True) for x in settled} | {(x, False) for x in dropped}
    out = Settled(Plan(), settled=settled, dropped=dropped)
    for n in p.expected:
        if n in gone:
            continue
        out.plan.expected[n] = sum(1 for q in preds[n] if q not in gone)
        out.plan.successors[n] = [sn for sn in p.successors[n] if sn not in gone]
        given = sorted(q[0] for q in preds[n] if q in gone and q[1] and n[1])
        if given:
            out.given[n] = given
    return out
