"""Template validation and the template/resource-type catalogue, for the API.

``validate_template`` merges the request's environments exactly as stack create does, then asks
the template package for Heat's ``POST /validate`` body; nothing is persisted.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex

from app import config, errors, templates
from app.auth import resource_policy
from app.context import RequestContext
from app.convergence.store.definitions import type_schema
from app.resource_types import registry
from app.services import environments
from app.templates import api_bodies, error_scan, global_templates
from app.templates.functions.base import UNKNOWN
from app.templates.provider import template_resource_schema


def check_limits(template: Any, files: dict[str, Any] | None) -> None:
    """The checks heat-api makes in ``InstantiationData.template()``, before the engine sees the
    template (heat/api/openstack/v1/stacks.py): their errors keep their own type on
    ``POST /validate`` too, where the engine's errors become ``HTTPBadRequest``.

    :raises errors.RequestLimitExceeded: the template is larger than ``max_template_size``.
    :raises errors.BadRequest: no template, or not a mapping / text.
    """
    from app.services.stacks import check_request
    check_request(template, files, config.get().max_template_size)


def validate_template(ctx: RequestContext, *, template: Any, files: dict[str, Any] | None = None,
                      environment: Any = None, environment_files: list[str] | None = None,
                      parameters: dict[str, Any] | None = None, show_nested: bool = False,
                      ignore_errors: Any = None) -> dict[str, Any]:
    """Heat's validate body: ``{"Description", "Parameters", ["ParameterGroups"], "Environment"}``.

    Checks what Heat's ``EngineService.validate_template`` checks
    (``Stack.validate(validate_res_tmpl_only=True)``, heat/engine/service.py): the template's
    structure, functions' arguments, deletion/update policies, property names; not property
    values nor the plugins' own checks (stack create does those).

    The caller has checked the request with :func:`check_limits` (as heat-api does before the
    engine: its errors keep their own type), so the template is measured once.

    :raises errors.BadRequest, errors.TemplateError, errors.RequestLimitExceeded: as create.
    """
    merged = environments.merge(environment, parameters, environment_files, files,
                                template)
    params = merged.get("parameters") or {}
    env = templates.Environment.from_mapping(merged)
    # Heat validates the template only (Stack.validate(validate_res_tmpl_only=True): each
    # resource's validate_template(), properties by name, not value): no plugin's own checks,
    # no property values, no cloud lookups
    tmpl = templates.parse(template, files=files or {}, max_size=config.get().max_template_size)
    definition = templates.instantiate(
        tmpl, params, env, templates.StackIdentity("validate"), type_schema, strict=False,
        nesting=templates.Nesting(max_depth=config.get().max_nested_stack_depth),
        validate_children=False)
    body = api_bodies.validate_body(tmpl, env, params)
    nested = _template_resources(tmpl, env, files or {})
    shown = body["Environment"].setdefault("resource_registry", {})
    for type_name, _ in nested.values():   # Heat registers a file type as it meets it
        shown.setdefault(type_name, type_name)
    if show_nested:
        found = _nested_parameters(definition.static_properties, nested, env, files or {}, 1)
        if found:
            body = {**{k: v for k, v in body.items() if k != "Environment"},
                    "NestedParameters": found, "Environment": body["Environment"]}
    return body


def all_errors(ctx: RequestContext, *, template: Any, files: dict[str, Any] | None = None,
               environment: Any = None, environment_files: list[str] | None = None,
               parameters: dict[str, Any] | None = None,
               strict: bool = False) -> list[dict[str, Any]]:
    """Every error the template checks find in one pass (``strict``: as stack create, with
    parameter values and property values; else as ``POST /validate``), each
    ``{"message", "type", "path", "line", "column"}``: ``path`` dotted
    (``resources.web.properties.flavor``, "" when the error has none), ``line``/``column``
    1-based where the template came as text, else null. ``[]``: no error found."""
    try:
        merged = environments.merge(environment, parameters, environment_files, files,
                                    template)
        env = templates.Environment.from_mapping(merged)
        found = error_scan.scan(
            template, files or {}, params=merged.get("parameters") or {}, env=env,
            identity=templates.StackIdentity("validate"), type_schema=type_schema,
            nesting=templates.Nesting(max_depth=config.get().max_nested_stack_depth),
            strict=strict, max_size=config.get().max_template_size)
    except errors.StokerError as exc:
        return [error_entry(exc)]
    return [error_entry(exc) for exc in found]


def error_entry(exc: errors.StokerError) -> dict[str, Any]:
    """One entry of :func:`all_errors`."""
    return {"message": exc.message, "type": exc.heat_type, "path": exc.path_str,
            "line": getattr(exc, "line", None), "column": getattr(exc, "column", None)}


def _no_props(name: str) -> dict[str, Any]:
    return {}


def _template_resources(tmpl: Any, env: Any, files: dict[str, Any]) -> dict[str, Any]:
    """``{resource name: (type name, file key)}`` of the template's resources implemented by
    a template file of the request."""
    out: dict[str, Any] = {}
    for name, res in (tmpl.raw.get("resources") or {}).items():
        type_name = res.get("type") if isinstance(res, dict) else None
        if not isinstance(type_name, str):
            continue
        try:
            _, key = env.resolve_type(name, type_name)
        except errors.StokerError:
            continue
        if key and key in files:
            out[name] = (type_name, key)
    return out


def _nested_parameters(props_of: Callable[[str], dict[str, Any]], nested: dict[str, Any],
                       env: Any, files: dict[str, Any], depth: int) -> dict[str, Any]:
    """Heat's ``NestedParameters`` (``show_nested``): for each template resource, its nested
    template's ``Description``, ``Parameters`` (a value its properties give shown as
    ``Value``), ``Type`` and, deeper, its own ``NestedParameters``."""
    out: dict[str, Any] = {}
    if depth > config.get().max_nested_stack_depth:
        return out
    for name, (type_name, key) in nested.items():
        try:
            child = templates.parse(files[key], files=files)
            given = {k: v for k, v in props_of(name).items() if v is not UNKNOWN}
        except errors.StokerError:   # already reported by the validation itself
            continue
        child_env = templates.Environment.from_mapping(
            {"resource_registry": env.registry().child_mapping(name, key, type_name)})
        body = api_bodies.validate_body(child, None, given)
        entry: dict[str, Any] = {"Description": body["Description"],
                                 "Parameters": body["Parameters"], "Type": type_name}
        if "ParameterGroups" in body:
            entry["ParameterGroups"] = body["ParameterGroups"]
        grand = _template_resources(child, child_env, files)
        if grand:
            try:
                child_def = templates.instantiate(
                    child, given, child_env, templates.StackIdentity(f"validate-{name}"),
                    type_schema, strict=False,
                    nesting=templates.Nesting(max_depth=config.get().max_nested_stack_depth))
                props_of_child = child_def.static_properties
            except Exception:   # the parameters are still shown, without given values
                props_of_child = _no_props
            deeper = _nested_parameters(props_of_child, grand, child_env, files, depth + 1)
            if deeper:
                entry["NestedParameters"] = deeper
        out[name] = entry
    return out


def template_versions() -> list[dict[str, Any]]:
    return list(api_bodies.template_versions_body()["template_versions"])


#: the longest a ``resource_types?name=`` pattern may take on one type name (seconds)
NAME_FILTER_SECONDS = 0.05


def template_functions(version: str, with_condition_func: bool = False) -> list[dict[str, Any]]:
    """:raises errors.NotFound: unknown version."""
    return list(api_bodies.template_functions_body(version, with_condition_func)
                ["template_functions"])


def resource_types(ctx: RequestContext, *, name: str | None = None, version: str | None = None,
                   support_status: str | None = None,
                   with_description: bool = False) -> list[Any]:
    """Registered type names (Heat's list; ``name`` is a regular expression searched in each
    type name, as Heat's api-ref says).

    :raises errors.BadRequest: ``name`` is not a valid regular expression, or matching it takes
        longer than :data:`NAME_FILTER_SECONDS` (a pattern made to backtrack without end; Heat
        answers the first with a 500 and spins on the second).
    """
    try:
        pattern = regex.compile(name) if name else None
    except (regex.error, OverflowError) as exc:
        raise errors.BadRequest(f"Invalid resource type name filter {name!r}: {exc}") from None
    out: list[Any] = []
    for t in sorted({*registry.types(), *global_templates.ENTRIES}):
        if not ctx.is_admin and resource_policy.restricted(t):
            continue      # Heat's get_types keeps only the types the caller may use
        schema = _schema(t) or {}
        status = (schema.get("support_status") or {}).get("status", "SUPPORTED")
        if support_status and status != support_status:
            continue
        try:
            if pattern is not None and not pattern.search(t, timeout=NAME_FILTER_SECONDS):
                continue
        except TimeoutError:
            raise errors.BadRequest(f"Resource type name filter {name!r} takes too long to "
                                    "match.") from None
        out.append({"resource_type": t, "description": ""} if with_description else t)
    return out


def _global_template_schema(type_name: str) -> dict[str, Any] | None:
    """The schema of a template resource of Heat's global environment (``AWS::CloudWatch::
    Alarm``): its template's parameters as properties, its outputs and ``show`` as attributes,
    as Heat's ``resource_schema`` builds a TemplateResource's (Heat 27 answers a 500 when its
    ``/etc/heat/templates`` file is not installed; this answers the schema)."""
    url = global_templates.ENTRIES.get(type_name)
    if url is None:
        return None
    schema = template_resource_schema(templates.parse(global_templates.TEMPLATES[url], {}))
    attributes = {name: {"description": "", "type": "string"} for name in schema["outputs"]}
    attributes["show"] = {"description": "Detailed information about resource.", "type": "map"}
    return {"resource_type": type_name, "properties": schema["properties"],
            "attributes": attributes,
            "support_status": {"status": "SUPPORTED", "version": None, "message": None,
                               "previous_status": None}}


def _schema(type_name: str) -> dict[str, Any] | None:
    return registry.schema(type_name) or _global_template_schema(type_name)


def _schema_or_404(type_name: str) -> dict[str, Any]:
    """:raises errors.BadRequest: a HIDDEN type (Heat's NotSupported: "<type> is not
        supported.").
    :raises errors.NotFound: an unknown type."""
    schema = _schema(type_name)
    if schema is None and registry.get(type_name) is not None:
        raise errors.BadRequest(f"{type_name} is not supported.", heat_type="NotSupported")
    if schema is None:
        raise type_not_found(type_name)
    return schema


def type_not_found(type_name: str) -> errors.NotFound:
    """Heat's 404 ``ResourceTypeNotFound`` for ``type_name``."""
    return errors.NotFound("Resource Type", type_name, heat_type="ResourceTypeNotFound")


def resource_type_schema(ctx: RequestContext, type_name: str,
                         with_description: bool = False) -> dict[str, Any]:
    """Heat's ``GET /resource_types/{type}``: resource_type, properties, attributes,
    support_status (and description). :raises errors.NotFound:
    :raises errors.Forbidden: an admin-only type asked by another (Heat enforces its type
        policy first)."""
    resource_policy.enforce(ctx.is_admin, [type_name])
    schema = dict(_schema_or_404(type_name))
    schema["resource_type"] = type_name
    if with_description:
        schema.setdefault("description", "")
    return schema


def resource_type_template(ctx: RequestContext, type_name: str,
                           template_type: str = "cfn") -> dict[str, Any]:
    """A template exposing every property as a parameter and every attribute as an output, as
    Heat's ``GET /resource_types/{type}/template``. :raises errors.NotFound:
    :raises errors.Forbidden: as :func:`resource_type_schema`."""
    resource_policy.enforce(ctx.is_admin, [type_name])
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
