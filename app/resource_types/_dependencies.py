"""Implicit dependencies: Heat's ``Resource.add_dependencies``, over the template, not the cloud.

A resource may need another that it never references: Heat makes an ``OS::Neutron::FloatingIP``
whose port sits on a subnet wait for the ``OS::Neutron::RouterInterface`` on that subnet (and
for a router whose gateway is its floating network), because Neutron refuses to associate a
floating IP with a port whose subnet is not routed to the external network (404 "External
network ... is not reachable from subnet ..."). Plugins state such needs in
:meth:`app.resource_types.base.Resource.implicit_requirements`; :func:`with_implicit` adds them
to the stack's graph.

Values are compared as the template writes them, as Heat compares them before anything is
created (an uncreated resource's reference is its name): ``{get_resource: s}`` and ``{Ref: s}``
are the resource ``s``; other values compare equal when they are equal.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from app.resource_types.base import Resource


class DefinitionLike(Protocol):
    """What this module reads of a resource definition (``app.templates`` ResourceDefinition)."""

    @property
    def implementation(self) -> str: ...
    properties: dict[str, Any]


def ref_of(value: Any) -> str | None:
    """A value in canonical form: ``"@s"`` for ``{get_resource: s}`` / ``{Ref: s}``, the JSON
    of anything else; ``None`` for an absent value."""
    if value is None:
        return None
    if isinstance(value, Mapping) and len(value) == 1:
        key, arg = next(iter(value.items()))
        if key in ("get_resource", "Ref") and isinstance(arg, str):
            return "@" + arg
    return json.dumps(value, sort_keys=True, default=str)


class StackView:
    """The stack as an ``implicit_requirements`` rule sees it: each resource's built-in type
    and raw properties, and the explicit graph ``{name: names it requires}``."""

    def __init__(self, resources: Mapping[str, DefinitionLike],
                 requires: Mapping[str, frozenset[str]]) -> None:
        self.resources = resources
        self.requires = requires
        #: per-rule caches for one graph (e.g. interfaces by subnet), keyed by the rule's module
        self.memo: dict[str, Any] = {}
        self._by_type: dict[str, list[str]] = {}
        for name in requires:
            self._by_type.setdefault(self.type_of(name) or "", []).append(name)

    def type_of(self, name: str) -> str | None:
        res = self.resources.get(name)
        return res.implementation if res is not None else None

    def prop(self, name: str, *keys: str) -> Any:
        """The first of ``keys`` that resource ``name`` sets (a visible property and its hidden
        deprecated name, e.g. ``"subnet", "subnet_id"``)."""
        props = self.resources[name].properties if name in self.resources else {}
        if not isinstance(props, Mapping):
            return None
        for key in keys:
            if props.get(key) is not None:
                return props[key]
        return None

    def of_type(self, type_name: str) -> list[str]:
        """Names of the (enabled) resources of ``type_name``, in template order; O(1)."""
        return self._by_type.get(type_name, [])

    def types(self) -> list[str]:
        """The types present."""
        return list(self._by_type)


def _reaches(requires: Mapping[str, frozenset[str]], start: str, goal: str) -> bool:
    seen, todo = {start}, [start]
    while todo:
        for nxt in requires.get(todo.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return False


def has_rules(cls: type[Resource]) -> bool:
    """True when the plugin overrides :meth:`Resource.implicit_requirements`."""
    return cls.implicit_requirements.__func__ is not Resource.implicit_requirements.__func__  # type: ignore[attr-defined]


def _acyclic(requires: Mapping[str, frozenset[str]]) -> bool:
    """Kahn's algorithm; O(V + E)."""
    waiting = {n: len(d) for n, d in requires.items()}
    users: dict[str, list[str]] = {}
    for name, deps in requires.items():
        for dep in deps:
            users.setdefault(dep, []).append(name)
    ready = [n for n, k in waiting.items() if k == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for user in users.get(node, ()):
            waiting[user] -= 1
            if waiting[user] == 0:
                ready.append(user)
    return done == len(requires)


def with_implicit(resources: Mapping[str, DefinitionLike], requires: Mapping[str, frozenset[str]],
                  plugin: Any) -> dict[str, frozenset[str]]:
    """``requires`` plus every plugin's implicit requirements. ``plugin(type_name)`` gives the
    class (or ``None``). An edge that would close a cycle is left out (the explicit graph wins).
    Only types that have rules are asked: O(V) for a stack without them, O(V + E) checks after."""
    view = StackView(resources, requires)
    extra: dict[str, set[str]] = {}
    for type_name in view.types():
        cls = plugin(type_name) if type_name else None
        if cls is None or not has_rules(cls):
            continue
        for name in view.of_type(type_name):
            found = {d for d in cls.implicit_requirements(name, view)
                     if d in requires and d != name and d not in requires[name]}
            if found:
                extra[name] = found
    if not extra:
        return dict(requires)
    out = {n: frozenset(d) | extra.get(n, set()) for n, d in requires.items()}
    if _acyclic(out):
        return out
    out = dict(requires)          # some edge closes a cycle: add them one by one, skipping those
    for name in requires:
        for dep in sorted(extra.get(name, ())):
            if not _reaches(out, dep, name):
                out[name] = out[name] | {dep}
    return out


def _subnets_by_network(view: StackView) -> dict[str | None, list[str]]:
    """The stack's ``OS::Neutron::Subnet`` names by their network as written (``None``: a subnet
    that names none); built once a graph, O(subnets)."""
    memo = view.memo.get(__name__ + ".subnets")
    if memo is None:
        memo = {}
        for sn in view.of_type("OS::Neutron::Subnet"):
            memo.setdefault(ref_of(view.prop(sn, "network", "network_id")), []).append(sn)
        view.memo[__name__ + ".subnets"] = memo
    return memo


def subnets_of_network(view: StackView, network: Any) -> set[str]:
    """Heat's ``Port.add_dependencies``: every subnet of the stack on the port's ``network``
    (which of them Neutron picks is not known, so all must exist first)."""
    key = ref_of(network)
    return set(_subnets_by_network(view).get(key, ())) if key is not None else set()


def subnets_of_server_networks(view: StackView, networks: Any) -> set[str]:
    """Heat's ``Server.add_dependencies``: for a server with ``networks``, the subnets on a
    network it names, every subnet whose network is not written, and, when an entry names no
    network (a port, a subnet alone), every subnet of the stack."""
    if not isinstance(networks, list) or not networks:
        return set()
    by_net = _subnets_by_network(view)
    out = set(by_net.get(None, ()))
    for entry in networks:
        net = entry.get("network") if isinstance(entry, Mapping) else None
        if net is None and isinstance(entry, Mapping):
            net = entry.get("uuid")
        if net is None:
            return out | {sn for names in by_net.values() for sn in names}
        out |= set(by_net.get(ref_of(net), ()))
    return out
