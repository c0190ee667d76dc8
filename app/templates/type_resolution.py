"""Resolving every resource's type at instantiation: registry, built-in schema, or template
resource (a provider template from the request's ``files`` map).

As Heat's stack validation: each resource (template order) asks the environment's registry for
its implementation (:mod:`.registry`, with Heat's recording side effect, so the outcome is the
one Heat's engine creates with); a built-in type gets its schema from the caller's
``type_schema``; a template resource gets the schema of its provider template
(:func:`.provider.template_resource_schema`: parameters are the properties, outputs the
attributes). A provider template missing from ``files`` is Heat's 'Could not fetch remote
template "x": Invalid URL scheme <scheme>' (only http/https could be fetched, and Stoker does not
fetch); one that does not parse reports the parse error with the resource's path.
"""
from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from app import errors
from app.templates.registry import Registry

if TYPE_CHECKING:
    from app.templates.environment import Environment
    from app.templates.stack import StackDefinition

TypeSchema = Callable[[str], "dict[str, Any] | None"]
#: Heat's ``max_nested_stack_depth`` default.
MAX_NESTED_DEPTH = 5
_depth = threading.local()


@dataclass(frozen=True)
class ResolvedType:
    """``effective_type``: the built-in type to instantiate (the type as written for a
    template resource); ``template``: the provider template's files-map key or None;
    ``schema``: the type schema (None when not checked)."""

    effective_type: str
    template: str | None
    schema: dict[str, Any] | None


def provider_schema(files: Mapping[str, str], key: str, name: str,
                    parameter_defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The type schema of provider template ``key`` used by resource ``name``. As Heat's
    ``generate_class_from_template``, the environment's ``parameter_defaults`` become the
    defaults of the matching parameters (so such a property is no longer required).

    :raises errors.ValidationError: not in ``files`` (Heat's fetch error) or not a template.
    """
    from app.templates.provider import template_resource_schema
    from app.templates.template import parse
    if key not in files:
        scheme = urlparse(key).scheme
        raise errors.ValidationError(f'Could not fetch remote template "{key}": Invalid URL '
                                     f'scheme {scheme}', path=("resources", name, "type"),
                                     heat_type="StackValidationFailed")
    try:
        tmpl = parse(files[key], files)
    except errors.StokerError as exc:
        raise errors.ValidationError(f"Failed to parse template {key} (resources.{name}): "
                                     f"{exc.message}", path=("resources", name, "type"),
                                     heat_type="StackValidationFailed") from None
    schema = template_resource_schema(tmpl)
    for pname, default in (parameter_defaults or {}).items():
        prop = schema["properties"].get(pname)
        if prop is not None:
            prop = schema["properties"][pname] = dict(prop, required=False)
            if prop["type"] in ("string", "number", "boolean"):
                prop["default"] = default
    return schema


def validate_child(files: Mapping[str, str], key: str, name: str, type_name: str,
                   env: Environment | None, registry: Registry,
                   type_schema: TypeSchema | None) -> None:
    """Validate provider template ``key`` as the child stack of resource ``name``, as Heat's
    ``StackResource.validate_nested_stack`` (``strict_validate=False``: parameters may lack
    values) with the child environment; nesting deeper than :data:`MAX_NESTED_DEPTH` is
    Heat's "Recursion depth exceeds 5.".

    :raises errors.ValidationError: ``resources.<name><<key>>.<child path>: <child message>``.
    """
    from app.templates.environment import Environment as Env
    from app.templates.stack import StackIdentity
    from app.templates.template import parse
    depth = getattr(_depth, "value", 0)
    where = f"resources.{name}<{key}>"
    if depth >= MAX_NESTED_DEPTH:
        raise errors.ValidationError(f"{where}: Recursion depth exceeds {MAX_NESTED_DEPTH}.",
                                     path=("resources", name, "type"),
                                     heat_type="StackValidationFailed")
    child_env = Env.from_mapping({
        "parameter_defaults": dict(env.parameter_defaults) if env is not None else {},
        "resource_registry": registry.child_mapping(name, key, type_name)})
    _depth.value = depth + 1
    try:
        parse(files[key], files).instantiate({}, child_env, StackIdentity(f"{name}-child"),
                                             type_schema, strict=False)
    except errors.StokerError as exc:
        message = exc.message
        head = "Property error: " if message.startswith("Property error: ") else ""
        rest = message[len(head):]
        if rest.startswith(("resources.", "outputs.", "parameters.")):
            text = f"{head}{where}.{rest}"
        else:
            text = f"{head}{where}: {rest}"
        raise errors.ValidationError(text, path=("resources", name, "type"),
                                     heat_type="StackValidationFailed") from None
    finally:
        _depth.value = depth


def resolve_types(types: Mapping[str, str], env: Environment | None,
                  files: Mapping[str, str], type_schema: TypeSchema | None
                  ) -> dict[str, ResolvedType]:
    """``{resource name: ResolvedType}`` for ``types`` (name -> type as written, template
    order). O(resources x registry entries).

    :raises errors.ValidationError: "The Resource Type (X) could not be found." (path
        ``resources.<name>.type``), or a provider template error (see module doc).
    """
    registry = Registry.from_mapping(env.resource_registry if env is not None else None)

    def known(type_name: str) -> bool:
        return type_schema is None or type_schema(type_name) is not None

    for name, type_name in types.items():  # Heat's first pass records what mappings matched
        try:
            registry.resolve(type_name, name, known=known, record=True)
        except errors.ValidationError:
            pass
    cache: dict[str, dict[str, Any]] = {}
    out: dict[str, ResolvedType] = {}
    for name, type_name in types.items():
        try:
            found = registry.resolve(type_name, name, known=known)
        except errors.ValidationError as exc:
            exc.path = ("resources", name, "type")
            raise
        if found.template is not None:
            if found.template not in cache:
                cache[found.template] = provider_schema(
                    files, found.template, name,
                    env.parameter_defaults if env is not None else None)
                validate_child(files, found.template, name, type_name, env,
                               Registry.from_mapping(env.resource_registry if env else None),
                               type_schema)
            out[name] = ResolvedType(found.effective_type, found.template,
                                     cache[found.template])
        else:
            schema = type_schema(found.effective_type) if type_schema is not None else None
            out[name] = ResolvedType(found.effective_type, None, schema)
    return out


def nested_environment(stack: StackDefinition, name: str) -> dict[str, Any]:
    """The environment mapping for the child stack of template resource ``name``, as Heat's
    ``get_child_environment``: the parent's ``parameter_defaults`` and ``event_sinks``, its
    registry without the entry that named this template and with ``resources`` narrowed to
    what matches ``name``; ``parameters`` is empty (the child's parameters are the resource's
    resolved properties, passed as the child's user parameters)."""
    env = stack.environment
    rdef = stack.resources[name]
    registry = Registry.from_mapping(env.resource_registry if env is not None else None)
    return {
        "parameters": {},
        "parameter_defaults": copy.deepcopy(dict(env.parameter_defaults)) if env else {},
        "resource_registry": registry.child_mapping(name, rdef.template, rdef.type),
        "event_sinks": copy.deepcopy(list(env.event_sinks)) if env else [],
    }
