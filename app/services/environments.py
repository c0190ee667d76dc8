"""Merging the environments of a request, in Heat's order (a thin wrapper).

The rules live in :mod:`app.templates.env_merge` (pure): the body's ``parameters`` go into the
body's ``environment``, then each of ``environment_files`` (texts from the ``files`` map) is
merged on top, in order, with Heat's parameter merge strategies — so a file's ``parameters`` win
over ``--parameter`` values (oracle: env-passed-param-beats-env).
"""
from __future__ import annotations

from typing import Any

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
    :raises errors.BadRequest: a missing file, bad YAML, a wrong section, a merge conflict.
    """
    types = param_types_of(template, files) if environment_files and template is not None \
        else None
    env = merge_request(environment, parameters, environment_files, files, types)
    return {"parameters": dict(env.parameters),
            "parameter_defaults": dict(env.parameter_defaults),
            "resource_registry": dict(env.resource_registry),
            "event_sinks": list(env.event_sinks),
            "encrypted_param_names": list(env.encrypted_param_names)}


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
