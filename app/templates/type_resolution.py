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
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlparse

from app import errors
from app.templates import global_templates, loader
from app.templates.environment import Environment
from app.templates.identity import Nesting
from app.templates.provider import template_resource_schema
from app.templates.registry import Registry
from app.templates.template import parse

TypeSchema = Callable[[str], "dict[str, Any] | None"]


class StackLike(Protocol):
    """What :func:`nested_environment` reads of a ``StackDefinition``."""

    @property
    def environment(self) -> Environment | None: ...
    @property
    def resources(self) -> Mapping[str, Any]: ...


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
    defaults of the matching parameters (so such a property is no longer required; the
    property has no default, as Heat's ``Schema.from_parameter``).

    :raises errors.ValidationError: not in ``files`` (Heat's fetch error) or not a template.
    """
    if not global_templates.has(files, key):
        scheme = urlparse(key).scheme
        raise errors.ValidationError(f'Could not fetch remote template "{key}": Invalid URL '
                                     f'scheme {scheme}', path=("resources", name, "type"),
                                     heat_type="StackValidationFailed")
    source = global_templates.provider(files, key)
    try:
        found = _text_schema(source) if isinstance(source, str) \
            and len(source) <= loader.CACHED_TEXT_MAX \
            else template_resource_schema(parse(source, files))
    except errors.StokerError as exc:
        raise _parse_failure(exc, key, name) from None
    schema = {"properties": {n: dict(p) for n, p in found["properties"].items()},
              "attributes": found["attributes"], "outputs": list(found["outputs"])}
    for pname in parameter_defaults or {}:
        prop = schema["properties"].get(pname)
        if prop is not None:
            schema["properties"][pname] = dict(prop, required=False)
    return schema


@functools.lru_cache(maxsize=loader.CACHED_TEXTS)
def _text_schema(text: str) -> dict[str, Any]:
    """:func:`.provider.template_resource_schema` of the provider template ``text``, kept:
    it depends on the text alone, and a group's members, or the requests of one project, use
    the same provider again (a text that does not parse is not kept: it raises each time).
    Callers copy what they change."""
    return template_resource_schema(parse(text))


def _parse_failure(exc: errors.StokerError, key: str, name: str) -> errors.StokerError:
    """A provider template that does not parse, as Heat's ``TemplateResource`` reports it: an
    unknown version is the child's own ``InvalidTemplateVersion``; an unknown section is
    found when the child stack is validated (``InvalidTemplateSection: resources.<name><<key>>:
    ...``); text that is not YAML is "Error parsing template <key> <why>"."""
    if exc.heat_type == "InvalidTemplateVersion":
        return exc
    where = ("resources", name, "type")
    if exc.message.startswith("The template section is invalid"):
        return errors.ValidationError(f"InvalidTemplateSection: resources.{name}<{key}>: "
                                      f"{exc.message}", path=where,
                                      heat_type="StackValidationFailed")
    if isinstance(exc, errors.BadRequest):
        why = exc.message.removeprefix("Template not in valid format: ")
        why = why.removeprefix("Error parsing template [root stack] ")
        return errors.ValidationError(f"Error parsing template {key} {why}", path=where,
                                      heat_type="StackValidationFailed")
    return errors.ValidationError(f"Failed to parse template {key} (resources.{name}): "
                                  f"{exc.message}", path=where, heat_type="StackValidationFailed")


def child_environment(env: Environment | None, name: str, key: str,
                      type_name: str) -> Environment:
    """The environment a provider template ``key`` is validated with as the child stack of
    resource ``name`` (type ``type_name``): the parent's ``parameter_defaults`` and its
    registry narrowed as Heat's ``get_child_environment``."""
    registry = Registry.from_mapping(env.resource_registry if env is not None else None)
    return Environment.from_mapping({
        "parameter_defaults": dict(env.parameter_defaults) if env is not None else {},
        "resource_registry": registry.child_mapping(name, key, type_name)})


def nesting_exceeded(name: str, key: str, nesting: Nesting) -> errors.StokerError | None:
    """Heat's ``RequestLimitExceeded`` "Request limit exceeded: Recursion depth exceeds N." when
    the stack at ``nesting`` may not have the child stack of resource ``name``
    (``StackResource._parse_nested_stack``); None when the child is allowed. The caller
    reports it as the child's failure (:func:`child_failure`)."""
    if not nesting.exhausted:
        return None
    return errors.RequestLimitExceeded(
        f"Recursion depth exceeds {nesting.max_depth}.",
        path=("resources", name, "type"))


def child_failure(exc: errors.StokerError, name: str, key: str) -> errors.ValidationError:
    """The child stack's validation error ``exc`` as the parent reports it, as Heat's
    ``StackResource.validate_nested_stack``: ``StackValidationFailed`` whose path gets
    ``resources.<name><<key>>`` in front of the child's own path. Heat's error label stays in
    front of everything: ``Property error``, or the class name of an error that was not a
    validation failure (``InvalidTemplateReference: resources.c<c.yaml>: ...``,
    ``RequestLimitExceeded: ...``), as ``StackValidationFailed(error=ex, path=...)`` does."""
    where = f"resources.{name}<{key}>"
    if "child_text" in exc.data:  # a grandchild's failure: its label stays in front
        label, message = exc.data["child_label"], exc.data["child_text"]
    else:
        label, message = None, exc.message
        if message.startswith("Property error: "):
            label, message = "Property error", message[len("Property error: "):]
        elif exc.heat_type not in ("StackValidationFailed", "ValidationError"):
            label = exc.heat_type
    if message.startswith(("resources.", "outputs.", "parameters.")):
        text = f"{where}.{message}"
    else:
        text = f"{where}: {message}"
    return errors.ValidationError(f"{label}: {text}" if label else text,
                                  path=("resources", name, "type"),
                                  heat_type="StackValidationFailed", child_label=label,
                                  child_text=text)


def resolve_types(types: Mapping[str, str], env: Environment | None,
                  files: Mapping[str, str], type_schema: TypeSchema | None
                  ) -> dict[str, ResolvedType]:
    """``{resource name: ResolvedType}`` for ``types`` (name -> type as written, template
    order). O(resources + distinct types x registry entries): a type is resolved once for all
    the resources the registry does not name (a group's members).

    The child stacks of template resources are validated by the caller
    (:func:`app.templates.stack.instantiate`), after each resource's own properties, as Heat's
    ``StackResource.validate`` does.

    :raises errors.ValidationError: "The Resource Type (X) could not be found." (path
        ``resources.<name>.type``), or a provider template error (see module doc).
    """
    registry = Registry.from_mapping(env.resource_registry if env is not None else None)
    schemas: dict[str, dict[str, Any] | None] = {}  # each type's schema, asked once

    def schema_of(type_name: str) -> dict[str, Any] | None:
        if type_name not in schemas:
            schemas[type_name] = type_schema(type_name) if type_schema is not None else None
        return schemas[type_name]

    def known(type_name: str) -> bool:
        return type_schema is None or schema_of(type_name) is not None

    def key(name: str, type_name: str) -> tuple[str, str | None]:
        # a type resolves alike for every resource the registry's ``resources`` does not name
        return type_name, name if name in registry.resources else None

    recorded: set[tuple[str, str | None]] = set()
    for name, type_name in types.items():  # Heat's first pass records what mappings matched
        if key(name, type_name) in recorded:
            continue
        recorded.add(key(name, type_name))
        try:
            registry.resolve(type_name, name, known=known, record=True)
        except errors.ValidationError:
            pass
    cache: dict[str, dict[str, Any]] = {}
    resolved: dict[tuple[str, str | None], Any] = {}
    built: dict[str, ResolvedType] = {}
    out: dict[str, ResolvedType] = {}
    for name, type_name in types.items():
        found = resolved.get(key(name, type_name))
        if found is None:
            try:
                found = registry.resolve(type_name, name, known=known)
            except errors.ValidationError as exc:
                exc.path = ("resources", name, "type")
                raise
            resolved[key(name, type_name)] = found
        if found.template is not None:
            if found.template not in cache:
                cache[found.template] = provider_schema(
                    files, found.template, name,
                    env.parameter_defaults if env is not None else None)
            out[name] = ResolvedType(found.effective_type, found.template,
                                     cache[found.template])
        else:  # one object for every resource of the type (a group's members)
            shared = built.get(found.effective_type)
            if shared is None:
                shared = built[found.effective_type] = ResolvedType(
                    found.effective_type, None, schema_of(found.effective_type))
            out[name] = shared
    return out


def nested_environment(stack: StackLike, name: str) -> dict[str, Any]:
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
