"""Dependency extraction and cycle detection.

As Heat: a resource requires every resource its properties, metadata and other snippets
reference (``get_resource``, ``get_attr``, ``Ref``) plus its ``depends_on`` names; references are
taken after ``if`` macros are expanded, so only the chosen branch counts. A cycle is Heat's
``CircularDependencyException`` ("Circular Dependency Found: ..."), here naming the cycle in
order (``a -> b -> a``).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from app import errors
from app.templates.functions.base import UNKNOWN, Function, Path, Resolver, resolve, walk
from app.templates.functions.core import GetParam, GetResource


def references(tree: Any) -> Iterator[tuple[str, tuple[Any, ...] | None, Path]]:
    """Every resource reference in ``tree``: ``(name, attribute path or None, path)``;
    the attribute path is ``()`` for the all-attributes form of get_attr."""
    for _, name, attr, path in reference_nodes(tree):
        yield name, attr, path


def reference_nodes(tree: Any) -> Iterator[tuple[Function, str, tuple[Any, ...] | None, Path]]:
    """As :func:`references`, with the function node that makes each reference first."""
    return function_references(walk(tree))


def function_references(fns: Iterable[Function]
                        ) -> Iterator[tuple[Function, str, tuple[Any, ...] | None, Path]]:
    """:func:`reference_nodes` of a tree already walked (``fns``: :func:`walk`'s nodes)."""
    for fn in fns:
        for name, attr, path in fn.refs():
            yield fn, name, attr, path


def computed_references(fns: Iterable[Function], r: Resolver) -> Iterator[tuple[str, Path]]:
    """``(name, path)`` of each ``get_resource`` among ``fns`` (a tree's :func:`walk`) whose
    argument is itself a function (``get_resource: {get_param: which}``), resolved with ``r`` as
    Heat's ``GetResource.dependencies`` resolves it; an argument not known yet (it reads a
    resource) or that fails to resolve is left to the run, where it fails with its own error."""
    for fn in fns:
        if isinstance(fn, GetResource) and isinstance(fn.args, Function):
            try:
                name = resolve(fn.args, r)
            except errors.StokerError:
                continue
            if isinstance(name, str) and name is not UNKNOWN:
                yield name, fn.path


def find_cycle(graph: Mapping[str, frozenset[str]]) -> list[str] | None:
    """A cycle in ``graph`` ({node: requirements}) as ``[a, b, ..., a]``, or None.

    Iterative depth-first search (no recursion limit on long chains); O(V + E).
    """
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    for root in graph:
        if colour[root] != white:
            continue
        path: list[str] = [root]
        stack: list[Iterator[str]] = [iter(sorted(graph[root]))]
        colour[root] = grey
        while stack:
            dep = next(stack[-1], None)
            if dep is None:
                colour[path.pop()] = black
                stack.pop()
                continue
            state = colour.get(dep, black)
            if state == grey:
                return path[path.index(dep):] + [dep]
            if state == white:
                colour[dep] = grey
                path.append(dep)
                stack.append(iter(sorted(graph.get(dep, ()))))
    return None


def check_acyclic(graph: Mapping[str, frozenset[str]]) -> None:
    """:raises errors.TemplateError: heat_type CircularDependencyException naming the cycle."""
    cycle = find_cycle(graph)
    if cycle:
        raise errors.TemplateError("Circular Dependency Found: " + " -> ".join(cycle),
                                   heat_type="CircularDependencyException", cycle=cycle)


def topological_order(graph: Mapping[str, frozenset[str]]) -> list[str]:
    """Nodes ordered so that requirements come first; among ready nodes, ``graph`` order.

    Kahn's algorithm, O((V + E) log V); nodes on a cycle (if any) are left out.
    """
    import heapq
    position = {node: i for i, node in enumerate(graph)}
    waiting = {node: len([d for d in deps if d in graph]) for node, deps in graph.items()}
    users: dict[str, list[str]] = {node: [] for node in graph}
    for node, deps in graph.items():
        for dep in deps:
            if dep in users:
                users[dep].append(node)
    ready = [position[n] for n, count in waiting.items() if count == 0]
    heapq.heapify(ready)
    names = list(graph)
    order: list[str] = []
    while ready:
        node = names[heapq.heappop(ready)]
        order.append(node)
        for user in users[node]:
            waiting[user] -= 1
            if waiting[user] == 0:
                heapq.heappush(ready, position[user])
    return order


def undeclared_params(properties: Mapping[str, Any], declared: Any) -> Iterator[tuple[str, str]]:
    """``(property, parameter)`` for each ``get_param`` in ``properties`` (a parsed tree by
    property name) naming a parameter not in ``declared`` (a container of the declared and
    pseudo parameter names), in order. O(size of the tree)."""
    for key, sub in properties.items():
        for fn in walk(sub):
            arg = fn.args[0] if isinstance(fn.args, list) and fn.args else fn.args
            if isinstance(fn, GetParam) and isinstance(arg, str) and arg not in declared:
                yield str(key), arg
