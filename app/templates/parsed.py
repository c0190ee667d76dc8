"""The data of a parsed template (HOT or CFN), before parameters are bound.

:class:`Template` is what :func:`app.templates.template.parse` returns and what
:func:`app.templates.stack.instantiate` binds; :class:`~app.templates.cfn.template.CfnTemplate`
subclasses it with its pseudo parameters. This module holds data only, so the parsers of both
formats and the instantiation above them import it and nothing imports back.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates.functions.base import parse
from app.templates.identity import StackIdentity
from app.templates.parameters import ParamSchema
from app.templates.resources import RawResource
from app.templates.versions import HotVersion


@dataclass
class RawOutput:
    """An output as parsed: value tree, description, condition (raw or parsed), and the
    parsed tree of its export name (CFN ``Export.Name``, Stoker HOT ``export.name``) or None."""

    name: str
    value: Any
    description: Any
    condition: Any
    has_condition: bool
    export: Any = None


@dataclass
class Template:
    """A parsed template. ``version`` is ``(key, normalised date)``; ``raw`` the loaded map."""

    version: tuple[str, str]
    description: str
    raw: dict[str, Any]
    files: Mapping[str, str]
    hot: HotVersion
    parameters: dict[str, ParamSchema]
    parameter_groups: Any
    conditions: dict[str, Any]
    resources: dict[str, RawResource]
    outputs: dict[str, RawOutput]
    warnings: list[str] = field(default_factory=list)
    locations: dict[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict)

    def pseudo_parameters(self, identity: StackIdentity) -> dict[str, Any] | None:
        """The format's pseudo parameters; None means HOT's ``OS::stack_*`` (CFN overrides)."""
        return None

    def locate(self, exc: errors.TemplateError) -> errors.TemplateError:
        """Attach the YAML line/column of the longest known prefix of ``exc.path``."""
        if exc.line is None and exc.path:
            path = tuple(exc.path)
            while path:
                if path in self.locations:
                    exc.line, exc.column = self.locations[path]
                    break
                path = path[:-1]
        return exc


def export_name(spec: dict[str, Any], key: str, name_key: str, hot: HotVersion,
                path: tuple[Any, ...]) -> Any:
    """The parsed export-name tree of an output spec (``export: {name: ...}`` in Stoker's HOT,
    ``Export: {Name: ...}`` in CFN), None without one. :raises errors.ValidationError:"""
    if key not in spec:
        return None
    export = spec[key]
    if not isinstance(export, dict) or name_key not in export or set(export) != {name_key}:
        raise errors.ValidationError(
            f"Output validation error: {errors.format_path(path + (key,))}: "
            f"must be a map with one key, {name_key}", path=path + (key,))
    return parse(export[name_key], hot.functions, path + (key, name_key))
