"""Merging the environments of a request, in Heat's order.

Heat's API puts the body's ``parameters`` into the body's ``environment`` and the engine then
merges each of ``environment_files`` (texts taken from the ``files`` map) on top, in order, so a
file's ``parameters`` win over ``--parameter`` values (oracle: env-passed-param-beats-env).
"""
from __future__ import annotations

import copy
from typing import Any

import yaml

from app import errors

SECTIONS = ("parameters", "parameter_defaults", "resource_registry", "event_sinks",
            "encrypted_param_names", "parameter_merge_strategies")


def parse(text: Any, name: str = "environment") -> dict[str, Any]:
    """Load one environment (YAML/JSON text or mapping).

    :raises errors.BadRequest: not a mapping, bad YAML, or an unknown section.
    """
    if isinstance(text, (str, bytes)):
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise errors.BadRequest(f"Error parsing {name}: {exc}") from exc
    else:
        data = text
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise errors.BadRequest(f"The environment is not a valid YAML mapping data type.")
    for key in data:
        if key not in SECTIONS:
            raise errors.BadRequest(f"environment has wrong section \"{key}\"")
    return copy.deepcopy(data)


def _merge_into(base: dict[str, Any], env: dict[str, Any]) -> None:
    for section, value in env.items():
        if section in ("parameters", "parameter_defaults", "resource_registry",
                       "parameter_merge_strategies"):
            target = base.setdefault(section, {})
            if section == "resource_registry":
                for k, v in (value or {}).items():
                    if k == "resources" and isinstance(v, dict):
                        target.setdefault("resources", {}).update(v)
                    else:
                        target[k] = v
            else:
                target.update(value or {})
        elif section in ("event_sinks", "encrypted_param_names"):
            base.setdefault(section, []).extend(value or [])


def merge(environment: Any, parameters: dict[str, Any] | None,
          environment_files: list[str] | None, files: dict[str, Any] | None) -> dict[str, Any]:
    """The merged environment: body environment + body parameters, then each file in order.

    :raises errors.BadRequest: an environment file named but absent from ``files``.
    """
    merged: dict[str, Any] = {"parameters": {}, "parameter_defaults": {},
                              "resource_registry": {"resources": {}}, "event_sinks": [],
                              "encrypted_param_names": []}
    _merge_into(merged, parse(environment or {}))
    merged["parameters"].update(parameters or {})
    for name in environment_files or []:
        if name not in (files or {}):
            raise errors.BadRequest(f"File {name} not found in files map.")
        _merge_into(merged, parse((files or {})[name], name))
    return merged
