"""HOT parameters: schemas, Heat's coercions, constraints, parameter_groups, pseudo-parameters.

More in docs/code/templates.md (app.templates.parameters).
"""
from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import constraints as cons
from app.templates.functions.base import UNKNOWN
from app.templates.versions import HotVersion

TYPES = ("string", "number", "json", "comma_delimited_list", "boolean")
ALL_CONSTRAINT_KEYS = ("length", "range", "modulo", "allowed_values", "allowed_pattern",
                       "custom_constraint", "description")
PSEUDO = ("OS::stack_name", "OS::stack_id", "OS::project_id")
_TRUE = ("1", "t", "true", "on", "y", "yes")
_FALSE = ("0", "f", "false", "off", "n", "no")
HIDDEN = "******"


def _schema_error(msg: str, path: tuple[Any, ...] = ()) -> errors.ParameterError:
    return errors.ParameterError(msg, heat_type="InvalidSchemaError", path=path)


def to_bool(value: Any) -> bool:
    """Heat's strict boolean parsing. :raises ValueError: with Heat's message."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    accepted = ", ".join(f"'{v}'" for v in sorted(_TRUE + _FALSE))
    raise ValueError(f"Unrecognized value '{value}', acceptable values are: {accepted}")


def to_number(value: Any) -> int | float:
    """``int`` when the text is integral, else ``float``. :raises ValueError:"""
    if isinstance(value, bool):
        raise ValueError(f"could not convert string to float: '{value}'")  # noqa: TRY004
    if isinstance(value, (int, float)):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)


def param_number(value: Any) -> Any:
    """Heat's ``Schema.str_to_num`` for a parameter value: a number (a bool included) as it
    is, else ``int(value)``, else ``float(value)``.

    :raises ValueError: Python's own message (``could not convert string to float: 'x'``, or
        ``int()``'s TypeError text for a list or map)."""
    if isinstance(value, numbers.Number):
        return value
    try:
        return int(value)
    except ValueError:
        return float(value)
    except TypeError as exc:
        raise ValueError(str(exc)) from None


def _split(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(x) for x in value]
    if not isinstance(value, str):
        why = f"'{type(value).__name__}' object has no attribute 'split'"
        raise ValueError(f"Value must be a comma-delimited list string: {why}")  # noqa: TRY004
    return value.split(",") if value else []


def _json(value: Any) -> Any:
    try:
        text = value if isinstance(value, str) else json.dumps(value)
        return json.loads(text) if text else value
    except (ValueError, TypeError) as exc:
        raise ValueError(f"Value must be valid JSON: {exc}") from None


@dataclass
class ParamSchema:
    """One declared parameter."""

    name: str
    type: str
    label: str | None = None
    description: str = ""
    default: Any = None
    has_default: bool = False
    hidden: bool = False
    immutable: bool = False
    tags: list[Any] = field(default_factory=list)
    constraints: list[dict[str, Any]] = field(default_factory=list)

    def coerce(self, value: Any) -> Any:
        """The typed value of a raw one, as Heat's ``*Param.value()`` (see the module doc).
        :raises ValueError: Heat's wording."""
        if self.type == "string":
            return str(value)
        if self.type == "number":
            return param_number(value)
        if self.type == "boolean":
            return to_bool(value)
        if self.type == "comma_delimited_list":
            return _split(value)
        return _json(value)

    def check(self, value: Any, *, custom: bool = True) -> str | None:
        """Coerce and check constraints: Heat's reason text or None. ``custom=False`` skips
        custom constraints (Heat does not look them up for defaults). Constraints see the
        value as given (string, number, boolean) or parsed (list, json), as Heat's
        ``*Param._validate``."""
        try:
            typed = self.coerce(value)
        except ValueError as exc:
            return str(exc)
        constraints = [c for c in self.constraints if custom or "custom_constraint" not in c]
        if self.type in ("comma_delimited_list", "json"):
            return cons.check_all(constraints, typed)
        return cons.check_all(constraints, typed, raw=value)

    def show(self, value: Any, raw: Any) -> str:
        """The stack-show string of a (coerced) value (Heat's ``Parameter.__str__``)."""
        if self.hidden:
            return HIDDEN
        if self.type == "json":
            return json.dumps(value)
        if self.type == "comma_delimited_list":
            return ",".join(value)
        return str(value)


