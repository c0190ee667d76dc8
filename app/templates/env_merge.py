"""Merging a request's environments into one :class:`~.environment.Environment`, in Heat's
order and with Heat's rules (``heat-api`` ``InstantiationData.environment`` then
``heat/common/environment_util.py`` ``merge_environments``).

More in docs/code/templates.md (app.templates.env_merge).
"""
from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import yaml

from app import errors
from app.templates import loader
from app.templates.environment import SECTIONS, Environment
from app.templates.registry import Registry

STRATEGIES = ("overwrite", "merge", "deep_merge")
_CFN_TYPES = {"String": "string", "Number": "number", "CommaDelimitedList":
              "comma_delimited_list", "Json": "json", "Boolean": "boolean"}


def parse_request_environment(source: Any) -> dict[str, Any]:
    """A request body's ``environment`` (text or mapping) as heat-api's
    ``InstantiationData.environment``: parsed as YAML (JSON included), then Heat's section
    checks; every error is heat-api's ``parse_error_check`` 400.

    :raises errors.BadRequest: ``HTTPBadRequest``, ``"Environment not in valid format: <error>"``.
    :raises errors.RequestLimitExceeded: alias or nesting limits.
    """
    if source is None or (isinstance(source, (str, bytes)) and not source.strip()):
        return {}
    try:
        if isinstance(source, (str, bytes)):
            try:
                data = loader.load_text(source, what="environment", json_first=False).data
            except errors.BadRequest as exc:
                cause = exc.__cause__
                raise ValueError(str(cause) if isinstance(cause, yaml.YAMLError)
                                 else exc.message) from None
        else:
            data = source
        return parse_environment(data)
    except ValueError as exc:
        raise errors.BadRequest(f"Environment not in valid format: {exc}",
                                heat_type="HTTPBadRequest") from None
    except errors.BadRequest as exc:  # a section of the wrong shape, an unknown section...
        raise errors.BadRequest(f"Environment not in valid format: {exc.message}",
                                heat_type="HTTPBadRequest") from None


def parse_environment(source: Any, name: str = "environment") -> dict[str, Any]:
    """Load one environment (YAML/JSON text or mapping) as Heat's ``environment_format.parse``.

    :returns: a deep copy, sections as given (missing ones absent).
    :raises errors.BadRequest: bad YAML, not a mapping ("The environment is not a valid YAML
        mapping data type."), an unknown section ('environment has wrong section "x"'), or a
        section of the wrong shape.
    """
    if source is None:
        return {}
    if isinstance(source, (str, bytes)):
        try:
            data = loader.load_text(source, what="environment").data
        except errors.RequestLimitExceeded:
            raise
        except errors.StokerError as exc:
            why = exc.message.removeprefix("Error parsing environment [root stack] ")
            raise errors.BadRequest(f"Error parsing {name}: {why}",
                                    heat_type="ValueError") from None
    else:
        data = source
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise errors.BadRequest("The environment is not a valid YAML mapping data type.",
                                heat_type="ValueError")
    for key in data:
        if key not in SECTIONS:
            raise errors.BadRequest(f'environment has wrong section "{key}"',
                                    heat_type="ValueError")
    for key in ("parameters", "parameter_defaults", "resource_registry",
                "parameter_merge_strategies"):
        if data.get(key) is not None and not isinstance(data[key], Mapping):
            raise errors.BadRequest(f'environment section "{key}" must be a mapping '
                                    f'({name})', heat_type="ValueError")
    for key in ("event_sinks", "encrypted_param_names"):
        if data.get(key) is not None and not isinstance(data[key], list):
            raise errors.BadRequest(f'environment section "{key}" must be a list ({name})',
                                    heat_type="ValueError")
    return copy.deepcopy(dict(data))


def _template_data(source: Any) -> Mapping[str, Any] | None:
    """A template's text or mapping as a mapping; None if it does not load as one."""
    try:
        data = loader.load_mapping(source).data if not isinstance(source, Mapping) else source
    except errors.StokerError:
        return None
    return data if isinstance(data, Mapping) else None


