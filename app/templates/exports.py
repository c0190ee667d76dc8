"""Cross-stack exports, the template side: which exports a template imports, which outputs it
exports and under what names, and the values it exports once its outputs are resolved.

An output exports its value with CloudFormation's ``Export: {Name: ...}`` (or ``export:
{name: ...}`` in Stoker's HOT version ``stoker-2026-12-01``); another stack of the same project
reads it with ``Fn::ImportValue: name`` (``import_value: name``). The names must be known before
any resource exists (literal strings, or functions of parameters and pseudo parameters), as the
services check them before a stack is written. Storage and the in-use rules are the services'.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.templates.functions.base import UNKNOWN, resolve, walk
from app.templates.functions.core import ImportValue
from app.templates.parsed import Template
from app.templates.scope import StaticResolver
from app.templates.stack import StackDefinition


def imported_names(tmpl: Template) -> list[str]:
    """Export names the template's resources and outputs import, sorted, each once. O(template)."""
    trees: list[Any] = []
    for res in tmpl.resources.values():
        trees += [res.properties, res.metadata]
    trees += [out.value for out in tmpl.outputs.values()]
    return sorted({fn.args for fn in walk(trees) if isinstance(fn, ImportValue)})


def bind_imports(definition: StackDefinition, values: Mapping[str, Any]) -> None:
    """Give the definition the imported values (``name -> value``); an import not among them
    then fails with "No export named <name> found." when it resolves."""
    definition.scope.imports = dict(values)


def export_names(definition: StackDefinition) -> dict[str, str]:
    """``output key -> export name`` for every enabled output that exports its value.

    :raises errors.ValidationError: a name not a non-empty string known before resources exist,
        or two outputs exporting the same name."""
    static = StaticResolver(definition.scope)
    out: dict[str, str] = {}
    for key, raw in definition.template.outputs.items():
        if raw.export is None or not definition.output_enabled(key):
            continue
        name = resolve(raw.export, static)
        path = ("outputs", key, "export", "name")
        if name is UNKNOWN or not isinstance(name, str) or not name:
            raise errors.ValidationError(
                f"Output validation error: {errors.format_path(path)}: the export name must be "
                f"a string known before any resource is created{_why(definition, name)}",
                path=path)
        if name in out.values():
            raise errors.ValidationError(
                f"Output validation error: {errors.format_path(path)}: the export name {name} "
                f"is already used by another output of this template", path=path)
        out[key] = name
    return out


def _why(definition: StackDefinition, name: Any) -> str:
    """The real cause when the name is a one-key map whose key is a CloudFormation function
    the template's format lacks (e.g. ``Fn::Sub``, which Heat's CFN format has not): it is
    kept as a plain map, so the name is no string. Else nothing."""
    if not isinstance(name, dict) or len(name) != 1:
        return ""
    (key,) = name
    tmpl = definition.template
    if not isinstance(key, str) or not key.startswith("Fn::") or key in tmpl.hot.functions:
        return ""
    return (f': "{key}" is not a function of this template format '
            f"({tmpl.version[0]}: {tmpl.version[1]})")


def export_values(names: Mapping[str, str], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """``export name -> value`` from resolved outputs (``resolve_outputs``' list) and
    :func:`export_names`; an output that failed to resolve exports nothing."""
    by_key = {o["output_key"]: o for o in outputs}
    return {name: by_key[key].get("output_value") for key, name in names.items()
            if key in by_key and "output_error" not in by_key[key]}
