"""Parsed stack definitions, cached per process (the runtime's view of a stored template).

A task needs its resource's template snippet and the dependency edges around it. Parsing and
instantiating the template is O(template), so it is done once per (stack, raw template) in each
worker process and kept in a small LRU cache, bounded in entries and in the resources they hold
(idle ones go first); a task's own cost stays O(degree) (DESIGN.md, invariant 5).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select

from app import config, templates
from app.convergence import runtime
from app.engine import graph, plan
from app.models import RawTemplate, Stack, read_session
from app.models.exports import exports_named
from app.resource_types import registry
from app.templates import exports


@dataclass(frozen=True)
class Loaded:
    """A stack's instantiated definition and its graph, ready for tasks."""
    definition: Any                      # app.templates StackDefinition
    requires: dict[str, frozenset[str]]  # name -> names it requires (enabled resources only)

    @classmethod
    def of(cls, definition: Any) -> Loaded:
        requires = registry.implicit_dependencies(definition.resources, definition.dependencies)
        return cls(definition, requires)

    @functools.cached_property
    def required_by(self) -> dict[str, set[str]]:
        """Name -> names that require it, computed when first read (the API's resource
        views and previews; a worker's steps never read it, and a set a resource is
        O(resources) held by each worker a large group's steps ran on). O(V + E)."""
        return graph.invert(self.requires)

    @functools.cached_property
    def forward_plan(self) -> plan.Plan:
        """The CREATE traversal's plan (:func:`app.engine.plan.forward`), computed once:
        a create computes it before its transaction begins. O(V + E)."""
        return plan.forward(self.requires)

    def drop_plan(self) -> None:
        """Forget :attr:`forward_plan` once its traversal is stored: it is O(resources), and
        the cached definition outlives it (read again, it is computed again)."""
        self.__dict__.pop("forward_plan", None)


_cache: OrderedDict[tuple[str, int], Loaded] = OrderedDict()
#: key -> when it was last used (``time.monotonic()``)
_used: dict[tuple[str, int], float] = {}
_lock = threading.Lock()
#: the key being loaded -> the lock its loader holds (waiters block on it, then hit the cache)
_loading: dict[tuple[str, int], threading.Lock] = {}
MAX_CACHED = 64
#: resources the cached definitions hold at most, beyond those used in the last
#: ``IDLE_SECONDS``: a group's child of 100,000 members stays while its steps run, and is
#: dropped once idle, so a worker's memory does not keep the largest stack it ever ran
MAX_CACHED_RESOURCES = 20_000
IDLE_SECONDS = 30.0
_swept = [0.0]
#: resources dropped at once from which the freed heap is given back to the system
TRIM_RESOURCES = 1_000


def identity(stack_name: str, stack_id: str, project_id: str) -> Any:
    """The template layer's identity of a stack (``OS::stack_name`` & co)."""
    return templates.StackIdentity(stack_name=stack_name, stack_id=stack_id, project_id=project_id)


def instantiate(template: Any, files: dict[str, Any] | None, environment: Any,
                params: dict[str, Any] | None, ident: Any,
                facade: dict[str, Any] | None = None) -> Any:
    """The StackDefinition of a template that was checked when it was stored (create,
    update): parsed and instantiated, the plugins' own checks not run again.
    Raises the template package's errors."""
    tmpl = templates.parse(template, files=files or {})
    env = environment if isinstance(environment, templates.Environment) \
        else templates.Environment.from_mapping(environment or {})
    parent = templates.ParentFacade(**facade) if facade else None
    nesting = templates.Nesting(max_depth=config.get().max_nested_stack_depth)
    return templates.instantiate(tmpl, params or {}, env, ident, type_schema, parent=parent,
                                 strict=True, nesting=nesting)


def description_of(raw: Any) -> str:
    """A template mapping's ``description`` (HOT) or ``Description`` (CFN); "" if none."""
    if isinstance(raw, dict):
        d = raw.get("description", raw.get("Description", ""))
        return d if isinstance(d, str) else ""
    return ""


