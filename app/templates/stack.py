"""StackDefinition: a template bound to parameters and conditions, validated statically.

``instantiate`` (called by :meth:`Template.instantiate`) follows Heat's stack validation:
parameters (user values; environment ``parameters`` win over them, then ``parameter_defaults``,
then template defaults), parameter_groups, conditions, then each resource whose condition holds:
its type (``type_schema``), its references (an unknown or condition-removed resource is
``InvalidTemplateReference`` "(in r.Properties.p)"), the values of its properties that are known
now (``Property error: resources.r.properties.p: ...``), its deletion policy; then dependency
cycles and the outputs' references. The result resolves properties and outputs later against
the engine's :class:`~.scope.ResolveContext`.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import global_templates, type_resolution
from app.templates import static_checks as checks
from app.templates.conditions import Conditions
from app.templates.dependencies import (
    check_acyclic,
    function_references,
    references,
    topological_order,
)
from app.templates.environment import Environment
from app.templates.functions.base import (
    ABSENT,
    UNKNOWN,
    contains_unknown,
    expand_macros,
    resolve,
)
from app.templates.identity import Nesting, StackIdentity
from app.templates.parameters import Parameters, resolve_values, validate_groups
from app.templates.parsed import Template
from app.templates.resources import (
    RawResource,
    ResourceDefinition,
    normalise_policy,
    normalise_replace_policy,
)
from app.templates.scope import (
    ParentFacade,
    ResolveContext,
    RuntimeResolver,
    Scope,
    StaticResolver,
)
from app.templates.static_checks import Bound
from app.templates.template import parse
from app.templates.versions import HotVersion

__all__ = ["LAX_TYPES", "Nesting", "StackDefinition", "StackIdentity", "instantiate"]

TypeSchema = Callable[[str], "dict[str, Any] | None"]
#: Types that accept any property and attribute (Heat's OS::Heat::None placeholder, and the
#: HIDDEN types Heat 27 turned into such placeholders when it removed them).
LAX_TYPES = frozenset({"OS::Heat::None", "OS::Designate::Domain", "OS::Designate::Record",
                       "OS::Magnum::Bay"})


@dataclass
class StackDefinition:
    """An instantiated stack (see docs/contracts.md for the contract)."""

    template: Template
    identity: StackIdentity
    params: Parameters
    resources: dict[str, ResourceDefinition]
    dependencies: dict[str, frozenset[str]]
    condition_values: dict[str, bool]
    scope: Scope
    _bound: dict[str, Bound]
    _outputs: dict[str, tuple[bool, Any, Any]]
    warnings: list[str] = field(default_factory=list)
    _attr_index: dict[str, set[tuple[Any, ...]]] | None = None
    _output_refs: set[str] | None = None
    environment: Environment | None = None

    def nested_environment(self, name: str) -> dict[str, Any]:
        """The environment mapping for template resource ``name``'s child stack (parent's
        registry and parameter_defaults, as Heat); see :mod:`.type_resolution`."""
        return type_resolution.nested_environment(self, name)

    # -- queries -----------------------------------------------------------------------------
    def parameters_for_show(self) -> dict[str, str]:
        """Heat's stack-show ``parameters`` (strings; hidden as ``******``; pseudo-params)."""
        return self.params.for_show()

    def order(self) -> list[str]:
        """Resource names, requirements first (template order breaks ties)."""
        return topological_order(self.dependencies)

    def type_schema_of(self, name: str) -> dict[str, Any] | None:
        """The schema ``type_schema`` gave for resource ``name`` (None if not checked)."""
        return self._bound[name].schema

    def _all_refs(self) -> list[tuple[str, str, tuple[Any, ...] | None]]:
        out: list[tuple[str, str, tuple[Any, ...] | None]] = []
        for owner, bound in self._bound.items():
            for fns in (bound.property_functions, bound.metadata_functions):
                for _, name, attr, _ in function_references(fns):
                    out.append((owner, name, attr))
        for key, (enabled, tree, _) in self._outputs.items():
            if enabled:
                for name, attr, _ in references(tree):
                    out.append(("outputs." + key, name, attr))
        return out

    def _index(self) -> None:
        attrs: dict[str, set[tuple[Any, ...]]] = {}
        outputs: set[str] = set()
        for owner, ref, attr in self._all_refs():
            if attr is not None:
                attrs.setdefault(ref, set()).add(attr)
            if owner.startswith("outputs.") and ref in self.resources:
                outputs.add(ref)
        self._attr_index, self._output_refs = attrs, outputs

    def referenced_attributes(self, name: str) -> set[tuple[Any, ...]]:
        """Attribute paths of ``name`` that other resources or outputs reference; ``()`` stands
        for "all attributes" (get_attr without an attribute, or a computed attribute name).
        O(1) after a first O(stack) call."""
        if self._attr_index is None:
            self._index()
        assert self._attr_index is not None
        return set(self._attr_index.get(name, ()))

    def output_enabled(self, key: str) -> bool:
        """Whether output ``key`` exists and its condition (if any) is true."""
        return key in self._outputs and self._outputs[key][0]

    def known_output(self, key: str) -> Any:
        """Output ``key``'s value as known before any resource exists: UNKNOWN when it
        depends on a resource or fails to resolve, None when disabled."""
        enabled, tree, _ = self._outputs[key]
        if not enabled:
            return None
        try:
            value = resolve(tree, StaticResolver(self.scope))
        except errors.StokerError:
            return UNKNOWN
        return UNKNOWN if contains_unknown(value) else value

    def output_references(self, key: str) -> set[str]:
        """Names of the resources output ``key`` refers to (get_resource, get_attr, Ref,
        Fn::GetAtt); empty when it is disabled or unknown. O(size of the output)."""
        enabled, tree, _ = self._outputs.get(key, (False, None, None))
        if not enabled:
            return set()
        return {name for name, _, _ in references(tree) if name in self.resources}

    def output_resources(self) -> set[str]:
        """Names of (enabled) resources that outputs reference."""
        if self._output_refs is None:
            self._index()
        assert self._output_refs is not None
        return set(self._output_refs)

    # -- resolution --------------------------------------------------------------------------
    def resolve_properties(self, name: str, ctx: ResolveContext) -> dict[str, Any]:
        """Resolve resource ``name``'s properties with the engine's context.

        :returns: ``{prop: value}``; a property whose value is an omitted ``if`` branch is
            left out (not given: its default applies); one that resolves to null is kept as
            ``None`` (given: Heat's ``Properties._resolve_user_value`` counts it, and
            :func:`.properties.validate` makes it the type's zero value or default).
        :raises errors.TemplateError: a function failed (``FunctionError`` with its path).
        """
        value = resolve(self._bound[name].properties, RuntimeResolver(self.scope, ctx))
        return {k: v for k, v in (value or {}).items() if v is not ABSENT}

    def static_properties(self, name: str) -> dict[str, Any]:
        """Properties of ``name`` as known at validation time: values that depend on other
        resources are :data:`~.functions.base.UNKNOWN` (for plugins' own static checks); nulls
        kept and omitted ``if`` branches left out, as :meth:`resolve_properties`."""
        static = StaticResolver(self.scope)
        value = resolve(self._bound[name].properties, static)
        return {k: v for k, v in (value or {}).items() if v is not ABSENT}

    def resolve_metadata(self, name: str, ctx: ResolveContext) -> Any:
        """Resolve resource ``name``'s metadata. :raises errors.TemplateError:"""
        return resolve(self._bound[name].metadata, RuntimeResolver(self.scope, ctx))

    def resolve_outputs(self, ctx: ResolveContext) -> list[dict[str, Any]]:
        """Resolve every output: ``[{"output_key", "description", "output_value"
        [, "output_error"]}]`` in template order. A failing function gives a null value and
        ``output_error`` (Heat's message); an output whose condition is false is null."""
        out = []
        resolver = RuntimeResolver(self.scope, ctx)
        for key, (enabled, tree, description) in self._outputs.items():
            item: dict[str, Any] = {"output_key": key, "description": description or "No "
                                    "description given", "output_value": None}
            if enabled:
                try:
                    value = resolve(tree, resolver)
                    item["output_value"] = None if value is ABSENT else value
                except errors.StokerError as exc:
                    item["output_error"] = getattr(exc, "raw", exc.message)
            out.append(item)
        return out