def _template_param_types(source: Any) -> dict[str, str] | None:
    """Parameter name -> HOT type of a template's text or mapping; None if it is not one."""
    data = _template_data(source)
    if data is None:
        return None
    if "heat_template_version" in data:
        section, key, names = data.get("parameters"), "type", None
    elif "AWSTemplateFormatVersion" in data or "HeatTemplateFormatVersion" in data:
        section, key, names = data.get("Parameters"), "Type", _CFN_TYPES
    else:
        return None
    out: dict[str, str] = {}
    for pname, spec in (section.items() if isinstance(section, Mapping) else ()):
        ptype = spec.get(key) if isinstance(spec, Mapping) else None
        if isinstance(ptype, str):
            out[str(pname)] = names.get(ptype, ptype) if names else ptype
    return out


def declared_parameters(source: Any) -> set[str] | None:
    """The names a template (text or mapping, HOT or CFN) declares in its parameters section;
    None when it is not a template (the caller's parse will say why)."""
    data = _template_data(source)
    if data is None:
        return None
    section = data.get("parameters") if "heat_template_version" in data \
        else data.get("Parameters")
    return {str(n) for n in section} if isinstance(section, Mapping) else set()


def param_types_of(template: Any, files: Mapping[str, Any] | None = None) -> dict[str, str]:
    """Heat's ``all_param_schemata``: the declared parameters (name -> HOT type) of every file
    of ``files`` that is a template, then of ``template`` (which wins). O(size of files)."""
    out: dict[str, str] = {}
    for text in (files or {}).values():
        if isinstance(text, (str, bytes)):
            found = _template_param_types(text)
            if found:
                out.update(found)
    out.update(_template_param_types(template) or {})
    return out


def _invalid_value(detail: str = "") -> errors.BadRequest:
    return errors.BadRequest(f"Invalid parameter in environment {detail}.",
                             heat_type="ValueError")


def _parse_value(value: Any, ptype: str) -> Any:
    """Heat's ``parse_param``: json values become data; others must be text or a list."""
    if ptype == "json":
        if not isinstance(value, str):
            value = json.dumps(value)
        if value:
            try:
                return json.loads(value)
            except ValueError as exc:
                raise _invalid_value(str(exc)) from None
        return value
    if not isinstance(value, (str, list)):
        raise _invalid_value()
    return value


def _merge_list(old: Any, new: Any) -> Any:
    if not old:
        return new
    if isinstance(new, list):
        return (old.split(",") if isinstance(old, str) else list(old)) + new
    if isinstance(old, list):
        return ",".join([*map(str, old), str(new)])
    return ",".join([str(old), str(new)])


def _merge_map(old: Any, new: Any, deep: bool) -> Any:
    if isinstance(old, str) and old:
        try:
            old = json.loads(old)
        except ValueError:
            raise _invalid_value() from None
    if not old:
        return new
    if not isinstance(new, Mapping) or not isinstance(old, Mapping):
        raise _invalid_value()
    out = dict(old)
    for k, v in new.items():
        if v is None:
            continue
        if not deep:
            out[k] = v
        elif isinstance(v, Mapping):
            out[k] = _merge_map(out.get(k), v, True) if out.get(k) else v
        elif isinstance(v, list):
            out[k] = _merge_list(out.get(k), v) if out.get(k) else v
        elif isinstance(v, str):
            prev = out.get(k, "")
            out[k] = (prev if isinstance(prev, str) else json.dumps(prev)) + v
        else:
            out[k] = v
    return out


def _merge_value(name: str, old: Any, value: Any, ptype: str, deep: bool) -> Any:
    value = _parse_value(value, ptype)
    if ptype == "json":
        return _merge_map(old, value, deep)
    if ptype == "comma_delimited_list":
        return _merge_list(old, value)
    if ptype == "string":
        if not isinstance(value, str):
            raise _invalid_value()
        return (old if isinstance(old, str) else "" if old is None else str(old)) + value
    if ptype == "number":
        if old is None:
            return value
        if isinstance(old, str) and isinstance(value, str):
            return old + value  # Heat adds the two texts
        raise _invalid_value()
    raise errors.BadRequest(f"Invalid merge strategy 'merge' for parameter '{name}'.",
                            heat_type="InvalidMergeStrategyForParam")


