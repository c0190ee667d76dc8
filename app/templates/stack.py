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
from app.templates import dependencies, global_templates, type_resolution, update_policy
from app.templates import properties as props_mod
from app.templates.conditions import Conditions
from app.templates.dependencies import check_acyclic, reference_nodes, references, topological_order
from app.templates.environment import Environment
from app.templates.functions.base import (
    ABSENT,
    UNKNOWN,
    Function,
    FunctionError,
    contains_unknown,
    expand_macros,
    resolve,
    walk,
)
from app.templates.functions.cfn import Ref
from app.templates.functions.core import GetAtt, GetParam
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
    bad_reference,
)
from app.templates.template import parse
from app.templates.versions import HOT_KEY

__all__ = ["LAX_TYPES", "Nesting", "StackDefinition", "StackIdentity", "instantiate"]

TypeSchema = Callable[[str], "dict[str, Any] | None"]
#: Types that accept any property and attribute (Heat's OS::Heat::None placeholder, and the
#: HIDDEN types Heat 27 turned into such placeholders when it removed them).
LAX_TYPES = frozenset({"OS::Heat::None", "OS::Designate::Domain", "OS::Designate::Record",
                       "OS::Magnum::Bay"})


@dataclass
class _Bound:
    """A resource after conditions: expanded trees (macros resolved)."""

    raw: RawResource
    properties: Any
    metadata: Any
    schema: dict[str, Any] | None


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
    _bound: dict[str, _Bound]
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
            for name, attr, _ in references([bound.properties, bound.metadata]):
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


def _instantiate(tmpl: Template, params: Mapping[str, Any] | None, env: Environment | None,
                 identity: StackIdentity | None, type_schema: TypeSchema | None, *,
                 nesting: Nesting, parent: ParentFacade | None, strict: bool,
                 check_types: Callable[[list[str]], None] | None = None,
                 validate_children: bool = True) -> StackDefinition:
    identity = identity or StackIdentity()
    user = dict(params or {})
    defaults: dict[str, Any] = {}
    if env is not None:
        user.update(env.parameters)
        defaults = {k: v for k, v in env.parameter_defaults.items() if k in tmpl.parameters}
    pseudo = tmpl.pseudo_parameters(identity)
    values = resolve_values(tmpl.parameters, user, defaults,
                            _pseudo(identity) if pseudo is None else pseudo, strict=strict)
    validate_groups(tmpl.parameter_groups, tmpl.parameters)

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

    kinds = type_resolution.resolve_types({n: r.type for n, r in active.items()}, env, tmpl.files, type_schema)
    if check_types is not None:
        check_types([kinds[n].effective_type or r.type for n, r in active.items()])
    bound: dict[str, _Bound] = {}
    for name, raw in active.items():
        schema = kinds[name].schema
        if kinds[name].effective_type in LAX_TYPES:
            schema = None
        bound[name] = _Bound(raw, expand_macros(raw.properties, static),
                             expand_macros(raw.metadata, static), schema)

    definitions: dict[str, ResourceDefinition] = {}
    graph: dict[str, frozenset[str]] = {}
    children: set[str] = set()
    for name, b in bound.items():
        graph[name] = _requirements(tmpl, b, values, scope)
        _check_attributes(b.properties, bound, type_schema)
        _check_attr_paths(b.properties, values)
        policy = normalise_policy(resolve(expand_macros(b.raw.deletion_policy, static), static),
                                  tmpl.hot, name)
        _static_properties(b, static, strict)
        policy_value = resolve(expand_macros(b.raw.update_policy, static), static)
        if type_schema is not None and kinds[name].effective_type not in LAX_TYPES:
            _check_update_policy(tmpl, name, kinds[name], policy_value)
        key = kinds[name].template
        if key is not None and key not in children:
            children.add(key)
            if validate_children:
                _validate_child(tmpl.files, key, name, b.raw.type, env, type_schema, nesting,
                                _known_properties(b, static))
            else:
                _parse_child(tmpl.files, key, name)
        external_id = resolve(expand_macros(b.raw.external_id, static), static)
        if external_id is not None:   # Heat: an adopted resource is retained at delete
            policy = "Retain"
        definitions[name] = ResourceDefinition(
            name=name, type=b.raw.type, properties=dict(b.raw.snippet.get("properties") or {}),
            metadata=b.raw.snippet.get("metadata"), depends_on=list(b.raw.depends_on),
            deletion_policy=policy,
            update_policy=policy_value,
            update_replace_policy=normalise_replace_policy(
                resolve(expand_macros(b.raw.update_replace_policy, static), static), name),
            description=b.raw.description if isinstance(b.raw.description, str) else "",
            external_id=external_id,
            condition=b.raw.snippet.get("condition"), template=kinds[name].template,
            effective_type=kinds[name].effective_type)
    check_acyclic(graph)

    outputs: dict[str, tuple[bool, Any, Any]] = {}
    for key, out in tmpl.outputs.items():
        path = ("outputs", key, "condition")
        enabled = not out.has_condition or conds.value(out.condition, path)
        tree = expand_macros(out.value, static) if enabled else None
        if enabled:
            for fn, fn_name, _, fpath in reference_nodes(tree):
                if isinstance(fn, GetAtt) and fn_name not in scope.active:
                    raise bad_reference(fn_name, fpath).with_heat_type("StackValidationFailed")
            _check_attributes(tree, bound, type_schema)
            _check_attr_paths(tree, values)
        outputs[key] = (enabled, tree, out.description)
    definition = StackDefinition(tmpl, identity, values, definitions, graph, condition_values,
                                 scope, bound, outputs, list(tmpl.warnings))
    definition.environment = env
    return definition