def _pseudo(identity: StackIdentity) -> dict[str, Any]:
    return {"OS::stack_name": identity.stack_name, "OS::stack_id": identity.stack_id,
            "OS::project_id": identity.project_id}


def instantiate(tmpl: Template, params: Mapping[str, Any] | None = None,
                env: Environment | None = None, identity: StackIdentity | None = None,
                type_schema: TypeSchema | None = None, *, nesting: Nesting,
                parent: ParentFacade | None = None, strict: bool = True,
                check_types: Callable[[list[str]], None] | None = None,
                validate_children: bool = True) -> StackDefinition:
    """Bind ``tmpl`` to parameters and conditions and validate it statically (see the module
    doc); errors carry the YAML line of their path where known.

    :param params: user parameter values; ``env``: the merged environment.
    :param type_schema: ``type name -> schema`` (None: types are not checked).
    :param nesting: this stack's depth and Heat's ``max_nested_stack_depth``; each template
        resource's child stack is validated one level deeper.
    :param strict: False is Heat's ``POST /validate`` mode (``strict_validate=False``): no
        parameter values needed or checked, unknown conditions true, properties by name only.
    :param check_types: called with the active resources' implementation types before any
        property is checked (Heat's ``resource_types:*`` policies); what it raises propagates.
    :param validate_children: False for ``POST /validate`` (``validate_res_tmpl_only``): a
        template resource's file is parsed, its own resources are not validated.
    :raises errors.TemplateError: (and subclasses)."""
    try:
        return _instantiate(tmpl, params, env, identity, type_schema, nesting=nesting,
                            parent=parent, strict=strict, check_types=check_types,
                            validate_children=validate_children)
    except errors.TemplateError as exc:
        raise tmpl.locate(exc) from None


