"""What a finished resource passes on: its reference id and the attributes others reference.

``attr_data`` (stored on the resource row and in its successors' sync points) is::

    {"ref": "<reference id>", "attrs": {"<attribute>": value, ...},
     "paths": {"<json of [attribute, *path]>": value or {"__error__": "message"}}}

``attrs`` serves plain attributes (a path is walked into the value); ``paths`` serves attributes
whose value depends on the whole path (a nested stack's outputs, a group's ``resource.N``), and
may carry an error that resolving them raises, as Heat reports it in an output.
"""
from __future__ import annotations

import json
from typing import Any

from app import errors
from app.templates import UNKNOWN

ERROR = "__error__"
#: marks an ``attr_data`` whose attributes are not known yet (:func:`pending`)
PENDING = "__pending__"


def path_key(path: tuple[Any, ...] | list[Any]) -> str:
    return json.dumps(list(path), default=str)


def walk(value: Any, path: tuple[Any, ...] | list[Any]) -> Any:
    """Index ``value`` by ``path`` as get_attr does (Heat's ``select_from_attribute``,
    heat/engine/attributes.py): each key indexes a map or a sequence (a list, or a string: its
    character) as Python does; a key that is not a string or an integer, a string key into a
    list, an integer key into a map (JSON maps have string keys), a missing key or index, or a
    value that is neither → None."""
    for key in path:
        if not isinstance(key, (str, int)) or not isinstance(value, (dict, list, str)):
            return None
        try:
            value = value[key]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def error(message: str) -> dict[str, str]:
    return {ERROR: message}


def pending(ref: Any = UNKNOWN) -> dict[str, Any]:
    """What a dependent reads of a resource an update has not made yet (its preview): every
    attribute UNKNOWN, the reference ``ref`` (UNKNOWN for one replaced or added; the stored id
    of one updated in place, which keeps it). Never stored."""
    return {"ref": ref, PENDING: True}


def attr_data(plugin: Any, names: set[tuple[Any, ...]]) -> dict[str, Any]:
    """What a finished resource passes on, from its plugin (or driver): its reference id and
    the attributes that dependents and outputs reference (``names``: attribute paths; an
    empty path means every attribute). An attribute that cannot be resolved reads as null."""
    if hasattr(plugin, "attr_data"):  # a nested stack computes its own (outputs, members)
        return dict(plugin.attr_data(names))
    attrs: dict[str, Any] = {}
    wanted = {p[0] for p in names if p}
    if any(len(p) == 0 for p in names):
        wanted |= {a for a in (type(plugin).attributes_schema or {}) if a != "show"}
    for a in sorted(wanted):
        try:
            attrs[a] = plugin.resolve_attribute(a)
        except Exception:  # an attribute that cannot be resolved reads as null (Heat)
            attrs[a] = None
    return {"ref": plugin.get_reference_id(), "attrs": json.loads(json.dumps(attrs, default=str))}


class DataContext:
    """A ResolveContext over ``{resource name: attr_data}`` (None: never created → null;
    :func:`pending`: UNKNOWN)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def get_resource(self, name: str) -> Any:
        d = self.data.get(name)
        return d.get("ref") if d else None

    def get_attr(self, name: str, attr: str, *path: Any) -> Any:
        d = self.data.get(name)
        if not d:
            return None
        if d.get(PENDING):
            return UNKNOWN
        paths = d.get("paths") or {}
        for n in range(len(path), -1, -1):  # the longest recorded prefix wins
            key = path_key((attr, *path[:n]))
            if key in paths:
                value = paths[key]
                if isinstance(value, dict) and set(value) == {ERROR}:
                    raise errors.TemplateError(value[ERROR], heat_type="InvalidTemplateAttribute")
                return walk(value, path[n:])
        return walk((d.get("attrs") or {}).get(attr), path)

    def get_all_attrs(self, name: str) -> Any:
        d = self.data.get(name)
        if d and d.get(PENDING):
            return UNKNOWN
        return dict((d or {}).get("attrs") or {})
