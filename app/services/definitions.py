"""Checking a template request: parse, instantiate and run every plugin's own checks.

Used by the API's use cases (create, update, preview, validate) before anything is written; the
runtime's cache of stored definitions is :mod:`app.convergence.store.definitions`.
"""
from __future__ import annotations

import json
import logging
from typing import Any

from app import auth, config, errors, templates
from app.clients import constraints
from app.convergence.nested.groups import RESOURCE_LIMIT, member_props, over_resource_limit
from app.convergence.store.definitions import type_schema
from app.resource_types import registry
from app.templates.functions.base import contains_unknown

log = logging.getLogger(__name__)


def parse_and_instantiate(template: Any, files: dict[str, Any] | None,
                          environment: Any, params: dict[str, Any] | None, ident: Any,
                          facade: dict[str, Any] | None = None, *, strict: bool = True,
                          max_size: int | None = None, cloud: bool = False,
                          trust_of: str | None = None,
                          enforce_on: Any = None) -> tuple[Any, Any, Any]:
    """Parse, instantiate and check a template once: ``(Template, StackDefinition,
    Environment)``. ``environment``: a mapping or an ``Environment``; ``facade``: a nested
    stack's parent resource (metadata, deletion_policy, update_policy) for ``resource_facade``;
    ``strict=False``: Heat's ``/validate`` mode (parameter values not needed); ``cloud``: also
    check the cloud-backed custom constraints (``nova.flavor``...) against the cloud, as Heat's
    stack validation at create, update and preview does (``trust_of``: the stack whose
    Keystone trust carries those lookups, a nested stack's parent before the nested stack
    exists: :func:`app.auth.clients_for`); ``enforce_on``: the caller's RequestContext, whose
    right to use each resource type is checked once the types are known, before any property
    check or cloud lookup, as Heat enforces its ``resource_types:*`` policies before validating
    (:func:`app.auth.check_resource_types`).
    Raises the template package's errors, and ``errors.Forbidden``."""
    tmpl = templates.parse(template, files=files or {}, max_size=max_size)
    env = environment if isinstance(environment, templates.Environment) \
        else templates.Environment.from_mapping(environment or {})
    parent = templates.ParentFacade(**facade) if facade else None
    nesting = templates.Nesting(max_depth=config.get().max_nested_stack_depth)
    check_types = None if enforce_on is None else \
        (lambda types: auth.check_resource_types(enforce_on, types))
    definition = templates.instantiate(tmpl, params or {}, env, ident, type_schema,
                                       parent=parent, strict=strict, nesting=nesting,
                                       check_types=check_types)
    check_plugins(definition, ident, env, files or {}, cloud=cloud, trust_of=trust_of)
    return tmpl, definition, env


def instantiate(template: Any, files: dict[str, Any] | None, environment: dict[str, Any] | None,
                params: dict[str, Any] | None, ident: Any,
                facade: dict[str, Any] | None = None) -> Any:
    """:func:`parse_and_instantiate`'s StackDefinition."""
    return parse_and_instantiate(template, files, environment, params, ident, facade)[1]


def check_plugins(definition: Any, ident: Any, env: Any = None,
                  files: dict[str, Any] | None = None, *, cloud: bool = False,
                  trust_of: str | None = None) -> None:
    """Each plugin's own static checks (Heat's ``Resource.validate`` at stack validation) for
    the resources whose properties are all known before anything is created; with ``cloud``,
    the cloud-backed custom constraints too (one lookup per distinct value, no retries; a cloud
    that cannot be reached skips them: the engine checks again when it creates the resource).

    :raises errors.ValidationError: with the plugin's message (Heat's ``StackValidationFailed``),
        e.g. ``Property error: resources.srv.properties.flavor: Error validating value 'x': ...``.
    """
    lookups: dict[Any, Any] = {}
    factory = auth.clients_for(ident, validation=True, trust_of=trust_of) if cloud else None
    if factory is not None and not _check_parameters(definition, factory, lookups):
        factory = None  # the cloud cannot be reached: the engine checks at create
    for name, rdef in definition.resources.items():
        cls = registry.get(getattr(rdef, "implementation", rdef.type))
        if cls is None:
            continue
        stack_check = getattr(cls, "validate_in_stack", None)
        if stack_check is not None:  # a check that reads other resources' definitions
            stack_check(name, rdef, lambda other: _static_or_none(definition, other))
        props = definition.static_properties(name)
        if contains_unknown(props):
            if factory is not None and getattr(cls, "cloud_validation", False):
                factory = _check_known(cls, name, props, ident, factory, lookups)
            continue
        try:
            props = cls.validated_properties(props, ("resources", name, "properties"))
            plugin = cls(name, props, stack=ident)
            if hasattr(cls, "stack_resource_names"):  # OS::Heat::AccessPolicy
                plugin.stack_resource_names = frozenset(definition.resources)
            if factory is not None and getattr(cls, "cloud_validation", False):
                plugin.clients, plugin.constraint_cache = factory, lookups
            try:
                plugin.validate()
            except errors.CloudError:  # cannot ask the cloud now: the engine will, at create
                factory = None
            if getattr(cls, "nested_stack", False) and env is not None:
                _check_member_type(name, props, env, len(definition.resources))
        except errors.StokerError:
            raise
        except Exception as exc:
            raise errors.ValidationError(str(exc), path=("resources", name)) from exc