def all_errors(tmpl: Template, params: Mapping[str, Any] | None = None,
               env: Environment | None = None, identity: StackIdentity | None = None,
               type_schema: TypeSchema | None = None, *, nesting: Nesting,
               strict: bool = True, validate_children: bool = True) -> list[errors.TemplateError]:
    """Every error :func:`instantiate` can find in one pass, each with its path and line:
    parameters, then each resource's type, references, attributes, policies and properties
    (every property, not the first), its child template, cycles, then each output. The first
    is :func:`instantiate`'s error in most templates; an error that makes the rest
    meaningless (a condition that cannot be evaluated) ends the list. ``[]``: valid."""
    found: list[errors.TemplateError] = []
    try:
        _instantiate(tmpl, params, env, identity, type_schema, nesting=nesting, parent=None,
                     strict=strict, validate_children=validate_children, found=found)
    except errors.TemplateError as exc:
        found.append(exc)
    return [tmpl.locate(exc) for exc in found]


def _instantiate(tmpl: Template, params: Mapping[str, Any] | None, env: Environment | None,
                 identity: StackIdentity | None, type_schema: TypeSchema | None, *,
                 nesting: Nesting, parent: ParentFacade | None, strict: bool,
                 check_types: Callable[[list[str]], None] | None = None,
                 validate_children: bool = True,
                 found: list[errors.TemplateError] | None = None) -> StackDefinition:
    """:func:`instantiate`; with ``found``, each step's error is appended there and the next
    step runs (a value the failed step would give takes a neutral stand-in)."""
    def attempt(fn: Callable[..., Any], *args: Any, default: Any = None) -> Any:
        if found is None:
            return fn(*args)
        return checks.attempt(found, fn, *args, default=default)

    identity = identity or StackIdentity()
    user = dict(params or {})
    defaults: dict[str, Any] = {}
    if env is not None:
        user.update(env.parameters)
        defaults = {k: v for k, v in env.parameter_defaults.items() if k in tmpl.parameters}
    pseudo = tmpl.pseudo_parameters(identity)
    pseudo = _pseudo(identity) if pseudo is None else pseudo
    values = resolve_values(tmpl.parameters, user, defaults, pseudo, strict=strict) \
        if found is None else checks.parameters(found, tmpl.parameters, user, defaults, pseudo,
                                                strict)
    attempt(validate_groups, tmpl.parameter_groups, tmpl.parameters)

    scope = Scope(params=values, files=tmpl.files, active=frozenset(), parent=parent)
    conds = Conditions(tmpl.conditions, lambda c: StaticResolver(scope), lenient=not strict)
    scope.conditions = conds
    condition_values = conds.evaluate_all()
    static = StaticResolver(scope)

    active: dict[str, RawResource] = {}
    for name, raw in tmpl.resources.items():
        if raw.has_condition and not conds.value(raw.condition, ("resources", name, "condition")):
            continue
        active[name] = raw
    scope.active = frozenset(active)

    kinds = checks.resolve_types({n: r.type for n, r in active.items()}, env, tmpl.files,
                                 type_schema, found)
    if check_types is not None:
        check_types([kinds[n].effective_type or r.type for n, r in active.items()])
    # a plain resource (no function, no depends_on: RawResource.plain) instantiates alike
    # under any name: those sharing one parsed snippet and resolved type share what the first
    # of them gave (its Bound, requirements and definition, renamed), its checks not run again
    first: dict[tuple[int, str, int], str] = {}
    same: dict[str, str] = {}   # name -> the first resource instantiated the same way
    bound: dict[str, Bound] = {}
    for name, raw in active.items():
        if raw.plain and found is None and kinds[name].template is None:
            share = (id(raw.snippet), kinds[name].effective_type, id(kinds[name].schema))
            if share in first:
                same[name] = first[share]
                bound[name] = bound[first[share]]
                continue
            first[share] = name
        schema = kinds[name].schema
        if kinds[name].effective_type in LAX_TYPES:
            schema = None
        bound[name] = Bound(raw, expand_macros(raw.properties, static),
                            expand_macros(raw.metadata, static), schema)

    definitions: dict[str, ResourceDefinition] = {}
    graph: dict[str, frozenset[str]] = {}
    children: set[str] = set()
    for name, b in bound.items():
        if name in same:
            like = definitions[same[name]]
            graph[name] = graph[like.name]
            definitions[name] = like.renamed(name)
            continue
        graph[name] = attempt(checks.requirements, tmpl, b, values, scope, default=frozenset())
        if b.property_functions:  # both look at functions only
            attempt(checks.check_attributes, b.property_functions, bound, type_schema)
            attempt(checks.check_attr_paths, b.property_functions, values)
        policy = "Delete" if b.raw.deletion_policy is None else \
            attempt(_deletion_policy, b.raw.deletion_policy, static, tmpl.hot, name)
        checks.check_static_properties(b, static, strict, found)
        policy_value = attempt(_resolved, b.raw.update_policy, static)
        if type_schema is not None and kinds[name].effective_type not in LAX_TYPES \
                and policy_value is not None:
            attempt(checks.check_update_policy, tmpl, name, kinds[name], policy_value)
        key = kinds[name].template
        # without validate_children (POST /validate), Heat only parses the provider template:
        # resolve_types did, for its schema (a template that does not parse fails there)
        if key is not None and key not in children and validate_children:
            children.add(key)
            attempt(_validate_child, tmpl.files, key, name, b.raw.type, env, type_schema,
                    nesting, _known_properties(b, static))
        external_id = attempt(_resolved, b.raw.external_id, static)
        if external_id is not None:   # Heat: an adopted resource is retained at delete
            policy = "Retain"
        definitions[name] = ResourceDefinition(
            name=name, type=b.raw.type, properties=dict(b.raw.snippet.get("properties") or {}),
            metadata=b.raw.snippet.get("metadata"), depends_on=list(b.raw.depends_on),
            deletion_policy=policy,
            update_policy=policy_value,
            update_replace_policy=normalise_replace_policy(
                _resolved(b.raw.update_replace_policy, static), name),
            description=b.raw.description if isinstance(b.raw.description, str) else "",
            external_id=external_id,
            condition=b.raw.snippet.get("condition"), template=kinds[name].template,
            effective_type=kinds[name].effective_type)
    attempt(check_acyclic, graph)

    outputs: dict[str, tuple[bool, Any, Any]] = {}
    for key, out in tmpl.outputs.items():
        path = ("outputs", key, "condition")
        enabled = not out.has_condition or conds.value(out.condition, path)
        tree = expand_macros(out.value, static) if enabled else None
        if enabled:
            attempt(checks.check_output, tree, scope.active, bound, type_schema, values)
        outputs[key] = (enabled, tree, out.description)
    definition = StackDefinition(tmpl, identity, values, definitions, graph, condition_values,
                                 scope, bound, outputs, list(tmpl.warnings))
    definition.environment = env
    return definition