_schemas: dict[tuple[str, Any], dict[str, Any] | None] = {}


def type_schema(type_name: str) -> dict[str, Any] | None:
    """The registry's schema for the templates' validation; a type that accepts any attribute
    (a group's member attributes, OS::Heat::None) reports ``attributes: None`` (dynamic), one
    that accepts any property (OS::Heat::None, the HIDDEN placeholders) ``properties: None``. What
    Heat accepts without listing it is added: hidden deprecated properties and attributes, and
    the plugin's ``unlisted_properties``, and its ``unimplemented_properties`` (refused when given).

    Built once per process and plugin class, then shared (not copied per resource): callers
    read it and must not change it."""
    cls = registry.get(type_name)
    key = (type_name, cls)
    if key in _schemas:
        return _schemas[key]
    schema = _schemas[key] = _type_schema(type_name, cls)
    return schema


def _type_schema(type_name: str, cls: Any) -> dict[str, Any] | None:
    schema = registry.schema(type_name, hidden=True)  # Heat's HIDDEN types work in templates
    if schema is not None and cls is not None and cls.accepts_any_attributes:
        schema["attributes"] = None
    if schema is not None and cls is not None:
        _add_hidden(schema, getattr(cls, "hidden_properties", None) or {})
        for name, entry in (getattr(cls, "unlisted_properties", None) or {}).items():
            schema["properties"].setdefault(name, dict(entry))
        for name, entry in (getattr(cls, "unimplemented_properties", None) or {}).items():
            schema["properties"].setdefault(name, {**entry, "implemented": False})
        if schema.get("attributes") is not None:
            for name, entry in (getattr(cls, "hidden_attributes", None) or {}).items():
                schema["attributes"].setdefault(name, dict(entry))
        if cls.accepts_any_properties:   # OS::Heat::None and Heat's placeholders of it
            schema["properties"] = None
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


def _cached(key: tuple[str, int]) -> Loaded | None:
    dropped = 0
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            now = _used[key] = time.monotonic()
            if now - _swept[0] > IDLE_SECONDS:
                dropped = _evict(key, now)
    give_back(dropped)
    return hit


def _evict(keep: tuple[str, int], now: float) -> int:
    """Drop the least recently used definitions beyond ``MAX_CACHED``, then idle ones (not
    ``keep``), the largest first, while the resources cached exceed ``MAX_CACHED_RESOURCES``.
    Under ``_lock``; O(cached definitions). :returns: the resources the dropped ones held."""
    _swept[0] = now
    dropped = 0
    while len(_cache) > MAX_CACHED:
        k, v = _cache.popitem(last=False)
        _used.pop(k, None)
        dropped += len(v.requires)
    total = sum(len(v.requires) for v in _cache.values())
    idle = [k for k in _cache if k != keep and now - _used.get(k, 0.0) >= IDLE_SECONDS]
    for k in sorted(idle, key=lambda k: -len(_cache[k].requires)):  # the largest first
        if total <= MAX_CACHED_RESOURCES:
            break
        size = len(_cache.pop(k).requires)
        total, dropped = total - size, dropped + size
        _used.pop(k, None)
    return dropped


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim`` (None: another C library, which has none)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
    except (OSError, AttributeError):
        return None


def give_back(dropped: int) -> None:
    """After definitions holding ``dropped`` resources left the cache: from
    :data:`TRIM_RESOURCES` on, give the C heap's free pages back to the system (glibc
    ``malloc_trim``). A large definition's objects are freed but the heap keeps their pages,
    interleaved with live ones, so a worker's RSS stayed at the largest group it loaded."""
    trim = _malloc_trim() if dropped >= TRIM_RESOURCES else None
    if trim is not None:
        trim(0)