def _parse_constraints(name: str, raw: Any, ptype: str, version: HotVersion) -> list[dict[str, Any]]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise _schema_error(f"Invalid parameter constraints for parameter {name}, expected a "
                            f"list")
    out: list[dict[str, Any]] = []
    for c in raw:
        if not isinstance(c, dict):
            raise _schema_error(f"Invalid parameter constraints for parameter {name}, expected "
                                f"a list")
        for key in c:
            if key not in ALL_CONSTRAINT_KEYS:
                raise _schema_error(f"Invalid key '{key}' for parameter constraints")
        kinds = [k for k in c if k != "description" and k in version.constraint_keys]
        if not kinds:
            raise _schema_error("No constraint expressed")
        for kind in kinds:
            _check_kind(name, kind, c[kind], ptype)
        out.append({k: v for k, v in c.items() if k == "description" or k in kinds})
    return out


def _check_kind(name: str, kind: str, spec: Any, ptype: str) -> None:
    bad = {"range": ("string", "json", "comma_delimited_list", "boolean"),
           "modulo": ("string", "json", "comma_delimited_list", "boolean"),
           "length": ("number", "boolean"),
           "allowed_pattern": ("number", "json", "comma_delimited_list", "boolean")}
    if ptype in bad.get(kind, ()):
        title = {"range": "Range", "modulo": "Modulo", "length": "Length",
                 "allowed_pattern": "AllowedPattern"}[kind]
        raise _schema_error(f"Parameter '{name}' is invalid: {title} constraint invalid for "
                            f"{ptype}")
    if kind in ("range", "length") and (not isinstance(spec, dict) or not spec
                                        or set(spec) - {"min", "max"}):
        raise _schema_error(f"Invalid {kind} constraint for parameter {name}")
    if kind == "modulo":
        if not isinstance(spec, dict) or set(spec) != {"step", "offset"}:
            raise _schema_error("Modulo constraint must have both 'step' and 'offset'")
        if not spec["step"]:
            raise _schema_error("'step' cannot be 0.")
    if kind == "allowed_values" and not isinstance(spec, list):
        raise _schema_error(f"Invalid allowed_values for parameter {name}, expected a list")


def parse_schema(name: str, raw: Any, version: HotVersion) -> ParamSchema:
    """Build a :class:`ParamSchema` from the template's ``parameters.<name>`` entry.

    :raises errors.ParameterError: heat_type ``InvalidSchemaError`` (Heat's messages).
    """
    if not isinstance(raw, dict):
        raise _schema_error(f"Invalid parameter schema for parameter {name}")
    for key in raw:
        if key not in version.param_keys:
            raise _schema_error(f"Invalid key '{key}' for parameter ({name})")
    if "type" not in raw:
        raise _schema_error(f"Missing parameter type for parameter: {name}")
    ptype = raw["type"]
    if ptype not in TYPES:
        raise _schema_error(f"Invalid type ({ptype})")
    hidden = raw.get("hidden", False)
    try:
        hidden = to_bool(hidden)
    except ValueError:
        hidden = False
    immutable = raw.get("immutable", False)
    immutable = immutable if isinstance(immutable, bool) else False
    schema = ParamSchema(
        name=name, type=ptype, label=raw.get("label"),
        description=raw["description"] if isinstance(raw.get("description"), str) else "",
        default=raw.get("default"), has_default=raw.get("default") is not None, hidden=hidden,
        immutable=immutable, tags=list(raw.get("tags") or []),
        constraints=_parse_constraints(name, raw.get("constraints"), ptype, version))
    if schema.has_default and schema.constraints:
        why = schema.check(schema.default, custom=False)
        if why:
            raise _schema_error(f"Parameter '{name}' is invalid: Invalid default "
                                f"{_default_text(schema.default)} ({why})")
    return schema


def _default_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


