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
from app.templates.versions import ALIASES, CFN_VERSIONS, HOT_KEY, HOT_VERSIONS, STOKER_VERSION, hot_version

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

#: Each function's description as Heat's ``GET .../functions`` answers it: the first line of the
#: docstring of the class that implements it (data of the API, compared by Heat's own tests).
_DESCRIPTIONS = {
    "get_param": "A function for resolving parameter references.",
    "get_resource": "A function for resolving resource references.",
    "get_attr": "A function for resolving resource attributes.",
    "get_file": "A function for including a file inline.",
    "list_join": "A function for joining one or more lists of strings.",
    "str_replace": "A function for performing string substitutions.",
    "str_replace_strict": "A function for performing string substitutions.",
    "str_replace_vstrict": "A function for performing string substitutions.",
    "str_split": "A function for splitting delimited strings into a list.",
    "repeat": "A function for iterating over a list of items or a dict of keys.",
    "digest": "A function for performing digest operations.",
    "map_merge": "A function for merging maps.",
    "map_replace": "A function for performing substitutions on maps.",
    "yaql": "A function for executing a yaql expression.",
    "if": "A function to return corresponding value based on condition evaluation.",
    "equals": "A function for comparing whether two values are equal.",
    "not": "A function that acts as a NOT operator on a condition.",
    "and": "A function that acts as an AND operator on conditions.",
    "or": "A function that acts as an OR operator on conditions.",
    "contains": "A function for checking whether specific value is in sequence.",
    "filter": "A function for filtering out values from lists.",
    "make_url": "A function for performing substitutions on maps.",
    "list_concat": "A function for extending lists.",
    "list_concat_unique": "A function for extending lists with unique items.",
    "resource_facade": "A function for retrieving data in a parent provider template.",
    "import_value": "A function for reading a value another stack of the project exports "
                    "(Stoker's stoker-2026-12-01, not Heat's).",
    "Fn::FindInMap": "A function for resolving keys in the template mappings.",
    "Fn::GetAZs": "A function for retrieving the availability zones.",
    "Ref": "A function for resolving parameter references.",
    "Fn::GetAtt": "A function for resolving resource attributes.",
    "Fn::Select": "A function for selecting an item from a list or map.",
    "Fn::Join": "A function for joining strings.",
    "Fn::Split": "A function for splitting strings.",
    "Fn::Replace": "A function for performing string substitutions.",
    "Fn::Base64": "A placeholder function for converting to base64.",
    "Fn::MemberListToMap": "A function to convert lists with enumerated keys and values to mapping.",
    "Fn::ResourceFacade": "A function for retrieving data in a parent provider template.",
    "Fn::If": "A function to return corresponding value based on condition evaluation.",
    "Fn::Equals": "A function for comparing whether two values are equal.",
    "Fn::Not": "A function that acts as a NOT operator on a condition.",
    "Fn::And": "A function that acts as an AND operator on conditions.",
    "Fn::Or": "A function that acts as an OR operator on conditions.",
}

#: Where an older HOT version implements a function by another class: (name, first version with
#: the newer class) -> the older class's description.
_OLDER = {("list_join", "2015-10-15"): "A function for joining strings.",
          ("repeat", "2016-10-14"): "A function for iterating over a list of items."}


def _describe(name: str, version: str = "") -> str:
    """Heat's description of function ``name`` in HOT ``version`` (a date; "" for the newest)."""
    for (fname, since), older in _OLDER.items():
        if fname == name and version and version < since:
            return older
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
        date = ""
    elif key == HOT_KEY and (ALIASES.get(name, name) in HOT_VERSIONS
                             or name == STOKER_VERSION):
        names = hot_version(name).listed_functions(with_condition_func)
        date = ALIASES.get(name, name)
    else:
        raise errors.NotFound("Template version", version,
                              f"Template with version {version} not found")
    return {"template_functions": [{"functions": n, "description": _describe(n, date)}
                                   for n in names]}