def _check_update_policy(tmpl: Template, name: str, kind: type_resolution.ResolvedType,
                         policy: Any) -> None:
    """Heat's ``Resource.validate`` of the update policy against the type's schema
    (:mod:`.update_policy`; a template resource has none). :raises errors.ValidationError:"""
    if not isinstance(policy, dict) or not policy or contains_unknown(policy):
        return
    schema = {} if kind.template is not None else update_policy.schema_for(kind.effective_type)
    hot = tmpl.version[0] == HOT_KEY
    where = ("resources", name, "update_policy") if hot else ("Resources", name, "UpdatePolicy")
    props_mod.validate(schema, policy, where)


def _known_properties(b: _Bound, static: StaticResolver) -> dict[str, Any]:
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


def _parse_child(files: Mapping[str, str], key: str, name: str) -> None:
    """Parse provider template ``key`` only (Heat's ``TemplateResource.validate_template``:
    its download or parse error). :raises errors.ValidationError: as :func:`_validate_child`."""
    try:
        parse(global_templates.provider(files, key), files)
    except errors.StokerError as exc:
        raise type_resolution.child_failure(exc, name, key) from None


def _requirements(tmpl: Template, b: _Bound, values: Parameters,
                  scope: Scope) -> frozenset[str]:
    name = b.raw.name
    deps: set[str] = set()
    for where, tree in (("Properties", b.properties), ("Metadata", b.metadata)):
        for fn, ref, _, fpath in reference_nodes(tree):
            if isinstance(fn, Ref) and ref in values:
                continue
            if ref not in scope.active:
                prop = fpath[3] if where == "Properties" and len(fpath) > 3 else None
                loc = f"{name}.{where}.{prop}" if prop is not None else f"{name}.{where}"
                if isinstance(fn, Ref) and prop is not None:  # Heat meets it resolving the value
                    dotted = errors.format_path(fpath[:4])
                    raise errors.ValidationError(
                        f"Property error: {dotted}: {bad_reference(ref, fpath).raw}",
                        path=fpath[:4])
                exc = bad_reference(ref, fpath, loc)
                raise errors.TemplateError(exc.raw, path=fpath,
                                           heat_type="InvalidTemplateReference")
            deps.add(ref)
        for ref, fpath in dependencies.computed_references(tree, StaticResolver(scope)):
            if ref not in scope.active:
                raise errors.TemplateError(bad_reference(ref, fpath, f"{name}.{where}").raw,
                                           path=fpath, heat_type="InvalidTemplateReference")
            deps.add(ref)
    for dep in b.raw.depends_on:
        if dep not in tmpl.resources:
            raise errors.TemplateError(f'The specified reference "{dep}" (in {name}) is '
                                       f'incorrect.', path=("resources", name, "depends_on"),
                                       heat_type="InvalidTemplateReference")
        if dep in scope.active:
            deps.add(dep)
    return frozenset(deps)


def _check_attr_paths(tree: Any, values: Parameters) -> None:
    """Attribute names and paths must resolve now (Heat resolves them to know which attributes
    to record): a ``get_param`` there needs a value even under ``POST /validate``."""
    for fn in walk(tree):
        if isinstance(fn, GetAtt) and isinstance(fn.args, list):
            for inner in walk(fn.args[1:]):
                if isinstance(inner, GetParam) and isinstance(inner.args, str) \
                        and inner.args in values.values \
                        and values.values[inner.args] is UNKNOWN:
                    raise errors.ParameterError(
                        f"The Parameter ({inner.args}) was not provided.", path=inner.path,
                        heat_type="UserParameterMissing")


def _check_attributes(tree: Any, bound: Mapping[str, _Bound],
                      type_schema: TypeSchema | None) -> None:
    if type_schema is None:
        return
    for ref, attr, fpath in references(tree):
        if not attr or ref not in bound:
            continue
        schema = bound[ref].schema
        if schema is None or schema.get("attributes") is None:
            continue
        name = attr[0]
        if isinstance(name, str) and name not in schema["attributes"] and name != "show":
            raise FunctionError(f"The Referenced Attribute ({ref} {name}) is incorrect.", fpath,
                                heat_type="InvalidTemplateAttribute").with_heat_type(
                                    "StackValidationFailed")


def _static_properties(b: _Bound, static: StaticResolver, strict: bool) -> None:
    name = b.raw.name
    tree = b.properties
    items = tree.items() if isinstance(tree, dict) else []
    if not strict:  # a get_param of an undeclared parameter fails as create (Heat's passes)
        for key, arg in dependencies.undeclared_params(dict(items), static.scope.params):
            where = ("resources", name, "properties", key)
            raise errors.ValidationError(
                f"Property error: {errors.format_path(where)}: The Parameter ({arg}) "
                "was not provided.", path=where)
        if b.schema is not None and isinstance(tree, dict):
            props_mod.validate(b.schema.get("properties"), tree,
                               ("resources", name, "properties"), names_only=True)
        return
    values: dict[str, Any] = {}
    for key, sub in items:
        try:
            value = resolve(sub, static)
        except FunctionError as exc:
            where = ("resources", name, "properties", key)
            raise errors.ValidationError(
                f"Property error: {errors.format_path(where)}: {exc.raw}", path=where) from None
        values[key] = value  # null is given, ABSENT (an omitted ``if``) is not
    if isinstance(b.raw.properties, dict):  # a key whose ``if`` macro omitted it: in the data
        for key in b.raw.properties:        # but not given (Heat's Ellipsis), so a required
            values.setdefault(key, ABSENT)  # one is "not assigned" at its own path
    if isinstance(tree, Function):
        return
    if b.schema is not None:
        props_mod.validate(b.schema.get("properties"), values,
                           ("resources", name, "properties"), partial=True)
