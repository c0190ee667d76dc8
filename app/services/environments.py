"""Merging the environments of a request, in Heat's order (a thin wrapper).

The rules live in :mod:`app.templates.env_merge` (pure): the body's ``parameters`` go into the
body's ``environment``, then each of ``environment_files`` (texts from the ``files`` map) is
merged on top, in order, with Heat's parameter merge strategies — so a file's ``parameters`` win
over ``--parameter`` values (oracle: env-passed-param-beats-env).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.templates import loader
from app.templates.env_merge import (
    declared_parameters,
    merge_request,
    param_types_of,
    parse_environment,
    parse_request_environment,
)


def merge(environment: Any, parameters: dict[str, Any] | None,
          environment_files: list[str] | None, files: dict[str, Any] | None,
          template: Any = None) -> dict[str, Any]:
    """The merged environment as a plain mapping (what is stored with the stack):
    ``parameters``, ``parameter_defaults``, ``resource_registry``, ``event_sinks``,
    ``encrypted_param_names``.

    :param template: the request's template (text or mapping); its declared parameters (and
        those of templates in ``files``) decide how environment files merge, as Heat's
        ``all_param_schemata``. Read only when there are environment files.
    ``event_sinks`` and ``encrypted_param_names`` hold each entry once (:func:`distinct`).

    :raises errors.BadRequest: a missing file, bad YAML, a wrong section, a merge conflict.
    """
    types = param_types_of(template, files) if environment_files and template is not None \
        else None
    env = merge_request(environment, parameters, environment_files, files, types)
    return {"parameters": dict(env.parameters),
            "parameter_defaults": dict(env.parameter_defaults),
            "resource_registry": dict(env.resource_registry),
            "event_sinks": distinct(env.event_sinks),
            "encrypted_param_names": distinct(env.encrypted_param_names)}


def distinct(items: Any) -> list[Any]:
    """``items`` without repeats, first occurrence kept (order preserved; O(n²) on the few
    entries of an environment list, which may hold unhashable mappings).

    python-heatclient (``-e``) sends the environment files both merged into ``environment``
    and by name in ``environment_files``; merging the files again on the server (as Heat's
    ``merge_environments`` does) would list each event sink twice and deliver every event
    twice. Heat itself replaces a list section rather than appending it (``merge_map``), so
    an environment never holds the same sink twice there either."""
    out: list[Any] = []
    for item in items or ():
        if item not in out:
            out.append(item)
    return out


def parse(environment: Any) -> dict[str, Any]:
    """A request's ``environment`` (mapping, YAML text or None) as a mapping of its sections.

    :raises errors.BadRequest: bad YAML, not a mapping, an unknown section.
    """
    return parse_environment(environment) if environment else {}


def parse_request(environment: Any) -> dict[str, Any]:
    """A request body's ``environment`` checked as heat-api does (see
    :func:`app.templates.env_merge.parse_request_environment`). :raises errors.BadRequest."""
    return parse_request_environment(environment)


def declared(template: Any) -> set[str] | None:
    """The parameter names ``template`` declares (None: not a template)."""
    return declared_parameters(template)


HIDDEN = "******"


def _hidden_flags(source: Any) -> dict[str, bool]:
    """Parameter name -> hidden, for one template (text or mapping, HOT ``hidden`` or CFN
    ``NoEcho``); ``{}`` when ``source`` is not a template."""
    try:
        data = loader.load_mapping(source).data
    except (errors.StokerError, TypeError, ValueError):
        return {}
    if not isinstance(data, Mapping):
        return {}
    if "heat_template_version" in data:
        section, key = data.get("parameters"), "hidden"
    elif "AWSTemplateFormatVersion" in data or "HeatTemplateFormatVersion" in data:
        section, key = data.get("Parameters"), "NoEcho"
    else:
        return {}
    return {str(name): str(spec.get(key, False)).lower() == "true"
            for name, spec in (section.items() if isinstance(section, Mapping) else ())
            if isinstance(spec, Mapping)}


def hidden_parameters(template: Any, files: Mapping[str, Any] | None) -> set[str]:
    """The parameters declared hidden, as Heat's ``all_param_schemata``: every template in
    ``files``, then ``template`` (whose declaration wins). O(size of the files)."""
    flags: dict[str, bool] = {}
    for text in (files or {}).values():
        if isinstance(text, (str, bytes)):
            flags.update(_hidden_flags(text))
    flags.update(_hidden_flags(template))
    return {name for name, hidden in flags.items() if hidden}


def masked(env: Mapping[str, Any], template: Any, files: Mapping[str, Any] | None
           ) -> dict[str, Any]:
    """A copy of a stored environment whose ``parameters`` and ``parameter_defaults`` show
    ``******`` for the hidden parameters (Heat's ``get_environment``, heat/engine/service.py:
    a name the templates do not declare, or declare visible, stays as it is)."""
    hidden = hidden_parameters(template, files)
    out = dict(env)
    for section in ("parameters", "parameter_defaults"):
        values = out.get(section)
        if isinstance(values, Mapping):
            out[section] = {k: HIDDEN if k in hidden else v for k, v in values.items()}
    return out
