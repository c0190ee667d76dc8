"""Pure builders of Heat API bodies: ``POST /validate``, ``GET /template_versions`` and
``GET /template_versions/{version}/functions``. The API layer calls these and serialises them.

Shapes follow Heat's api-samples (heat-reference/api-samples/validate.txt,
template_versions.txt): ``{"Description", "Parameters": {name: {"Type", "Description",
"NoEcho", "Label", ["Default"], ["Value"], constraints...}}, ["ParameterGroups"],
"Environment"}``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app import errors
from app.templates.environment import Environment
from app.templates.identity import Nesting, StackIdentity
from app.templates.parameters import ParamSchema
from app.templates.stack import instantiate
from app.templates.template import Template, parse
from app.templates.versions import ALIASES, CFN_VERSIONS, HOT_KEY, HOT_VERSIONS

TYPE_NAMES = {"string": "String", "number": "Number", "comma_delimited_list":
              "CommaDelimitedList", "json": "Json", "boolean": "Boolean"}

#: CFN function listings (the CFN format itself is a later issue; the listing is data).
CFN_FUNCTIONS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "AWSTemplateFormatVersion.2010-09-09": (
        ("Fn::FindInMap", "Fn::GetAZs", "Ref", "Fn::GetAtt", "Fn::Select", "Fn::Join",
         "Fn::Split", "Fn::Replace", "Fn::Base64", "Fn::MemberListToMap",
         "Fn::ResourceFacade", "Fn::If"),
        ("Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or")),
    "HeatTemplateFormatVersion.2012-12-12": (
        ("Fn::FindInMap", "Fn::GetAZs", "Ref", "Fn::GetAtt", "Fn::Select", "Fn::Join",
         "Fn::Split", "Fn::Replace", "Fn::Base64", "Fn::MemberListToMap",
         "Fn::ResourceFacade"), ()),
}

_DESCRIPTIONS = {
    "get_param": "A parameter's value (with an optional path into it).",
    "get_resource": "A resource's reference id.",
    "get_attr": "A resource's attribute (with an optional path into it).",
    "get_file": "The content of a file from the request's files map.",
    "list_join": "Join lists of strings with a delimiter.",
    "str_replace": "Replace placeholders in a string.",
    "str_replace_strict": "str_replace; every placeholder must occur.",
    "str_replace_vstrict": "str_replace_strict; values must not be empty.",
    "str_split": "Split a string (optionally pick one item).",
    "repeat": "Repeat a template for each item of lists.",
    "digest": "Hex digest of a string.",
    "map_merge": "Merge maps; later keys win.",
    "map_replace": "Rename keys and replace values of a map.",
    "yaql": "Evaluate a YAQL expression over data.",
    "if": "Pick a value by a condition.",
    "equals": "Compare two values.",
    "not": "Negate a condition.",
    "and": "All conditions hold.",
    "or": "Any condition holds.",
    "contains": "A value is in a sequence.",
    "filter": "Remove values from a list.",
    "make_url": "Build a URL from its parts.",
    "list_concat": "Concatenate lists.",
    "list_concat_unique": "Concatenate lists, keeping first occurrences.",
    "resource_facade": "Data of the parent resource of a nested stack.",
}


def _describe(name: str) -> str:
    return _DESCRIPTIONS.get(name, f"The CloudFormation function {name}.")


def parameter_body(schema: ParamSchema, value: Any = None, has_value: bool = False) -> dict[str, Any]:
    """One entry of ``Parameters`` as Heat's ``format_validate_parameter``."""
    out: dict[str, Any] = {"Type": TYPE_NAMES[schema.type], "Description": schema.description,
                           "NoEcho": "true" if schema.hidden else "false",
                           "Label": schema.label or schema.name}
    if has_value:
        out["Value"] = value
    if schema.has_default:
        out["Default"] = schema.default
    descriptions = []
    for c in schema.constraints:
        if "length" in c:
            if c["length"].get("min") is not None:
                out["MinLength"] = c["length"]["min"]
            if c["length"].get("max") is not None:
                out["MaxLength"] = c["length"]["max"]
        if "range" in c:
            if c["range"].get("min") is not None:
                out["MinValue"] = c["range"]["min"]
            if c["range"].get("max") is not None:
                out["MaxValue"] = c["range"]["max"]
        if "modulo" in c:
            out["Step"], out["Offset"] = c["modulo"]["step"], c["modulo"]["offset"]
        if "allowed_values" in c:
            out["AllowedValues"] = list(c["allowed_values"])
        if "allowed_pattern" in c:
            out["AllowedPattern"] = c["allowed_pattern"]
        if "custom_constraint" in c:
            out["CustomConstraint"] = c["custom_constraint"]
        if c.get("description"):
            descriptions.append(str(c["description"]))
    if descriptions:
        out["ConstraintDescription"] = " ".join(descriptions)
    if schema.tags:
        out["Tags"] = list(schema.tags)
    return out


