"""Static checks of one bound resource or output, as Heat's ``Stack.validate`` makes them:
update policy, attribute names and paths, property names (``POST /validate``) or known values.
Each raises the first problem it finds (:class:`~app.errors.TemplateError`, with its path).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.templates import dependencies, type_resolution, update_policy
from app.templates import properties as props_mod
from app.templates.environment import Environment
from app.templates.functions.base import (
    ABSENT,
    UNKNOWN,
    Function,
    FunctionError,
    contains_unknown,
    resolve,
    walk,
)
from app.templates.functions.cfn import Ref
from app.templates.functions.core import GetAtt, GetParam
from app.templates.parameters import PSEUDO, Parameters, ParamSchema, resolve_values
from app.templates.parsed import Template
from app.templates.resources import RawResource
from app.templates.scope import Scope, StaticResolver, bad_reference
from app.templates.type_resolution import ResolvedType
from app.templates.versions import HOT_KEY

TypeSchema = Callable[[str], "dict[str, Any] | None"]


def attempt(found: list[errors.TemplateError] | None, fn: Callable[..., Any], *args: Any,
            default: Any = None) -> Any:
    """``fn(*args)``; with ``found``, its :class:`~app.errors.TemplateError` is appended
    there and ``default`` returned instead of raising."""
    if found is None:
        return fn(*args)
    try:
        return fn(*args)
    except errors.TemplateError as exc:
        found.append(exc)
        return default


def parameters(found: list[errors.TemplateError], schemas: Mapping[str, ParamSchema],
               user: Mapping[str, Any], defaults: Mapping[str, Any],
               pseudo: Mapping[str, Any], strict: bool) -> Parameters:
    """:func:`.parameters.resolve_values` checking each parameter on its own: every bad one is
    appended to ``found`` and takes no value (UNKNOWN) in what is returned."""
    good_user: dict[str, Any] = {}
    good_defaults: dict[str, Any] = {}
    for name, value in user.items():
        if name not in schemas and name not in PSEUDO:
            attempt(found, lambda n=name, v=value: resolve_values({}, {n: v}, {}, pseudo))
    for name, schema in schemas.items():
        given = {name: user[name]} if name in user else {}
        default = {name: defaults[name]} if name in defaults else {}
        try:
            resolve_values({name: schema}, given, default, pseudo, strict=strict)
        except errors.TemplateError as exc:
            found.append(exc)
            continue
        good_user.update(given)
        good_defaults.update(default)
    return resolve_values(schemas, good_user, good_defaults, pseudo, strict=False)


def resolve_types(types: Mapping[str, str], env: Environment | None, files: Mapping[str, str],
                  type_schema: TypeSchema | None,
                  found: list[errors.TemplateError] | None) -> dict[str, ResolvedType]:
    """:func:`.type_resolution.resolve_types`; with ``found``, each resource's type on its own:
    one that cannot be resolved is appended there and stands as ``OS::Heat::None``."""
    if found is None:
        return type_resolution.resolve_types(types, env, files, type_schema)
    out: dict[str, ResolvedType] = {}
    for name, type_name in types.items():
        try:
            out[name] = type_resolution.resolve_types({name: type_name}, env, files,
                                                      type_schema)[name]
        except errors.TemplateError as exc:
            found.append(exc)
            out[name] = ResolvedType("OS::Heat::None", None, None)
    return out


def check_output(tree: Any, active: frozenset[str], bound: Mapping[str, Bound],
                 type_schema: TypeSchema | None, values: Parameters) -> None:
    """An output's references, attribute names and paths. :raises errors.TemplateError:"""
    fns = walk(tree)
    for fn, fn_name, _, fpath in dependencies.function_references(fns):
        if isinstance(fn, GetAtt) and fn_name not in active:
            raise bad_reference(fn_name, fpath).with_heat_type("StackValidationFailed")
    check_attributes(fns, bound, type_schema)
    check_attr_paths(fns, values)


@dataclass
class Bound:
    """A resource after conditions: expanded trees (macros resolved), and the function
    nodes of each (:func:`walk`, taken once for every check that reads them)."""

    raw: RawResource
    properties: Any
    metadata: Any
    schema: dict[str, Any] | None
    property_functions: list[Function] = field(init=False)
    metadata_functions: list[Function] = field(init=False)

    def __post_init__(self) -> None:
        self.property_functions = walk(self.properties)
        self.metadata_functions = walk(self.metadata)


