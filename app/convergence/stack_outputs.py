"""A stack's outputs, resolved when a traversal finishes (and for a stack's show, a signal, a
scaling): from the stored ``attr_data`` of the resources they name, the attributes of those in a
cloud read again first, as Heat resolves outputs from the live resources.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import Select, bindparam, select, update
from sqlalchemy.orm import Session

from app.convergence import plugins
from app.convergence.nested import groups
from app.convergence.store import attrdata, definitions
from app.convergence.store.definitions import Loaded
from app.convergence.store.rows import ResourceRow
from app.engine.states import Status
from app.models import Resource, Stack, first_row, read_connection, read_session
from app.resource_types import registry

log = logging.getLogger(__name__)

#: output resources read by name up to this many; more (a group's child, one per member) are
#: read with the stack's other rows (an IN list of 100,000 names costs more than the rows)
BY_NAME_LIMIT = 1000


def _output_rows(s: Session, stack_id: str, names: set[str], *columns: Any) -> list[Any]:
    """``columns`` of the rows of the resources ``names`` of stack ``stack_id``. One query."""
    q = select(*columns).where(Resource.stack_id == stack_id)
    if len(names) <= BY_NAME_LIMIT:
        return list(s.execute(q.where(Resource.name.in_(list(names)))))
    return [r for r in s.execute(q) if r.name in names]


def resolve_outputs(s: Session, stack_id: str, loaded: Loaded,
                    fresh: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The stack's outputs resolved from the stored ``attr_data`` of the resources they name
    (``fresh``: name -> ``attr_data`` read again, over the stored). O(outputs)."""
    names = loaded.definition.output_resources()
    data: dict[str, Any] = {}
    if names:
        data = {r.name: r.attr_data for r in _output_rows(s, stack_id, names, Resource.name,
                                                          Resource.attr_data)}
    data.update(fresh or {})
    return list(loaded.definition.resolve_outputs(attrdata.DataContext(data)))


def _cloud_output_resources(loaded: Loaded) -> set[str]:
    """Output resources whose plugins read a cloud (``cloud_validation``), nested kinds left
    out: those whose attributes :func:`_refreshed_attributes` reads again. O(outputs), no I/O."""
    resources = loaded.definition.resources
    out = set()
    for name in loaded.definition.output_resources():
        rdef = resources.get(name)
        cls = registry.get(getattr(rdef, "implementation", rdef.type)) if rdef else None
        if cls is not None and getattr(cls, "cloud_validation", False) \
                and not groups.kind(rdef):
            out.add(name)
    return out


def _refreshed_attributes(s: Session, st: Stack, loaded: Loaded) -> dict[str, tuple[int, Any]]:
    """Read again the attributes the outputs use of the cloud resources they name: a volume's
    status or attachments change when a later resource attaches it, and Heat resolves outputs
    from the live resources. O(cloud output resources) cloud reads, at the end of a traversal
    only; a resource that cannot be read keeps what it stored.
    :returns: name -> (row id, its new ``attr_data``)."""
    names = _cloud_output_resources(loaded)
    if not names:
        return {}
    rows = s.execute(select(Resource).where(Resource.stack_id == st.id,
                                            Resource.name.in_(list(names)),
                                            Resource.physical_resource_id.is_not(None),
                                            Resource.status == Status.COMPLETE)).scalars()
    fresh: dict[str, tuple[int, Any]] = {}
    for r in rows:
        row = ResourceRow.of(r)
        cls = registry.get(row.impl())
        if cls is None or not getattr(cls, "cloud_validation", False) or row.nested_kind:
            continue
        try:
            plugin = plugins.registry_plugin(row, st, r.properties_data)
            if plugin.show_resource() is None:  # gone, or unreadable: keep what is stored
                continue
        except Exception as exc:
            log.info("outputs of %s keep %s's stored attributes: %s", st.id, r.name, exc)
            continue
        fresh[r.name] = (r.id, attrdata.attr_data(
            plugin, loaded.definition.referenced_attributes(r.name)))
    return fresh


def store_refreshed(s: Session, fresh: dict[str, tuple[int, Any]]) -> None:
    """Write the ``attr_data`` read again (name -> (row id, value)) in ``s``."""
    for rid, data in fresh.values():
        s.execute(update(Resource).where(Resource.id == rid).values(attr_data=data))


def refreshed(s: Session, st: Stack, loaded: Loaded) -> list[dict[str, Any]]:
    """The outputs a finishing traversal stores, the cloud attributes they use read again
    (:func:`_refreshed_attributes`) and written in ``s``."""
    fresh = _refreshed_attributes(s, st, loaded)   # may read the cloud: before the row lock
    store_refreshed(s, fresh)
    return resolve_outputs(s, st.id, loaded, {n: d for n, (_, d) in fresh.items()})


#: the columns of the stack row a finishing traversal decides from before its transaction
#: (:func:`committed`; built once)
_FINISHING = cast("Select[Any]", select(
    Stack.id, Stack.name, Stack.tenant, Stack.raw_template_id, Stack.current_traversal,
    Stack.action, Stack.status, Stack.pending_nodes, Stack.failed
).where(Stack.id == bindparam("sid")))


@dataclass
class Early:
    """What a finishing traversal reads before its transaction: ``row``, the committed stack
    row's columns of :data:`_FINISHING`; the outputs it computed from it, if wanted
    (``loaded`` and ``outputs``, or None), and ``fresh`` (name -> (row id, its ``attr_data``
    read again)), written by that transaction (:func:`store_refreshed`)."""
    row: Any
    loaded: Loaded | None = None
    outputs: list[dict[str, Any]] | None = None
    fresh: dict[str, tuple[int, Any]] = field(default_factory=dict)


def committed(stack_id: str, loaded: Loaded | None, finishing: Callable[[Any], bool],
              wanted: Callable[[Session, Any], bool]) -> Early | None:
    """The committed stack row of a finishing traversal (:data:`_FINISHING`'s columns) and, if
    ``wanted``, its outputs (:func:`refreshed`) computed from what is committed, before the
    caller's transaction reads anything: on PostgreSQL a transaction left idle longer than the
    engine lease is ended by the server, and a group's child resolves an output per member
    (100,000 take longer than that on a loaded host). None: the committed row is not
    ``finishing`` (the caller's own transaction reads it, and computes the outputs itself).
    One read of the stack row (a Core read, no ORM instance), then the outputs' reads."""
    with read_connection() as c:
        st = first_row(c, _FINISHING, {"sid": stack_id})
    if st is None or not finishing(st):
        return None
    with read_session() as r:
        if not wanted(r, st):
            return Early(st)
    if loaded is None:
        loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    with read_session() as r:
        fresh = _refreshed_attributes(r, st, loaded)
        return Early(st, loaded, resolve_outputs(r, st.id, loaded,
                                                 {n: d for n, (_, d) in fresh.items()}), fresh)
