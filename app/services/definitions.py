"""Parsed stack definitions, cached per process.

A task needs its resource's template snippet and the dependency edges around it. Parsing and
instantiating the template is O(template), so it is done once per (stack, raw template) in each
worker process and kept in a small LRU cache; a task's own cost stays O(degree) (DESIGN.md,
invariant 5).
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from app import clients, errors, templates
from app.engine import graph
from app.resource_types import registry
from app.templates import properties as tproperties
from app.templates.functions.base import contains_unknown


@dataclass(frozen=True)
class Loaded:
    """A stack's instantiated definition and its graph, ready for tasks."""
    definition: Any                      # app.templates StackDefinition
    requires: dict[str, frozenset[str]]  # name -> names it requires (enabled resources only)
    required_by: dict[str, set[str]]     # name -> names that require it

    @classmethod
    def of(cls, definition: Any) -> Loaded:
        requires = {n: frozenset(d) for n, d in definition.dependencies.items()}
        return cls(definition, requires, graph.invert(requires))


_cache: OrderedDict[tuple[str, int], Loaded] = OrderedDict()
_lock = threading.Lock()
MAX_CACHED = 64


def identity(stack_name: str, stack_id: str, project_id: str) -> Any:
    return templates.StackIdentity(stack_name=stack_name, stack_id=stack_id, project_id=project_id)


def parse_and_instantiate(template: Any, files: dict[str, Any] | None,
                          environment: Any, params: dict[str, Any] | None, ident: Any,
                          facade: dict[str, Any] | None = None, *, strict: bool = True,
                          max_size: int | None = None, cloud: bool = False
                          ) -> tuple[Any, Any, Any]:
    """Parse, instantiate and check a template once: ``(Template, StackDefinition,
    Environment)``. ``environment``: a mapping or an ``Environment``; ``facade``: a nested
    stack's parent resource (metadata, deletion_policy, update_policy) for ``resource_facade``;
    ``strict=False``: Heat's ``/validate`` mode (parameter values not needed); ``cloud``: also
    check the cloud-backed custom constraints (``nova.flavor``...) against the cloud, as Heat's
    stack validation at create, update and preview does.
    Raises the template package's errors."""
    tmpl = templates.parse(template, files=files or {}, max_size=max_size)
    env = environment if isinstance(environment, templates.Environment) \
        else templates.Environment.from_mapping(environment or {})
    parent = templates.ParentFacade(**facade) if facade else None
    definition = tmpl.instantiate(params or {}, env, ident, type_schema, parent=parent,
                                  strict=strict)
    check_plugins(definition, ident, env, files or {}, cloud=cloud)
    return tmpl, definition, env


def instantiate(template: Any, files: dict[str, Any] | None, environment: dict[str, Any] | None,
                params: dict[str, Any] | None, ident: Any,
                facade: dict[str, Any] | None = None) -> Any:
    """:func:`parse_and_instantiate`'s StackDefinition."""
    return parse_and_instantiate(template, files, environment, params, ident, facade)[1]


def type_schema(type_name: str) -> dict[str, Any] | None:
    """The registry's schema for the templates' validation; a type that accepts any attribute
    (a group's member attributes, OS::Heat::None) reports ``attributes: None`` (dynamic). What
    Heat accepts without listing it is added: hidden deprecated properties and attributes, and
    the plugin's ``unlisted_properties``."""
    schema = registry.schema(type_name)
    cls = registry.get(type_name)
    if schema is not None and cls is not None and cls.accepts_any_attributes:
        schema["attributes"] = None
    if schema is not None and cls is not None:
        _add_hidden(schema, getattr(cls, "hidden_properties", None) or {})
        for name, entry in (getattr(cls, "unlisted_properties", None) or {}).items():
            schema["properties"].setdefault(name, dict(entry))
        if schema.get("attributes") is not None:
            for name, entry in (getattr(cls, "hidden_attributes", None) or {}).items():
                schema["attributes"].setdefault(name, dict(entry))
    return schema


def _add_hidden(schema: dict[str, Any], hidden: dict[str, str]) -> None:
    """Heat's hidden deprecated properties (``network_id`` for ``network`` ...) accepted by the
    template layer as Heat accepts them: with the visible property's schema, neither of the two
    required here (the plugin's ``validation_schema``, which sees the values, checks that one of
    them is given). ``GET /resource_types`` still shows Heat's visible schema only."""
    props = schema.get("properties")
    if not isinstance(props, dict):
        return
    for name, visible in hidden.items():
        if visible in props and name not in props:
            props[name] = {**props[visible], "required": False}
            props[visible] = {**props[visible], "required": False}