#: what a definition is made of: the raw template and the stack's parameters, in one read
_LOAD = (select(RawTemplate.template, RawTemplate.files, RawTemplate.environment,
                Stack.parameters, Stack.nested_info)
         .select_from(Stack).join(RawTemplate, RawTemplate.id == bindparam("rid"))
         .where(Stack.id == bindparam("sid")))


def load(stack_id: str, raw_template_id: int, stack_name: str, tenant: str) -> Loaded:
    """The cached :class:`Loaded` for a stack; on a miss the raw template, files, environment
    and parameters are read from the database.

    One load per key at a time in a process: the first steps of a stack arrive together on
    every worker thread, and each would otherwise parse and instantiate the same template
    (O(template) each); the others wait for it and take the cached result. A load that
    raises lets the next waiter try on its own."""
    key = (stack_id, raw_template_id)
    hit = _cached(key)
    if hit is not None:
        return hit
    with _lock:
        gate = _loading.setdefault(key, threading.Lock())
    try:
        with gate:
            hit = _cached(key)
            if hit is not None:
                return hit
            with read_session() as s:
                row = s.execute(_LOAD, {"sid": stack_id, "rid": raw_template_id}).one()
                runtime.current().environment_read(stack_id, stack_name, tenant,
                                                   row.environment)
                loaded = of_raw(row, row.parameters, identity(stack_name, stack_id, tenant),
                                row.nested_info, s)
            seed(key, loaded)
            return loaded
    finally:
        with _lock:
            if _loading.get(key) is gate:
                del _loading[key]


def of_raw(raw: Any, params: dict[str, Any] | None, ident: Any,
           nested_info: dict[str, Any] | None, s: Any) -> Loaded:
    """The :class:`Loaded` of a stored raw template (its files and environment) with
    ``params``; ``nested_info``: a nested stack's link to its parent resource (its facade).
    The exports it imports are read from the tenant's (``s``: an open session)."""
    env = {k: v for k, v in (raw.environment or {}).items() if k != "parameters"}
    definition = instantiate(raw.template, raw.files, env, params, ident,
                             (nested_info or {}).get("facade"))
    bind_imports(s, ident.project_id, definition)
    return Loaded.of(definition)


def bind_imports(s: Any, tenant: str, definition: Any) -> dict[str, Any]:
    """Give ``definition`` the values of the exports its template imports (those the tenant
    has; a missing one fails where it resolves). :returns: ``name -> value`` found."""
    names = exports.imported_names(definition.template)
    values = {n: row.value for n, row in exports_named(s, tenant, names).items()}
    exports.bind_imports(definition, values)
    return values


def seed(key: tuple[str, int], loaded: Loaded) -> None:
    """Put an already-instantiated definition in the cache (the API process at create). The
    least recently used beyond ``MAX_CACHED`` go at once; idle ones over the resources budget
    at most every ``IDLE_SECONDS``, as a hit sweeps (none becomes idle any sooner)."""
    with _lock:
        _cache[key] = loaded
        _cache.move_to_end(key)
        now = _used[key] = time.monotonic()
        if now - _swept[0] > IDLE_SECONDS:
            dropped = _evict(key, now)
        else:
            dropped = 0
            while len(_cache) > MAX_CACHED:
                k, v = _cache.popitem(last=False)
                _used.pop(k, None)
                dropped += len(v.requires)
    give_back(dropped)


def drop_idle() -> None:
    """Drop idle definitions over the resources budget (called periodically, by the lease's
    sweep: a worker that runs nothing more does not keep a finished group's definition)."""
    with _lock:
        dropped = _evict(("", 0), time.monotonic())
    give_back(dropped)


def forget(stack_id: str) -> None:
    """Drop a stack's cached definitions (its delete runs, or it was deleted).
    O(cached definitions)."""
    dropped = 0
    with _lock:
        for k in [k for k in _cache if k[0] == stack_id]:
            dropped += len(_cache.pop(k).requires)
            _used.pop(k, None)
    give_back(dropped)
