"""The resources an UPDATE leaves as they are, found before its traversal starts.

More in docs/code/convergence.md (app.convergence.unchanged).
"""
from __future__ import annotations

from collections.abc import Mapping
from graphlib import TopologicalSorter
from typing import Any

from sqlalchemy import bindparam, tuple_, update
from sqlalchemy.orm import Session

from app.convergence.steps import changes
from app.convergence.store import attrdata
from app.convergence.store.definitions import Loaded
from app.convergence.store.rows import REPLACED, table
from app.engine import change, update_plan
from app.engine.plan import Plan
from app.engine.states import Status
from app.models import Resource
from app.resource_types import registry

RT = table(Resource)


def properties(loaded: Loaded, name: str, data: dict[str, Any]) -> dict[str, Any]:
    """Resource ``name``'s properties in ``loaded``, resolved with ``data`` (``{resource name:
    attr_data}`` of what it requires) and validated as a create would (defaults filled in).
    Not for a template resource (its properties are the child stack's parameters).

    :raises errors.TemplateError: a function failed; :raises errors.ValidationError: a
        property is invalid."""
    props = loaded.definition.resolve_properties(name, attrdata.DataContext(data))
    rdef = loaded.definition.resources[name]
    cls = registry.get(getattr(rdef, "implementation", rdef.type))
    if cls is not None:
        props = cls.validated_properties(props, ("resources", name, "properties"))
    return dict(props)


def _quiet(r: Resource) -> bool:
    """Whether row ``r`` is one whose step, given an UNCHANGED verdict, would write nothing:
    COMPLETE (a FAILED one is marked COMPLETE), unlocked, with attributes stored and nothing
    replaced (its cleanup node deletes that)."""
    return (r.status == Status.COMPLETE and r.engine_id is None and bool(r.attr_data)
            and not (r.rsrc_data or {}).get(REPLACED))


class _ByClass:
    """A plugin's hooks as far as its class tells, without building it (no cloud client, no
    stack): a class that may always update (or no registry class: a nested kind) is left to
    its step, which asks the plugin itself."""

    def __init__(self, cls: Any) -> None:
        self.may_always_update = cls is None or hasattr(cls, "always_updates")

    def needs_replace_failed(self) -> bool:
        return True

    def always_updates(self, new: Mapping[str, Any]) -> bool:
        return self.may_always_update

    def diff(self, new: Mapping[str, Any]) -> change.PropDiff:
        raise AssertionError("the settling decides before the plugin's diff")


def _pre_update(loaded: Loaded, name: str) -> bool:
    """A ``pre-update`` hook pauses the resource even when nothing changes (Heat)."""
    env = getattr(loaded.definition, "environment", None)
    try:
        return env is not None and "pre-update" in env.registry().hooks_for(name)
    except Exception:
        return False


def candidates(loaded: Loaded, rows: dict[str, Resource]) -> set[str]:
    """The resources of ``loaded`` whose forward step would find their properties unchanged,
    each judged with the stored data of what it requires (all of which must be candidates).
    O(V + E) resolutions, no I/O."""
    defn = loaded.definition
    requires = {n: [q for q in loaded.requires.get(n, ()) if q in defn.resources]
                for n in defn.resources}
    found: set[str] = set()
    by_type: dict[str, _ByClass] = {}
    for name in TopologicalSorter(requires).static_order():
        r, rdef = rows.get(name), defn.resources.get(name)
        if r is None or rdef is None or not _quiet(r) or _pre_update(loaded, name) \
                or any(q not in found for q in requires[name]) \
                or defn.referenced_attributes(name):
            continue
        impl = getattr(rdef, "implementation", rdef.type)
        says = by_type.get(impl) or by_type.setdefault(impl, _ByClass(registry.get(impl)))
        if _unchanged(loaded, name, r, rdef, {q: rows[q].attr_data for q in requires[name]},
                      says):
            found.add(name)
    return found


def _unchanged(loaded: Loaded, name: str, r: Resource, rdef: Any, data: dict[str, Any],
               says: _ByClass) -> bool:
    """Whether the classifier's verdict on row ``r`` for ``rdef`` is UNCHANGED, its new
    properties resolved with ``data`` (False when they do not resolve: its step reports
    that)."""
    props = changes.memo(lambda: properties(loaded, name, data))
    try:
        verdict = change.settled_before_diff(changes.stored(r),
                                             changes.wanted(name, rdef, props), says)
    except changes.Unresolved:
        return False
    return isinstance(verdict, change.Verdict) and verdict.change is change.Change.UNCHANGED


def settle(s: Session, loaded: Loaded, rows: dict[str, Resource], p: Plan
           ) -> update_plan.Settled:
    """Take the UPDATE plan ``p``'s no-op nodes out (see the module's docstring), in the
    caller's transaction (the one that supersedes the stack's traversal).

    Each settled row's ``atomic_key`` is moved on while its lock is free: a step of the
    superseded traversal that read the stack before this transaction committed then fails to
    take the row's lock (:func:`app.convergence.check.check_resource` takes it only at the key
    it read with the stack) and stops, instead of acting on a row this traversal never visits.
    A row locked, or locked and released, since it was read is not settled. O(V + E)."""
    found = candidates(loaded, rows)
    keys = sorted((rows[n].id, rows[n].atomic_key) for n in found)
    free: set[int] = set()
    for i in range(0, len(keys), _CHUNK):
        free.update(s.connection().execute(_MOVE_KEYS, {"keys": keys[i:i + _CHUNK]}).scalars())
    return update_plan.settle(p, {n for n in found if rows[n].id in free})


#: ids a statement names at most (SQLite's bound-parameter limit)
_CHUNK = 500
#: Move on the keys of free rows still at the key they were judged with (a step that locked,
#: changed and released one since has moved its key), naming those it moved (built once)
_MOVE_KEYS = (update(RT).where(tuple_(RT.c.id, RT.c.atomic_key)
                               .in_(bindparam("keys", expanding=True)),
                               RT.c.engine_id.is_(None))
              .values(atomic_key=RT.c.atomic_key + 1).returning(RT.c.id))