def check_plugins(definition: Any, ident: Any, env: Any = None,
                  files: dict[str, Any] | None = None, *, cloud: bool = False) -> None:
    """Each plugin's own static checks (Heat's ``Resource.validate`` at stack validation) for
    the resources whose properties are all known before anything is created; with ``cloud``,
    the cloud-backed custom constraints too (one lookup per distinct value, no retries; a cloud
    that cannot be reached skips them: the engine checks again when it creates the resource).

    :raises errors.ValidationError: with the plugin's message (Heat's ``StackValidationFailed``),
        e.g. ``Property error: resources.srv.properties.flavor: Error validating value 'x': ...``.
    """
    lookups: dict[Any, Any] = {}
    factory = clients.for_validation(ident) if cloud else None
    if factory is not None and not _check_parameters(definition, factory, lookups):
        factory = None  # the cloud cannot be reached: the engine checks at create
    for name, rdef in definition.resources.items():
        cls = registry.get(getattr(rdef, "implementation", rdef.type))
        if cls is None:
            continue
        props = definition.static_properties(name)
        if contains_unknown(props):
            continue
        try:
            schema = cls.validation_schema(props)
            if schema is not None:
                props = tproperties.validate(schema, props, ("resources", name, "properties"))
            plugin = cls(name, props, stack=ident)
            if factory is not None and getattr(cls, "cloud_validation", False):
                plugin.clients, plugin.constraint_cache = factory, lookups
            try:
                plugin.validate()
            except errors.CloudError:  # cannot ask the cloud now: the engine will, at create
                factory = None
            if getattr(cls, "nested_stack", False) and env is not None:
                _check_member_type(name, props, env)
        except errors.StokerError:
            raise
        except Exception as exc:
            raise errors.ValidationError(str(exc), path=("resources", name)) from exc


def _check_parameters(definition: Any, factory: Any, lookups: dict[Any, Any]) -> bool:
    """Heat's parameter validation against the cloud: a value (each item of a list) that a
    cloud-backed ``custom_constraint`` (``nova.flavor``...) rejects.

    :returns: False when the cloud could not be asked (nothing more is asked of it).
    :raises errors.ValidationError: ``Parameter 'p' is invalid: Error validating value 'x':
        <the cloud's reason>``.
    """
    from app.clients import constraints
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


def load(stack_id: str, raw_template_id: int, stack_name: str, tenant: str) -> Loaded:
    """The cached :class:`Loaded` for a stack; on a miss the raw template, files, environment
    and parameters are read from the database."""
    key = (stack_id, raw_template_id)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    from app.models import RawTemplate, Stack, read_session
    with read_session() as s:
        raw = s.get(RawTemplate, raw_template_id)
        st = s.get(Stack, stack_id)
        assert raw is not None and st is not None
        loaded = of_raw(raw, st.parameters, identity(stack_name, stack_id, tenant),
                        st.nested_info)
    seed(key, loaded)
    return loaded


def of_raw(raw: Any, params: dict[str, Any] | None, ident: Any,
           nested_info: dict[str, Any] | None) -> Loaded:
    """The :class:`Loaded` of a stored raw template (its files and environment) with
    ``params``; ``nested_info``: a nested stack's link to its parent resource (its facade)."""
    env = {k: v for k, v in (raw.environment or {}).items() if k != "parameters"}
    return Loaded.of(instantiate(raw.template, raw.files, env, params, ident,
                                 (nested_info or {}).get("facade")))


def _check_member_type(name: str, props: dict[str, Any], env: Any) -> None:
    """A group's member type must exist (a built-in, a registry mapping or a template file).

    :raises errors.ValidationError: Heat's "The Resource Type (X) could not be found."
    """
    from app import config
    limit = config.get().max_resources_per_stack
    if int(props.get("count", 1) or 0) > limit:
        raise errors.RequestLimitExceeded(
            f"You have reached the maximum resources per stack, {limit}. "
            f"Please delete some resources.", path=("resources", name, "properties", "count"))
    rdef = props.get("resource_def") or {}
    member = rdef.get("type")
    if not isinstance(member, str):
        return
    effective, template_key = env.resolve_type(None, member,
                                               known=lambda t: registry.get(t) is not None)
    cls = registry.get(effective)
    if template_key is None and cls is None:
        raise errors.ValidationError(f"The Resource Type ({member}) could not be found.",
                                     path=("resources", name, "properties", "resource_def"))
    if cls is not None and not getattr(cls, "nested_stack", False):
        # one member, as Heat validates the group's definition up front
        from app.services.nested import member_props
        values = member_props(props, "0")
        schema = cls.validation_schema(values)
        path = ("resources", name, "properties", "resource_def", "properties")
        if schema is not None:
            values = tproperties.validate(schema, values, path)
        cls(f"{name}-0", values).validate()


def seed(key: tuple[str, int], loaded: Loaded) -> None:
    """Put an already-instantiated definition in the cache (the API process at create)."""
    with _lock:
        _cache[key] = loaded
        _cache.move_to_end(key)
        while len(_cache) > MAX_CACHED:
            _cache.popitem(last=False)


def forget(stack_id: str) -> None:
    """Drop a stack's cached definitions (after delete)."""
    with _lock:
        for k in [k for k in _cache if k[0] == stack_id]:
            del _cache[k]
