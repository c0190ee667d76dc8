"""YAML duplicate mapping keys: PyYAML (and so Heat) keeps the last value silently; Stoker
accepts the template the same way and reports each duplicate as a warning."""
from __future__ import annotations

from typing import Any

import yaml

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def duplicate_keys(text: str | bytes, limit: int = 100) -> list[tuple[str, int]]:
    """``[(key, 1-based line of the repeated key)]`` for every mapping that repeats a scalar
    key (JSON text too: it is YAML). Unparseable text gives ``[]`` (the loader reports it).
    O(nodes); aliases are not followed."""
    try:
        root = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        return []
    out: list[tuple[str, int]] = []
    stack = [root] if root is not None else []
    seen_nodes: set[int] = set()
    while stack and len(out) < limit:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[str] = set()
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode):
                    if k.value in keys:
                        out.append((k.value, k.start_mark.line + 1))
                    keys.add(k.value)
                stack.append(v)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(out, key=lambda kv: kv[1])
