"""Property validation against a resource type schema (format of heat-reference/resource_types.json).

More in docs/code/templates.md (app.templates.properties).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from app import errors
from app.templates import constraints as cons
from app.templates.functions.base import ABSENT, UNKNOWN, contains_unknown
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
        try:  # Heat's Property._get_number: Schema.str_to_num, Python's own message
            out = to_number(value)
        except (TypeError, ValueError) as exc:
            raise _PropError(path, str(exc)) from None
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


#: Heat's ``Property._get_*`` given None without a default: the type's zero value.
_ZERO: dict[str, Any] = {"string": "", "integer": 0, "number": 0, "list": [], "map": {},
                         "boolean": False}


def null_value(schema: Mapping[str, Any]) -> Any:
    """What Heat's ``Property.get_value(None)`` makes of a property given ``null``: its
    default (Heat's ``has_default() and default() or <zero>``: a false default gives the zero
    value; a map keeps any default) or the zero value of its type ('' / 0 / [] / {} / False);
    ``None`` for ``any``. A fresh copy each call."""
    ptype = schema.get("type", "any")
    if ptype not in _ZERO:
        return None
    default = schema.get("default")
    if ptype == "map":
        value = default if default is not None else {}
    else:
        value = default or _ZERO[ptype]
    return copy.deepcopy(value)


def _validate_value(schema: Mapping[str, Any], value: Any, path: tuple[Any, ...],
                    partial: bool) -> Any:
    if value is None:  # given as null (a map's member or a list's item too)
        value = null_value(schema)
        if value is None:
            return None
    if partial and contains_unknown(value) and schema.get("type") not in ("list", "map"):
        return value
    out = _coerce(schema, value, path, partial)
    if contains_unknown(out):  # its constraints are checked once it is known
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
    _check_names(schema, values, path)
    out: dict[str, Any] = {}
    for key, sub in schema.items():
        value = values.get(key, ABSENT)
        if value is ABSENT:  # not given (Heat's Properties._get_property_value)
            if sub.get("implemented") is False:
                continue
            if sub.get("default") is not None:
                value = copy.deepcopy(sub["default"])
            elif sub.get("required"):
                where = path + (key,) if key in values else path
                raise _PropError(where, f"Property {key} not assigned")
            else:
                continue
        out[key] = _validate_value(sub, value, path + (key,), partial)
        if sub.get("implemented") is False:  # Heat: given a property its plugin ignores
            raise _PropError(path, f"Property {key} not implemented yet")
    return out


def _check_names(schema: Mapping[str, Any], values: Mapping[str, Any],
                 path: tuple[Any, ...]) -> None:
    """Heat's ``Properties.validate(with_value=False)``: unknown names only (a required
    property is checked where its value is read, ``_get_property_value``)."""
    for key in values:
        if key not in schema:
            raise _PropError(path, f"Unknown Property {key}")


def validate(schema: Mapping[str, Any] | None, values: Mapping[str, Any] | None,
             path: Sequence[Any], *, partial: bool = False,
             names_only: bool = False) -> dict[str, Any]:
    """Coerce ``values`` against the type's properties ``schema``; defaults applied.

    :param schema: the ``properties`` map of a type schema (``None``: accept anything).
    :param path: the template path of the properties, e.g. ``("resources", "srv",
        "properties")``; errors name ``<path>.<prop>``.
    :param names_only: check only unknown names (Heat's ``validate(with_value=False)``, used
        by ``POST /validate`` and for a nested stack checked at its parent's create).
    :param values: ``{prop: value}``; a ``None`` value is given as null (see the module doc),
        an :data:`~.functions.base.ABSENT` one is not given.
    :returns: the coerced property values (declared properties given or with a default; an
        ``any`` property given null is ``None``).
    :raises errors.ValidationError: "Property error: <path>: <why>".
    """
    values = dict(values or {})
    given = {k: v for k, v in values.items() if v is not ABSENT}
    if schema is None:
        return given
    try:
        if names_only:
            _check_names(schema, values, tuple(path))
            for key in values:   # Heat's validate(with_value=False) checks this one too
                if schema[key].get("implemented") is False:
                    raise _PropError(tuple(path), f"Property {key} not implemented yet")
            return given
        return _validate_map(schema, values, tuple(path), partial)
    except _PropError as exc:
        raise errors.ValidationError(
            f"Property error: {errors.format_path(exc.path)}: {exc.message}", path=exc.path,
            raw=exc.message) from None


def problems(schema: Mapping[str, Any] | None, values: Mapping[str, Any] | None,
             path: Sequence[Any], *, partial: bool = False,
             names_only: bool = False) -> list[errors.ValidationError]:
    """Every problem :func:`validate` finds, one per property (unknown names first, then the
    declared properties in schema order), each as the error :func:`validate` would raise.
    O(properties)."""
    if schema is None:
        return []
    values, where = dict(values or {}), tuple(path)
    found = [_PropError(where, f"Unknown Property {k}") for k in values if k not in schema]
    for key, sub in schema.items():
        if names_only:
            if key in values and sub.get("implemented") is False:
                found.append(_PropError(where, f"Property {key} not implemented yet"))
            continue
        try:
            _validate_map({key: sub}, {key: values[key]} if key in values else {}, where,
                          partial)
        except _PropError as exc:
            found.append(exc)
    return [errors.ValidationError(f"Property error: {errors.format_path(e.path)}: {e.message}",
                                   path=e.path, raw=e.message) for e in found]


def child_parameters(schema: Mapping[str, Any] | None,
                     values: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of a template resource's child stack from its resolved properties, as
    Heat's ``TemplateResource.child_params``: a property given ``null`` passes the zero value
    of its type (the property schema has no default, Heat's ``Schema.from_parameter``; so a
    string parameter given null is '' even where the child declares a default), an ``any``
    one nothing; a property not given (or an omitted ``if``) is not passed (the child's
    default applies).

    :param schema: the provider template's ``properties`` schema (``None``: values as given).
    :param values: ``{prop: value}`` as :meth:`.stack.StackDefinition.resolve_properties`.
    :returns: ``{parameter: value}``.
    """
    out: dict[str, Any] = {}
    for key, value in values.items():
        if value is None and schema is not None and key in schema:
            value = null_value(schema[key])
        if value is not None and value is not ABSENT:
            out[key] = value
    return out