def check_update_policy(tmpl: Template, name: str, kind: type_resolution.ResolvedType,
                         policy: Any) -> None:
    """Heat's ``Resource.validate`` of the update policy against the type's schema
    (:mod:`.update_policy`; a template resource has none). :raises errors.ValidationError:"""
    if not isinstance(policy, dict) or not policy or contains_unknown(policy):
        return
    schema = {} if kind.template is not None else update_policy.schema_for(kind.effective_type)
    hot = tmpl.version[0] == HOT_KEY
    where = ("resources", name, "update_policy") if hot else ("Resources", name, "UpdatePolicy")
    props_mod.validate(schema, policy, where)


def check_attr_paths(fns: list[Function], values: Parameters) -> None:
    """Attribute names and paths must resolve now (Heat resolves them to know which attributes
    to record): a ``get_param`` there needs a value even under ``POST /validate``. ``fns``: the
    tree's :func:`walk`."""
    for fn in fns:
        if isinstance(fn, GetAtt) and isinstance(fn.args, list):
            for inner in walk(fn.args[1:]):
                if isinstance(inner, GetParam) and isinstance(inner.args, str) \
                        and inner.args in values.values \
                        and values.values[inner.args] is UNKNOWN:
                    raise errors.ParameterError(
                        f"The Parameter ({inner.args}) was not provided.", path=inner.path,
                        heat_type="UserParameterMissing")


def check_attributes(fns: list[Function], bound: Mapping[str, Bound],
                      type_schema: TypeSchema | None) -> None:
    """The attribute names that ``fns`` (a tree's :func:`walk`) read exist in their
    resource's schema. :raises FunctionError: InvalidTemplateAttribute."""
    if type_schema is None:
        return
    for _, ref, attr, fpath in dependencies.function_references(fns):
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


def check_static_properties(b: Bound, static: StaticResolver, strict: bool,
                            found: list[errors.TemplateError] | None = None) -> None:
    """The properties of ``b`` by name (``strict=False``) or by known value. ``found``: append
    every problem there instead of raising the first. :raises errors.ValidationError:"""
    def fail(exc: errors.TemplateError) -> None:
        if found is None:
            raise exc
        found.append(exc)

    name = b.raw.name
    tree = b.properties
    items = tree.items() if isinstance(tree, dict) else []
    where = ("resources", name, "properties")
    if not strict:  # a get_param of an undeclared parameter fails as create (Heat's passes)
        for key, arg in dependencies.undeclared_params(dict(items), static.scope.params):
            fail(errors.ValidationError(
                f"Property error: {errors.format_path(where + (key,))}: The Parameter ({arg}) "
                "was not provided.", path=where + (key,)))
        if b.schema is not None and isinstance(tree, dict):
            _properties(b.schema.get("properties"), tree, where, found, names_only=True)
        return
    values: dict[str, Any] = {}
    for key, sub in items:
        try:
            value = resolve(sub, static)
        except FunctionError as exc:
            fail(errors.ValidationError(
                f"Property error: {errors.format_path(where + (key,))}: {exc.raw}",
                path=where + (key,)))
            value = UNKNOWN
        values[key] = value  # null is given, ABSENT (an omitted ``if``) is not
    if isinstance(b.raw.properties, dict):  # a key whose ``if`` macro omitted it: in the data
        for key in b.raw.properties:        # but not given (Heat's Ellipsis), so a required
            values.setdefault(key, ABSENT)  # one is "not assigned" at its own path
    if isinstance(tree, Function):
        return
    if b.schema is not None:
        _properties(b.schema.get("properties"), values, where, found, partial=True)


def _properties(schema: Any, values: dict[str, Any], where: tuple[Any, ...],
                found: list[errors.TemplateError] | None, **how: bool) -> None:
    if found is None:
        props_mod.validate(schema, values, where, **how)
    else:
        found.extend(props_mod.problems(schema, values, where, **how))


#: what a resource that references none requires: one object shared by all (a group's
#: members each held an empty frozenset of their own, ~200 bytes a member)
NO_REQUIREMENTS: frozenset[str] = frozenset()


def requirements(tmpl: Template, b: Bound, values: Parameters, scope: Scope) -> frozenset[str]:
    """The resources ``b`` requires: those its properties and metadata reference (a ``Ref`` to a
    parameter is not one) and its ``depends_on``, as Heat's ``Resource.required_by`` graph.

    :raises errors.TemplateError: ``InvalidTemplateReference`` for an unknown or
        condition-removed resource; errors.ValidationError: a ``Ref`` in a property.
    """
    name = b.raw.name
    deps: set[str] = set()
    for where, fns in (("Properties", b.property_functions),
                       ("Metadata", b.metadata_functions)):
        if not fns:  # no function: no reference (most resources' metadata)
            continue
        for fn, ref, _, fpath in dependencies.function_references(fns):
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
        for ref, fpath in dependencies.computed_references(fns, StaticResolver(scope)):
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
    return frozenset(deps) if deps else NO_REQUIREMENTS
