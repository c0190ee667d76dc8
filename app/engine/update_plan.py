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

from app.engine.plan import Plan


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