def validate_body(tmpl: Template, env: Environment | None = None,
                  params: Mapping[str, Any] | None = None, *,
                  with_warnings: bool = False) -> dict[str, Any]:
    """The body of Heat's ``POST /validate`` for a parsed (and validated) template.

    :param params: user parameter values; a parameter given one shows it as ``Value``.
    :param with_warnings: add ``"Warnings"`` (Stoker's list of Heat's lax spots).
    """
    env = env or Environment()
    given = {**dict(params or {}), **env.parameters}
    body: dict[str, Any] = {
        "Description": tmpl.raw.get("description", "") if tmpl.raw.get("description")
        is not None else "",
        "Parameters": {name: parameter_body(s, given.get(name), name in given)
                       for name, s in tmpl.parameters.items()},
    }
    if tmpl.parameter_groups:
        body["ParameterGroups"] = tmpl.parameter_groups
    body["Environment"] = env.to_mapping()
    if with_warnings:
        body["Warnings"] = list(tmpl.warnings)
    return body


def validate_template(source: str | bytes | Mapping[str, Any], *,
                      files: Mapping[str, str] | None = None, env: Environment | None = None,
                      params: Mapping[str, Any] | None = None,
                      type_schema: Callable[[str], dict[str, Any] | None] | None = None,
                      max_size: int | None = None, with_warnings: bool = False,
                      nesting: Nesting) -> dict[str, Any]:
    """Parse, validate as Heat's ``POST /validate`` (no parameter values needed) and build the
    body; ``nesting``: as :func:`~.stack.instantiate`.
    :raises errors.StokerError: as :func:`~.template.parse` / ``instantiate``."""
    tmpl = parse(source, files, max_size=max_size)
    instantiate(tmpl, params or {}, env, StackIdentity("validate"), type_schema, strict=False,
                nesting=nesting)
    return validate_body(tmpl, env, params, with_warnings=with_warnings)


def template_versions_body() -> dict[str, Any]:
    """``GET /template_versions``: CFN versions, then HOT dates with their aliases."""
    out = [{"version": f"{key}.{date}", "type": "cfn", "aliases": []}
           for key, date in CFN_VERSIONS.items()]
    for date in HOT_VERSIONS:
        aliases = [f"{HOT_KEY}.{a}" for a, d in ALIASES.items() if d == date]
        out.append({"version": f"{HOT_KEY}.{date}", "type": "hot", "aliases": aliases})
    return {"template_versions": out}


def template_functions_body(version: str, with_condition_func: bool = False) -> dict[str, Any]:
    """``GET /template_versions/{version}/functions`` (``version`` as ``key.date`` or
    ``key.alias``). :raises errors.NotFound: unknown version."""
    key, _, name = version.partition(".")
    if version in CFN_FUNCTIONS:
        fns, conds = CFN_FUNCTIONS[version]
        names = list(fns) + (list(conds) if with_condition_func else [])
    elif key == HOT_KEY and ALIASES.get(name, name) in HOT_VERSIONS:
        names = HOT_VERSIONS[ALIASES.get(name, name)].listed_functions(with_condition_func)
    else:
        raise errors.NotFound("Template version", version,
                              f"Template with version {version} not found")
    return {"template_functions": [{"functions": n, "description": _describe(n)}
                                   for n in names]}
