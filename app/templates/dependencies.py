"""Dependency extraction and cycle detection.

As Heat: a resource requires every resource its properties, metadata and other snippets
reference (``get_resource``, ``get_attr``, ``Ref``) plus its ``depends_on`` names; references are
taken after ``if`` macros are expanded, so only the chosen branch counts. A cycle is Heat's
``CircularDependencyException`` ("Circular Dependency Found: ..."), here naming the cycle in
order (``a -> b -> a``).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from app import errors
from app.templates.functions.base import Function, Path, walk


def references(tree: Any) -> Iterator[tuple[str, tuple[Any, ...] | None, Path]]:
    """Every resource reference in ``tree``: ``(name, attribute path or None, path)``;
    the attribute path is ``()`` for the all-attributes form of get_attr."""
    for fn in walk(tree):
        if isinstance(fn, Function):
            yield from fn.refs()


def find_cycle(graph: Mapping[str, frozenset[str]]) -> list[str] | None:
    """A cycle in ``graph`` ({node: requirements}) as ``[a, b, ..., a]``, or None. O(V + E)."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {n: WHITE for n in graph}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = GREY
        stack.append(node)
        for dep in sorted(graph.get(node, ())):
            if colour.get(dep, BLACK) == GREY:
                return stack[stack.index(dep):] + [dep]
            if colour.get(dep) == WHITE:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        colour[node] = BLACK
        return None

    for node in graph:
        if colour[node] == WHITE:
            found = visit(node)
            if found:
                return found
    return None


def check_acyclic(graph: Mapping[str, frozenset[str]]) -> None:
    """:raises errors.TemplateError: heat_type CircularDependencyException naming the cycle."""
    cycle = find_cycle(graph)
    if cycle:
        raise errors.TemplateError("Circular Dependency Found: " + " -> ".join(cycle),
                                   heat_type="CircularDependencyException", cycle=cycle)


def topological_order(graph: Mapping[str, frozenset[str]]) -> list[str]:
    """Nodes ordered so that requirements come first (ties in ``graph`` order)."""
    done: set[str] = set()
    order: list[str] = []

    def visit(node: str, trail: frozenset[str]) -> None:
        if node in done or node in trail:
            return
        for dep in graph.get(node, ()):
            if dep in graph:
                visit(dep, trail | {node})
        done.add(node)
        order.append(node)

    for node in graph:
        visit(node, frozenset())
    return order