def _resolved(tree: Any, static: StaticResolver) -> Any:
    return None if tree is None else resolve(expand_macros(tree, static), static)


def _deletion_policy(tree: Any, static: StaticResolver, hot: HotVersion, name: str) -> Any:
    return normalise_policy(_resolved(tree, static), hot, name)


def _known_properties(b: Bound, static: StaticResolver) -> dict[str, Any]:
    """The template resource's properties known before anything is created, as its child's
    parameters (Heat's ``child_params``); those that depend on resources are left out."""
    try:
        value = resolve(b.properties, static)
    except errors.TemplateError:
        return {}
    if not isinstance(value, dict):
        return {}
    known = {k: v for k, v in value.items()
             if v is not None and v is not ABSENT and not contains_unknown(v)}
    return global_templates.child_params(known)


def _validate_child(files: Mapping[str, str], key: str, name: str, type_name: str,
                    env: Environment | None, type_schema: TypeSchema | None,
                    nesting: Nesting, params: Mapping[str, Any] | None = None) -> None:
    """Validate provider template ``key`` as the child stack of resource ``name``, as Heat's
    ``StackResource.validate_nested_stack`` (``strict_validate=False``: parameters may lack
    values; ``params``: the values the resource's properties already give) with the child
    environment, one nesting level deeper.

    :raises errors.ValidationError: ``resources.<name><<key>>.<child path>: <child message>``,
        or "Recursion depth exceeds N." at Heat's ``max_nested_stack_depth``.
    """
    too_deep = type_resolution.nesting_exceeded(name, key, nesting)
    if too_deep is not None:
        raise type_resolution.child_failure(too_deep, name, key)
    child_env = type_resolution.child_environment(env, name, key, type_name)
    try:
        instantiate(parse(global_templates.provider(files, key), files), dict(params or {}), child_env, StackIdentity(f"{name}-child"),
                    type_schema, nesting=nesting.child(), strict=False)
    except errors.StokerError as exc:
        raise type_resolution.child_failure(exc, name, key) from None
