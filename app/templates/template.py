"""Template: a parsed HOT template (version, sections, parsed function trees), before parameters.

``parse(source, files)`` follows Heat's order: load (size, YAML/JSON, mapping), detect the
version, check the top-level sections, then parse parameters (schemas), parameter_groups,
conditions, resources and outputs into function trees. Errors carry the template path and, when
the text was YAML, the line/column of the offending value. Heat's lax spots are accepted but
recorded in :attr:`Template.warnings` (a non-string description, a description that swallowed a
``resources:`` section, a non-boolean ``immutable``, unknown output keys).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app import errors
from app.templates import loader
from app.templates.cfn.template import parse_cfn
from app.templates.conditions import parse_section as parse_conditions
from app.templates.functions.base import parse as parse_tree
from app.templates.parameters import ParamSchema, parse_schema
from app.templates.parsed import RawOutput, Template, export_name
from app.templates.resources import parse_resources
from app.templates.versions import HOT_KEY, HotVersion, condition_table, detect, hot_version

__all__ = ["RawOutput", "Template", "parse"]


def _mapping_section(raw: dict[str, Any], key: str) -> Any:
    """``raw[key]`` (None when absent). :raises errors.ValidationError: it is not a map; a
    clear 400 where Heat's ``section.items()`` leaks a 400 ``AttributeError``."""
    value = raw.get(key)
    if value is not None and not isinstance(value, dict):
        raise errors.ValidationError(f'The "{key}" section must be a map of {key[:-1]} names '
                                     f"to {key[:-1]} definitions, not {loader.kind(value)}",
                                     path=(key,))
    return value


def _description(raw: dict[str, Any], warnings: list[str]) -> str:
    desc = raw.get("description", "")
    if desc is None:
        return ""
    if isinstance(desc, str):
        return desc
    warnings.append("description is not a string; Heat accepts it and ignores it")
    if isinstance(desc, dict):
        swallowed = [k for k in desc if k in ("resources", "outputs", "parameters",
                                              "conditions", "parameter_groups")]
        if swallowed:
            warnings.append(f"description contains {', '.join(swallowed)}: a section indented "
                            f"under description is not part of the template (the stack will "
                            f"have no {swallowed[0]})")
    return str(desc)


def _parse_outputs(section: Any, hot: HotVersion, warnings: list[str]) -> dict[str, RawOutput]:
    out: dict[str, RawOutput] = {}
    for name, spec in (section or {}).items():
        path = ("outputs", name)
        if not isinstance(spec, dict) or "value" not in spec:
            raise errors.ValidationError(f"Output validation error: {errors.format_path(path)}: "
                                         "Each output definition must contain a value key.",
                                         path=path)
        extra = [k for k in spec if k not in hot.output_keys]
        if extra:
            warnings.append(f"outputs.{name}: unknown keys ignored: "
                            f"{', '.join(map(str, extra))}")
        cond = spec.get("condition")
        if "condition" in hot.output_keys and "condition" in spec \
                and not isinstance(cond, (bool, str)):
            cond = parse_tree(cond, condition_table(hot), path + ("condition",))
        export = export_name(spec, "export", "name", hot, path) \
            if "export" in hot.output_keys else None
        out[name] = RawOutput(name, parse_tree(spec["value"], hot.functions, path + ("value",)),
                              spec.get("description"),
                              cond, "condition" in hot.output_keys and "condition" in spec,
                              export)
    return out


def parse(source: str | bytes | Mapping[str, Any], files: Mapping[str, str] | None = None, *,
          max_size: int | None = None) -> Template:
    """Load and parse a template (see module doc).

    :param source: YAML/JSON text or an already-loaded mapping.
    :param files: the request's files map (``get_file`` targets, nested templates).
    :param max_size: Heat's ``max_template_size`` in bytes (the caller passes it).
    :raises errors.BadRequest: not YAML/JSON, not a mapping, no version key.
    :raises errors.RequestLimitExceeded: size or alias/nesting limits.
    :raises errors.TemplateError: invalid version, sections, parameters, resources, functions.
    """
    loaded = loader.load_mapping(source, max_size=max_size)
    raw: dict[str, Any] = loaded.data
    tmpl: Template | None = None
    try:
        key, date = detect(raw)
        if key != HOT_KEY:
            return parse_cfn(loaded, key, date, files, source)
        hot = hot_version(date)
        for section in raw:
            if section not in hot.sections:
                raise errors.ValidationError(f"The template section is invalid: {section}",
                                             path=(str(section),))
        warnings: list[str] = []
        description = _description(raw, warnings)
        params_section = _mapping_section(raw, "parameters") or {}
        schemas: dict[str, ParamSchema] = {}
        for name, spec in params_section.items():
            if isinstance(spec, dict) and "immutable" in spec \
                    and not isinstance(spec["immutable"], bool):
                warnings.append(f"parameters.{name}.immutable is not a boolean "
                                f"({spec['immutable']!r}); Heat ignores it")
            try:
                schemas[str(name)] = parse_schema(str(name), spec, hot)
            except errors.TemplateError as exc:   # located, for a scan to repair it
                exc.path = exc.path or ("parameters", str(name))
                raise
        outputs_section = _mapping_section(raw, "outputs")
        resources = parse_resources(raw.get("resources"), hot)
        for rname, res in resources.items():
            if not isinstance(res.description, str):
                warnings.append(f"resources.{rname}.description is not a string; Heat accepts "
                                f"it and ignores it")
        tmpl = Template(
            version=(key, date), description=description, raw=raw, files=dict(files or {}),
            hot=hot, parameters=schemas, parameter_groups=raw.get("parameter_groups"),
            conditions=parse_conditions(raw.get("conditions"), hot),
            resources=resources,
            outputs=_parse_outputs(outputs_section, hot, warnings),
            warnings=warnings, locations=loaded.locations)
        return tmpl
    except errors.TemplateError as exc:
        if exc.line is None and exc.path:
            path = tuple(exc.path)
            while path:
                if path in loaded.locations:
                    exc.line, exc.column = loaded.locations[path]
                    break
                path = path[:-1]
        raise
