"""Which interfaces of a server an update of its ``networks`` keeps, detaches and attaches, as
Heat's ``ServerNetworkMixin.calculate_networks`` decides it.

More in docs/code/resource_types.md (app.resource_types._nova_networks).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Heat's ``Server._NETWORK_KEYS``
NETWORK_KEYS = ("uuid", "network", "fixed_ip", "port", "subnet", "port_extra_properties",
                "floating_ip", "allocate_network", "tag")
#: Heat's ``Server._IFACE_MANAGED_KEYS``: what an interface itself tells
IFACE_KEYS = ("port", "network", "fixed_ip", "subnet")


def normalised(entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` with every network key present (``None`` when unset or empty); the deprecated
    ``uuid`` folded into ``network`` (Heat's translation rule)."""
    out = {k: (entry.get(k) or None) for k in NETWORK_KEYS}
    out["network"] = out["network"] or out.pop("uuid")
    out["uuid"] = None
    return out


def _is_subset(sub: Mapping[str, Any], sup: Mapping[str, Any]) -> bool:
    return all(k in sup and sup[k] == v for k, v in sub.items())


def _matching(spec: Mapping[str, Any], cand: Mapping[str, Any]) -> int:
    return sum(1 for k, v in spec.items() if k in cand and cand[k] == v)


def best_match(candidates: list[dict[str, Any]], spec: Mapping[str, Any]) -> dict[str, Any] | None:
    """Heat's ``_find_best_match``: by port when ``spec`` names one, else by fixed IP, else
    the candidate ``spec`` is a subset of with the most equal items (the first on a tie)."""
    for key in ("port", "fixed_ip"):
        if spec.get(key) is not None:
            return next((c for c in candidates
                         if c.get(key) == spec[key] and _is_subset(spec, c)), None)
    best, most = None, 0
    for cand in candidates:
        if _is_subset(spec, cand):
            num = _matching(spec, cand)
            if num > most:
                best, most = cand, num
    return best


def complete_from_interfaces(old: list[dict[str, Any]], ifaces: list[dict[str, Any]]) -> None:
    """Step 1: each old entry updated in place with the interface it designates."""
    free = list(ifaces)
    for entry in old:
        spec = {k: v for k, v in entry.items() if k in IFACE_KEYS and v is not None}
        match = best_match(free, spec)
        if match is not None:
            entry.update(match)
            free.remove(match)


def split(old: list[dict[str, Any]], new: list[dict[str, Any]]
          ) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]], list[int]]:
    """Steps 2 and 3 over completed ``old`` and normalised ``new``: ``({new index: the old
    entry it keeps}, old entries to detach, new indexes to attach)``."""
    left = list(old)
    kept: dict[int, dict[str, Any]] = {}
    attach: list[int] = []
    for index, entry in enumerate(new):
        spec = {k: v for k, v in entry.items() if k not in IFACE_KEYS or v is not None}
        match = best_match(left, spec)
        if match is None:
            attach.append(index)
            continue
        kept[index] = match
        left = [e for e in left if e is not match]
    return kept, left, attach