@dataclass
class Parameters:
    """Resolved parameter values for one stack (template order)."""

    schemas: dict[str, ParamSchema]
    values: dict[str, Any]
    raw: dict[str, Any]
    pseudo: dict[str, Any]

    def get(self, name: str) -> Any:
        """Value of a declared or pseudo parameter. :raises KeyError:"""
        if name in self.values:
            return self.values[name]
        return self.pseudo[name]

    def __contains__(self, name: object) -> bool:
        return name in self.values or name in self.pseudo

    def for_show(self) -> dict[str, str]:
        """Heat's stack-show ``parameters``: every value a string, hidden ones masked."""
        out = {n: self.schemas[n].show(self.values[n], self.raw[n]) for n in self.values
               if self.values[n] is not UNKNOWN}
        out.update({k: str(v) for k, v in self.pseudo.items()})
        return out


def resolve_values(schemas: Mapping[str, ParamSchema], user: Mapping[str, Any],
                   defaults: Mapping[str, Any], pseudo: Mapping[str, Any], *,
                   strict: bool = True) -> Parameters:
    """Combine user values, environment ``parameter_defaults`` and template defaults.

    Precedence as Heat: user/environment ``parameters`` > ``parameter_defaults`` > template
    default. ``strict=False`` (Heat's ``validate_value=False``, for ``POST /validate``): a
    parameter without value is UNKNOWN and values are not checked against constraints. A
    value given as UNKNOWN (an update's preview of a nested stack whose input is made by the
    update) stays UNKNOWN, unchecked.
    :raises errors.ParameterError: UnknownUserParameter, UserParameterMissing or
    "Parameter 'x' is invalid: ...".
    """
    for name in user:
        if name not in schemas and name not in PSEUDO:
            raise errors.ParameterError(f"The Parameter ({name}) was not defined in template.",
                                        heat_type="UnknownUserParameter")
    values: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    for name, schema in schemas.items():
        if user.get(name) is not None:  # a null value is no value (Heat's Parameter.value)
            value = user[name]
        elif name in defaults:
            value = defaults[name]
        elif schema.has_default:
            value = schema.default
        elif not strict:
            values[name] = raw[name] = UNKNOWN
            continue
        else:
            raise errors.ParameterError(f"The Parameter ({name}) was not provided.",
                                        heat_type="UserParameterMissing", path=("parameters", name))
        if value is None and schema.type != "json":
            value = ""
        if value is UNKNOWN:  # a nested stack's input its parent has not made yet
            values[name] = raw[name] = UNKNOWN
            continue
        if not strict:
            try:
                values[name] = schema.coerce(value)
            except ValueError:
                values[name] = value
            raw[name] = value
            continue
        why = schema.check(value)
        if why:
            raise errors.ParameterError(f"Parameter '{name}' is invalid: {why}",
                                        path=("parameters", name))
        values[name] = schema.coerce(value)
        raw[name] = value
    return Parameters(dict(schemas), values, raw, dict(pseudo))


def validate_groups(groups: Any, schemas: Mapping[str, ParamSchema]) -> None:
    """Validate ``parameter_groups`` as Heat: a list of maps, each with a ``parameters`` list of
    declared names, each name in one group only.

    :raises errors.ValidationError: "Parameter Groups error: parameter_groups.<label>: ...".
    """
    if groups is None:
        return
    if not isinstance(groups, list):
        raise errors.ValidationError("Parameter Groups error: parameter_groups: The "
                                     "parameter_groups should be a list.")
    seen: set[str] = set()
    for group in groups:
        label = group.get("label", "") if isinstance(group, dict) else ""
        where = f"parameter_groups.{label}" if label else "parameter_groups"
        if not isinstance(group, dict):
            raise errors.ValidationError(f"Parameter Groups error: {where}: The "
                                         f"parameter_groups should be a list of maps.")
        params = group.get("parameters")
        if params is None:
            raise errors.ValidationError(f"Parameter Groups error: {where}: The parameters must "
                                         f"be provided for each parameter group.")
        if not isinstance(params, list):
            raise errors.ValidationError(f"Parameter Groups error: {where}: The parameters of "
                                         f"parameter group should be a list.")
        for p in params:
            if p in seen:
                raise errors.ValidationError(f"Parameter Groups error: {where}: The {p} "
                                             f"parameter must be assigned to one parameter "
                                             f"group only.")
            seen.add(p)
            if p not in schemas:
                raise errors.ValidationError(f"Parameter Groups error: {where}: The grouped "
                                             f"parameter {p} does not reference a valid "
                                             f"parameter.")