def _strategy(in_file: Mapping[str, Any], key: str, seen: Mapping[str, str]) -> str:
    default = str(in_file.get("default", "overwrite"))
    chosen = in_file.get(key, seen.get(key, default))
    return str(chosen) if chosen in STRATEGIES else default


def _merge_parameters(old: dict[str, Any], new: Mapping[str, Any],
                      types: Mapping[str, str], in_file: Mapping[str, Any],
                      seen: dict[str, str], env_file: str) -> dict[str, Any]:
    for key, value in new.items():
        if key in types and value is not None:
            strategy = _strategy(in_file, key, seen)
            if key not in seen:
                seen[key] = strategy
            elif strategy != seen[key]:
                raise errors.BadRequest(
                    f"Conflicting merge strategy '{strategy}' for parameter '{key}' in file "
                    f"'{env_file}'.", heat_type="ConflictingMergeStrategyForParam")
    if not old:
        return dict(new)
    for key, value in new.items():
        if key in types and value is not None:
            if seen[key] == "overwrite":
                old[key] = value
            else:
                old[key] = _merge_value(key, old.get(key), value, types[key],
                                        seen[key] == "deep_merge")
    return old


def merge_request(body_environment: Any, body_parameters: Mapping[str, Any] | None,
                  environment_files: list[str] | None, files: Mapping[str, Any] | None,
                  param_types: Mapping[str, str] | None = None) -> Environment:
    """The request's environment, merged as Heat (see module doc).

    :param body_environment: the body's ``environment`` (mapping, YAML text or None).
    :param body_parameters: the body's ``parameters`` (``--parameter``).
    :param environment_files: names in ``files``, merged in order (later wins).
    :param param_types: declared parameter name -> HOT type (:func:`param_types_of`); needed
        only with ``environment_files``; None treats every name as declared, of type string.
    :raises errors.BadRequest: a file missing from ``files`` (``HTTPBadRequest``: Heat's 500
        KeyError made a clear 400), bad YAML, not a mapping, a wrong section, a malformed
        registry, a conflicting merge strategy, an unmergeable value.
    """
    env = parse_environment(body_environment)
    for key, empty in (("parameters", {}), ("parameter_defaults", {}),
                       ("resource_registry", {}), ("event_sinks", []),
                       ("encrypted_param_names", []), ("parameter_merge_strategies", {})):
        if env.get(key) is None:
            env[key] = copy.deepcopy(empty)
    env["parameters"].update(copy.deepcopy(dict(body_parameters or {})))
    seen: dict[str, str] = {}
    for name in environment_files or []:
        if name not in (files or {}):
            # Heat indexes the files map and answers a 500 KeyError
            # (heat.common.environment_util.merge_environments); the request is malformed,
            # so a 400 as heat-api answers a request body it cannot use
            raise errors.BadRequest(f"File {name} not found in files map.",
                                    heat_type="HTTPBadRequest")
        parsed = parse_environment((files or {})[name], name)
        in_file = parsed.pop("parameter_merge_strategies", None) or {}
        types: Mapping[str, str]
        for section, value in parsed.items():
            if not value:
                continue
            if section in ("parameters", "parameter_defaults"):
                types = param_types if param_types is not None else \
                    {k: "string" for k in value}
                env[section] = _merge_parameters(env[section], value, types, in_file, seen,
                                                 name)
            elif section == "resource_registry":
                if not env[section]:
                    env[section] = value
                else:
                    env[section].update({k: v for k, v in value.items() if v is not None})
            else:
                env[section] = list(env[section]) + list(value)
    Registry.from_mapping(env["resource_registry"])  # hooks and entries checked now, as Heat
    env["parameter_merge_strategies"] = {}
    return Environment.from_mapping(env)
