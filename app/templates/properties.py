"""Property validation against a resource type schema (format of heat-reference/resource_types.json).

A schema is ``{"prop": {"type": "string"|"number"|"integer"|"boolean"|"list"|"map"|"any",
"required": bool, "default": v, "constraints": [...], "schema": {...}}}``; a list's ``schema`` is
``{"*": item_schema}``, a map's is a nested properties schema.

As Heat's ``heat/engine/properties.py``: a missing or ``None`` value takes the default; a required
property without value is "Property <name> not assigned"; unknown names are "Unknown Property x";
strings accept numbers and booleans (``str(v)``), integers accept integral text ("Value 'x' is not
an integer"), numbers accept numeric text, booleans Heat's spellings, lists/maps must be lists/
maps. Errors read ``Property error: resources.<r>.properties.<p>: <why>``
(:class:`app.errors.ValidationError`, heat_type ``StackValidationFailed``).

``partial=True`` skips values that are not known yet (:data:`~.functions.base.UNKNOWN`) and
does not complain about missing required ones that are unknown — the static check made at
validation time; the engine calls :func:`validate` again with resolved values at create.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app import errors
from app.templates import constraints as cons
from app.templates.functions.base import UNKNOWN, contains_unknown
from app.templates.parameters import to_bool, to_number


class _PropError(Exception):
    def __init__(self, path: tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


def _coerce(schema: Mapping[str, Any], value: Any, path: tuple[Any, ...], partial: bool) -> Any:
    ptype = schema.get("type", "any")
    if value is UNKNOWN:
        return value
    if ptype == "string":
        if isinstance(value, str):
            out: Any = value
        elif isinstance(value, (bool, int, float)):
            out = str(value)
        else:
            raise _PropError(path, f"Value must be a string; got {value!r}")
    elif ptype == "integer":
        try:
            if isinstance(value, bool):
                raise ValueError  # noqa: TRY004
            out = int(value) if not isinstance(value, float) or value.is_integer() else None
            if out is None:
                raise ValueError
        except (TypeError, ValueError):
            raise _PropError(path, f"Value '{value}' is not an integer") from None
    elif ptype == "number":
        try:
            out = to_number(value)
        except (TypeError, ValueError):
            raise _PropError(path, f"Value '{value}' is not a number") from None
    elif ptype == "boolean":
        if isinstance(value, bool):
            out = value
        elif isinstance(value, str):
            try:
                out = to_bool(value)
            except ValueError as exc:
                raise _PropError(path, str(exc)) from None
        else:
            raise _PropError(path, f'"{value}" is not a valid boolean')
    elif ptype == "list":
        if not isinstance(value, list):
            raise _PropError(path, f'"{value}" is not a list')
        item = (schema.get("schema") or {}).get("*")
        out = [_validate_value(item, v, path + (i,), partial) if item else v
               for i, v in enumerate(value)]
    elif ptype == "map":
        if not isinstance(value, dict):
            raise _PropError(path, f'"{value}" is not a map')
        sub = schema.get("schema")
        out = _validate_map(sub, value, path, partial) if sub else value
    else:
        out = value
    return out


def _validate_value(schema: Mapping[str, Any], value: Any, path: tuple[Any, ...],
                    partial: bool) -> Any:
    if partial and contains_unknown(value) and schema.get("type") not in ("list", "map"):
        return value
    out = _coerce(schema, value, path, partial)
    if partial and contains_unknown(out):
        return out
    for c in schema.get("constraints") or []:
        for kind, spec in c.items():
            if kind == "description":
                continue
            msg = cons.check_one(kind, spec, out, c.get("description"))
            if msg:
                raise _PropError(path, msg)
    return out


def _validate_map(schema: Mapping[str, Any], values: Mapping[str, Any], path: tuple[Any, ...],
                  partial: bool) -> dict[str, Any]:
    for key in values:
        if key not in schema and values[key] is not None:
            raise _PropError(path, f"Unknown Property {key}")
    out: dict[str, Any] = {}
    for key, sub in schema.items():
        value = values.get(key)
        if value is None:
            if "default" in sub and sub["default"] is not None:
                value = sub["default"]
            elif sub.get("required"):
                raise _PropError(path, f"Property {key} not assigned")
            else:
                continue
        out[key] = _validate_value(sub, value, path + (key,), partial)
    return out


def _check_names(schema: Mapping[str, Any], values: Mapping[str, Any],
                 path: tuple[Any, ...]) -> None:
    for key in values:
        if key not in schema and values[key] is not None:
            raise _PropError(path, f"Unknown Property {key}")
    for key, sub in schema.items():
        if sub.get("required") and values.get(key) is None and sub.get("default") is None:
            raise _PropError(path, f"Property {key} not assigned")


def validate(schema: Mapping[str, Any] | None, values: Mapping[str, Any] | None,
             path: Sequence[Any], *, partial: bool = False,
             names_only: bool = False) -> dict[str, Any]:
    """Coerce ``values`` against the type's properties ``schema``; defaults applied.

    :param schema: the ``properties`` map of a type schema (``None``: accept anything).
    :param path: the template path of the properties, e.g. ``("resources", "srv",
        "properties")``; errors name ``<path>.<prop>``.
    :param names_only: check only unknown names and missing required properties (Heat's
        ``validate(with_value=False)``, used by ``POST /validate``).
    :returns: the coerced property values (only declared properties; ``None`` means unset).
    :raises errors.ValidationError: "Property error: <path>: <why>".
    """
    values = dict(values or {})
    if schema is None:
        return values
    try:
        if names_only:
            _check_names(schema, values, tuple(path))
            return values
        return _validate_map(schema, values, tuple(path), partial)
    except _PropError as exc:
        dotted = ".".join(str(p) for p in exc.path)
        raise errors.ValidationError(f"Property error: {dotted}: {exc.message}",
                                     path=exc.path) from None