def _check_known(cls: Any, name: str, props: dict[str, Any], ident: Any, factory: Any,
                 lookups: dict[Any, Any]) -> Any:
    """The cloud-backed custom constraints of a resource's properties whose values are known
    when others wait for the stack's own resources (a server's flavor and image beside a port
    of the stack): Heat's stack validation checks each value it knows, so a flavor that does
    not exist is a 400 before anything is created, not a failed stack.

    :returns: ``factory``, or None when the cloud could not be asked (the engine checks at
        create). :raises errors.ValidationError: as :func:`check_plugins`."""
    known = {k: v for k, v in props.items() if not contains_unknown(v)}
    try:
        plugin = cls(name, known, stack=ident)
        plugin.clients, plugin.constraint_cache = factory, lookups
        plugin.check_constraints()
    except errors.CloudError:
        return None
    except errors.StokerError:
        raise
    except Exception:  # a value the plugin cannot read yet: the engine checks it at create
        log.debug("constraints of %s left to the engine", name, exc_info=True)
    return factory


def _static_or_none(definition: Any, name: str) -> tuple[str, dict[str, Any]] | None:
    """``(built-in type, properties known before anything is created)`` of resource ``name``,
    None when the stack has no such resource."""
    rdef = definition.resources.get(name)
    if rdef is None:
        return None
    return getattr(rdef, "implementation", rdef.type), definition.static_properties(name)


def _check_parameters(definition: Any, factory: Any, lookups: dict[Any, Any]) -> bool:
    """Heat's parameter validation against the cloud: a value (each item of a list) that a
    cloud-backed ``custom_constraint`` (``nova.flavor``...) rejects.

    :returns: False when the cloud could not be asked (nothing more is asked of it).
    :raises errors.ValidationError: ``Parameter 'p' is invalid: Error validating value 'x':
        <the cloud's reason>``.
    """
    params = definition.params
    for pname, schema in params.schemas.items():
        names = [c["custom_constraint"] for c in schema.constraints
                 if isinstance(c, dict) and constraints.is_cloud_backed(
                     str(c.get("custom_constraint")))]
        value = params.values.get(pname)
        if not names or value is None or contains_unknown(value):
            continue
        for item in value if isinstance(value, list) else [value]:
            for cname in names:
                key = (cname, json.dumps(item, sort_keys=True, default=str))
                if key not in lookups:
                    try:
                        lookups[key] = constraints.check(factory.cloud(), cname, item)
                    except errors.CloudError:
                        return False
                if lookups[key] is not None:
                    raise errors.ValidationError(
                        f"Parameter '{pname}' is invalid: Error validating value '{item}': "
                        f"{lookups[key]}")
    return True


def _check_member_type(name: str, props: dict[str, Any], env: Any, others: int) -> None:
    """A group's member type must exist (a built-in, a registry mapping or a template file);
    its ``count`` members and the ``others`` resources of its stack must fit
    ``max_resources_per_stack`` (what Heat's ``_validate_nested_resources`` counts at least
    when it makes the group's nested stack, refused here before anything is created).

    :raises errors.ValidationError: Heat's "The Resource Type (X) could not be found."
    :raises errors.RequestLimitExceeded: Heat's "Maximum resources per stack exceeded."
    """
    if "count" in props and over_resource_limit(int(props["count"] or 0) + others):
        raise errors.RequestLimitExceeded(RESOURCE_LIMIT,
                                          path=("resources", name, "properties", "count"))
    key = "resource_def" if "resource_def" in props else "resource"  # an AutoScalingGroup's
    rdef = props.get(key) or {}
    member = rdef.get("type")
    if not isinstance(member, str):
        return
    # an autoscaling group validates a one-member nested stack (Heat's
    # AutoScalingResourceGroup.validate -> _validate_nested_resources): the error is that
    # stack's, under "resources.<group><nested_stack>"; a ResourceGroup resolves the type
    # itself (ResourceGroup.validate), so its message has no path
    where = f"resources.{name}<nested_stack>: " if key == "resource" else ""
    unknown = errors.ValidationError(f"{where}The Resource Type ({member}) could not be found.",
                                     path=("resources", name, "properties", key),
                                     heat_type="StackValidationFailed")
    try:
        effective, template_key = env.resolve_type(None, member,
                                                   known=lambda t: registry.get(t) is not None)
    except errors.ValidationError:
        raise unknown from None
    cls = registry.get(effective)
    if template_key is None and cls is None:
        raise unknown
    if cls is not None and not getattr(cls, "nested_stack", False):
        # one member, as Heat validates the group's definition up front
        values = member_props(props, "0") if key == "resource_def" \
            else dict(rdef.get("properties") or {})
        # a ResourceGroup validates a one-member child template, and Heat's errors name that
        # member in the child (resource_group.py validate -> _validate_nested_resources)
        path = ("resources", f"{name}<nested_stack>", "resources[0]", "properties") \
            if key == "resource_def" else ("resources", name, "properties", key, "properties")
        values = cls.validated_properties(values, path)
        cls(f"{name}-0", values).validate()
