"""Builders for Heat's declarative schemas, in the format of ``GET /resource_types/{type}``.

More in docs/code/resource_types.md (app.resource_types.schema).
"""
from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

#: Heat's property types (``properties.Schema.TYPES``).
PROPERTY_TYPES = ("integer", "string", "number", "boolean", "map", "list", "any")
#: Heat's attribute types (``attributes.Schema.TYPES``).
ATTRIBUTE_TYPES = ("string", "map", "list", "integer", "boolean")

_MISSING: Any = object()


def prop(type_: str, description: str = "", *, default: Any = _MISSING, required: bool = False,
         update_allowed: bool = False, immutable: bool = False,
         constraints: Iterable[Mapping[str, Any]] = (),
         schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One property schema as Heat renders it.

    :param type_: one of :data:`PROPERTY_TYPES`.
    :param default: omitted from the dict unless given (``None`` is a real default).
    :param constraints: dicts from :func:`allowed_values`, :func:`value_range`, ...
    :param schema: for ``list``: :func:`list_of`; for ``map``: ``{name: prop(...)}``.
    :raises ValueError: unknown type.
    """
    if type_ not in PROPERTY_TYPES:
        raise ValueError(f"unknown property type {type_!r}")
    out: dict[str, Any] = {"type": type_, "description": description, "required": required,
                           "update_allowed": update_allowed, "immutable": immutable}
    if default is not _MISSING:
        out["default"] = default
    constraints = [dict(c) for c in constraints]
    if constraints:
        out["constraints"] = constraints
    if schema is not None:
        out["schema"] = dict(schema)
    return out


def list_of(item: Mapping[str, Any]) -> dict[str, Any]:
    """The ``schema`` of a list property whose every item follows ``item`` (Heat's ``"*"``)."""
    return {"*": dict(item)}


def attr(description: str = "", type_: str | None = None) -> dict[str, Any]:
    """One attribute schema; ``type`` is omitted when Heat declares none (e.g. Value's ``value``).

    :raises ValueError: unknown type.
    """
    if type_ is not None and type_ not in ATTRIBUTE_TYPES:
        raise ValueError(f"unknown attribute type {type_!r}")
    out: dict[str, Any] = {"description": description}
    if type_ is not None:
        out["type"] = type_
    return out


def allowed_values(values: Iterable[Any]) -> dict[str, Any]:
    """``constraints.AllowedValues``: the value must be one of ``values`` (order kept)."""
    return {"allowed_values": list(values)}


def value_range(min: float | None = None, max: float | None = None) -> dict[str, Any]:
    """``constraints.Range`` (inclusive); an absent bound is omitted, as Heat renders it."""
    return {"range": _bounds(min, max)}


def length(min: int | None = None, max: int | None = None) -> dict[str, Any]:
    """``constraints.Length`` of a string, list or map (inclusive bounds)."""
    return {"length": _bounds(min, max)}


def allowed_pattern(pattern: str) -> dict[str, Any]:
    """``constraints.AllowedPattern``: the whole string must match ``pattern``."""
    return {"allowed_pattern": pattern}


def custom_constraint(name: str) -> dict[str, Any]:
    """``constraints.CustomConstraint`` such as ``"nova.flavor"`` (checked by a client lookup)."""
    return {"custom_constraint": name}


def modulo(step: int, offset: int) -> dict[str, Any]:
    """``constraints.Modulo``: ``value % step == offset``."""
    return {"modulo": {"step": step, "offset": offset}}


def support_status(version: str | None, status: str = "SUPPORTED", message: str | None = None,
                   previous_status: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A type's ``support_status`` as Heat renders it (``support.SupportStatus.to_dict``)."""
    return {"status": status, "version": version, "message": message,
            "previous_status": dict(previous_status) if previous_status else None}


def copy_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy, so that callers can never mutate a plugin's class-level schema."""
    return copy.deepcopy(dict(schema))


def strip_descriptions(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A properties or attributes map (``{name: schema}``) without the ``description`` of any
    entry, nested ``schema`` entries included; a property *named* ``description`` is kept. For
    structural comparison with ``resource_types.json``, whose texts were removed. Returns copies.
    """
    out: dict[str, Any] = {}
    for name, entry in entries.items():
        clean = {k: copy.deepcopy(v) for k, v in entry.items() if k not in ("description", "schema")}
        if "schema" in entry:
            clean["schema"] = strip_descriptions(entry["schema"])
        out[name] = clean
    return out


def _bounds(lo: float | None, hi: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if lo is not None:
        out["min"] = lo
    if hi is not None:
        out["max"] = hi
    return out
