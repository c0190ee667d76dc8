"""CFN parameter schemas, as Heat's ``heat/engine/parameters.py`` ``Schema.from_dict``.

Keys ``Type`` (``String``, ``Number``, ``CommaDelimitedList``, ``Json``, ``Boolean``),
``Default``, ``NoEcho`` (true when its text is ``true``, any case), ``AllowedValues``,
``AllowedPattern``, ``MinLength``/``MaxLength`` (one length constraint), ``MinValue``/
``MaxValue`` (one range constraint; numbers or numeric text), ``ConstraintDescription`` (the
message of every failing constraint), ``Description``, ``Label``. Another key is Heat's
"Invalid key 'x' for parameter (p)". The schema becomes the HOT :class:`ParamSchema`, so
coercion, constraints, defaults and stack-show strings are shared with HOT.
"""
from __future__ import annotations

from typing import Any

from app.templates.parameters import ParamSchema, _schema_error, parse_schema
from app.templates.versions import HotVersion

TYPES = {"String": "string", "Number": "number", "CommaDelimitedList": "comma_delimited_list",
         "Json": "json", "Boolean": "boolean"}
KEYS = ("Type", "Description", "Default", "NoEcho", "AllowedValues", "AllowedPattern",
        "MaxLength", "MinLength", "MaxValue", "MinValue", "ConstraintDescription", "Label")


def _num(name: str, key: str, value: Any) -> int | float:
    if isinstance(value, bool):
        raise _schema_error(f"Invalid {key} for parameter {name}: {value}")
    if isinstance(value, (int, float)):
        return value
    try:
        return int(str(value))
    except ValueError:
        try:
            return float(str(value))
        except ValueError:
            raise _schema_error(f"Invalid {key} for parameter {name}: {value}") from None


def _bounds(name: str, spec: dict[str, Any], lo: str, hi: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if lo in spec and spec[lo] is not None:
        out["min"] = _num(name, lo, spec[lo])
    if hi in spec and spec[hi] is not None:
        out["max"] = _num(name, hi, spec[hi])
    return out


def parse_cfn_schema(name: str, spec: Any, version: HotVersion) -> ParamSchema:
    """Build the :class:`ParamSchema` of CFN parameter ``name``.

    :raises errors.ParameterError: heat_type ``InvalidSchemaError`` (Heat's messages).
    """
    if not isinstance(spec, dict):
        raise _schema_error(f"Invalid parameter schema for parameter {name}")
    for key in spec:
        if key not in KEYS:
            raise _schema_error(f"Invalid key '{key}' for parameter ({name})")
    if "Type" not in spec:
        raise _schema_error(f"Missing parameter type for parameter: {name}")
    if spec["Type"] not in TYPES:
        raise _schema_error(f"Invalid type ({spec['Type']})")
    desc = spec.get("ConstraintDescription")
    constraints: list[dict[str, Any]] = []
    for kind, lo, hi in (("range", "MinValue", "MaxValue"), ("length", "MinLength", "MaxLength")):
        bounds = _bounds(name, spec, lo, hi)
        if bounds:
            constraints.append({kind: bounds})
    if "AllowedValues" in spec:
        constraints.append({"allowed_values": spec["AllowedValues"]})
    if "AllowedPattern" in spec:
        constraints.append({"allowed_pattern": spec["AllowedPattern"]})
    if desc is not None:
        for c in constraints:
            c["description"] = desc
    hot: dict[str, Any] = {"type": TYPES[spec["Type"]],
                           "hidden": str(spec.get("NoEcho", "false")).lower() == "true"}
    if constraints:
        hot["constraints"] = constraints
    if "Default" in spec:
        hot["default"] = spec["Default"]
    if isinstance(spec.get("Description"), str):
        hot["description"] = spec["Description"]
    if spec.get("Label") is not None:
        hot["label"] = spec["Label"]
    return parse_schema(name, hot, version)
