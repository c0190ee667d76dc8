"""The resources an UPDATE leaves as they are, found before its traversal starts.

Heat's convergence runs a task for every node of an update; the forward node of a resource whose
resolved properties are unchanged does nothing (no event, no cloud call), and so does the
cleanup node of a resource that stays and replaced nothing. Most of a large update is such nodes
(a flavor change of 200 servers leaves their 200 ports, 200 volumes, the network and the subnet
alone), and each cost a step and, on the critical path, a hop before the first real change.

:func:`settle` decides them at the start instead, by the very comparison the forward step makes
(:func:`properties`, the step's ``props == properties_data``) with the inputs the step would be
given: the stored reference ids of the resources before it, which are settled too. A resource is
settled only when nothing in the new template reads one of its attributes (the step would read
them again from the cloud, as Heat resolves them live), when it is COMPLETE, holds no lock,
replaced nothing and is no nested stack. :func:`app.engine.update_plan.settle` then takes its
nodes out of the plan; the resources after it get its data at the start.
"""
from __future__ import annotations

from graphlib import TopologicalSorter
from typing import Any

from sqlalchemy import bindparam, tuple_, update
from sqlalchemy.orm import Session

from app.convergence import attrdata, groups
from app.convergence.definitions import Loaded
from app.convergence.rows import REPLACED, table
from app.engine import update_plan
from app.engine.plan import Plan
from app.engine.states import Action, Status
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


def _quiet(r: Resource, rdef: Any) -> bool:
    """Whether row ``r`` is settled as far as the row goes: COMPLETE after an action that
    left a resource (not INIT, not DELETE), unlocked, with stored properties and data, nothing
    replaced, the same built-in type, no nested stack, and the same ``external_id``."""
    data = r.rsrc_data or {}
    impl = getattr(rdef, "implementation", rdef.type)
    return (r.status == Status.COMPLETE and r.action not in (Action.INIT, Action.DELETE)
            and r.engine_id is None and r.properties_data is not None and bool(r.attr_data)
            and not data.get(REPLACED) and not data.get("nested") and not groups.kind(rdef)
            and impl == str(data.get("_impl") or r.type)
            and data.get("_external_id") == (None if rdef.external_id is None
                                              else str(rdef.external_id)))


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
    for name in TopologicalSorter(requires).static_order():
        r, rdef = rows.get(name), defn.resources.get(name)
        if r is None or rdef is None or not _quiet(r, rdef) or _pre_update(loaded, name) \
                or any(q not in found for q in requires[name]) \
                or defn.referenced_attributes(name):
            continue
        if _same(loaded, name, r, {q: rows[q].attr_data for q in requires[name]}):
            found.add(name)
    return found


def _same(loaded: Loaded, name: str, r: Resource, data: dict[str, Any]) -> bool:
    """Whether ``name``'s new properties resolve to what row ``r`` stores (False when they do
    not resolve: its step reports that)."""
    try:
        return properties(loaded, name, data) == r.properties_data
    except Exception:
        return False


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
