"""Template validation and the template/resource-type catalogue, for the API.

``validate_template`` merges the request's environments exactly as stack create does, then asks
the template package for Heat's ``POST /validate`` body; nothing is persisted.
"""
from __future__ import annotations

from typing import Any

from app import config, errors, templates
from app.context import RequestContext
from app.resource_types import registry
from app.services import definitions, environments
from app.templates import api_bodies


def validate_template(ctx: RequestContext, *, template: Any, files: dict[str, Any] | None = None,
                      environment: Any = None, environment_files: list[str] | None = None,
                      parameters: dict[str, Any] | None = None, show_nested: bool = False,
                      ignore_errors: Any = None) -> dict[str, Any]:
    """Heat's validate body: ``{"Description", "Parameters", ["ParameterGroups"], "Environment"}``.

    :raises errors.BadRequest, errors.TemplateError, errors.RequestLimitExceeded: as create.
    """
    from app.services.stacks import check_request
    check_request(template, files, config.get().max_template_size)
    merged = environments.merge(environment, parameters, environment_files, files,
                                template)
    params = merged.get("parameters") or {}
    tmpl, _, env = definitions.parse_and_instantiate(
        template, files, templates.Environment.from_mapping(merged), params,
        templates.StackIdentity("validate"), strict=False,
        max_size=config.get().max_template_size)
    return api_bodies.validate_body(tmpl, env, params)


def template_versions() -> list[dict[str, Any]]:
    return list(api_bodies.template_versions_body()["template_versions"])


def template_functions(version: str, with_condition_func: bool = False) -> list[dict[str, Any]]:
    """:raises errors.NotFound: unknown version."""
    return list(api_bodies.template_functions_body(version, with_condition_func)
                ["template_functions"])


def resource_types(ctx: RequestContext, *, name: str | None = None, version: str | None = None,
                   support_status: str | None = None,
                   with_description: bool = False) -> list[Any]:
    """Registered type names (Heat's list; ``name`` filters by substring/regex as Heat does)."""
    import re
    out: list[Any] = []
    for t in registry.types():
        schema = registry.schema(t) or {}
        status = (schema.get("support_status") or {}).get("status", "SUPPORTED")
        if support_status and status != support_status:
            continue
        if name and not re.search(name, t):
            continue
        out.append({"resource_type": t, "description": ""} if with_description else t)
    return out


def _schema_or_404(type_name: str) -> dict[str, Any]:
    schema = registry.schema(type_name)
    if schema is None:
        raise errors.NotFound("Resource Type", type_name, heat_type="ResourceTypeNotFound")
    return schema


def resource_type_schema(ctx: RequestContext, type_name: str,
                         with_description: bool = False) -> dict[str, Any]:
    """Heat's ``GET /resource_types/{type}``: resource_type, properties, attributes,
    support_status (and description). :raises errors.NotFound."""
    schema = dict(_schema_or_404(type_name))
    schema["resource_type"] = type_name
    if with_description:
        schema.setdefault("description", "")
    return schema


def resource_type_template(ctx: RequestContext, type_name: str,
                           template_type: str = "cfn") -> dict[str, Any]:
    """A template exposing every property as a parameter and every attribute as an output, as
    Heat's ``GET /resource_types/{type}/template``. :raises errors.NotFound."""
    schema = _schema_or_404(type_name)
    short = type_name.split("::")[-1]
    props = schema.get("properties") or {}
    attrs = [a for a in (schema.get("attributes") or {}) if a != "show"]
    kinds = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean",
             "list": "comma_delimited_list", "map": "json"}
    if template_type == "hot":
        return {
            "heat_template_version": "2016-10-14",
            "description": f"Initial template of {short}",
            "parameters": {p: {"type": kinds.get(v.get("type", "string"), "string")}
                           for p, v in props.items()},
            "resources": {short: {"type": type_name,
                                  "properties": {p: {"get_param": p} for p in props}}},
            "outputs": {a: {"value": {"get_attr": [short, a]}} for a in attrs},
        }
    cfn = {"string": "String", "number": "Number", "integer": "Number", "boolean": "Boolean",
           "list": "CommaDelimitedList", "map": "Json"}
    return {
        "HeatTemplateFormatVersion": "2012-12-12",
        "Description": f"Initial template of {short}",
        "Parameters": {p: {"Type": cfn.get(v.get("type", "string"), "String")}
                       for p, v in props.items()},
        "Resources": {short: {"Type": type_name,
                              "Properties": {p: {"Ref": p} for p in props}}},
        "Outputs": {a: {"Value": {"Fn::GetAtt": [short, a]}} for a in attrs},
    }
