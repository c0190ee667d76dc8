"""Outputs that read attributes which change with no action of the engine (a workflow's
``executions`` as they run, a cron trigger's ``remaining_executions`` as it fires).

Heat resolves every output live when a stack is shown; Stoker keeps the outputs resolved at the
end of the last traversal. For the types that declare ``live_attributes``, those attributes are
read again when the outputs are asked for, and the outputs resolved with them (nothing is
written). A stack without outputs costs no query, one without such resources one indexed query.
"""
from __future__ import annotations

import functools
import json
import logging
from typing import Any

from sqlalchemy import Select, bindparam, select

from app.convergence import plugins
from app.convergence.store import attrdata, definitions
from app.convergence.store.rows import ResourceRow
from app.engine.states import Status
from app.models import Resource, Stack, read_session
from app.resource_types import registry

log = logging.getLogger(__name__)

@functools.cache
def _live_types() -> frozenset[str]:
    return frozenset(name for name in registry.types()
                     if getattr(registry.get(name), "live_attributes", None))


@functools.cache
def _live_ids() -> Select[tuple[int]]:
    """The ids of a stack's created resources of a live type (``stack_id`` bound at execution):
    built once, and one narrow row, as most stacks have none."""
    return select(Resource.id).where(
        Resource.stack_id == bindparam("stack_id"), Resource.type.in_(_live_types()),
        Resource.physical_resource_id.is_not(None), Resource.status == Status.COMPLETE)


def refreshed(stack: Stack, stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``stored`` (the outputs as last resolved), or the outputs resolved again when they name
    a live attribute of a resource of the stack. O(such resources) cloud reads; an attribute
    that cannot be read keeps its stored value; no outputs, no query."""
    if not stored:
        return stored
    with read_session() as s:
        ids = list(s.execute(_live_ids(), {"stack_id": stack.id}).scalars())
        if not ids:
            return stored
        rows = s.execute(select(Resource).where(
            Resource.id.in_(ids), Resource.physical_resource_id.is_not(None),
            Resource.status == Status.COMPLETE)).scalars().all()
        loaded = definitions.load(stack.id, stack.raw_template_id, stack.name, stack.tenant)
        names = loaded.definition.output_resources()
        rows = [r for r in rows if r.name in names]
        if not rows:
            return stored
        data: dict[str, Any] = {r.name: r.attr_data for r in s.execute(select(
            Resource.name, Resource.attr_data).where(Resource.stack_id == stack.id,
                                                     Resource.name.in_(list(names))))}
        live = [(ResourceRow.of(r), dict(r.properties_data or {})) for r in rows]
    for row, props in live:
        cls = registry.get(row.impl())
        entry = dict(data.get(row.name) or {})
        attrs = dict(entry.get("attrs") or {})
        try:
            plugin = plugins.registry_plugin(row, stack, props)
        except Exception as exc:
            log.info("outputs of %s keep %s's stored attributes: %s", stack.id, row.name, exc)
            continue
        for name in getattr(cls, "live_attributes", ()):
            if name not in attrs:   # not referenced: not stored, not needed
                continue
            try:
                attrs[name] = json.loads(json.dumps(plugin.resolve_attribute(name), default=str))
            except Exception as exc:
                log.info("output attribute %s of %s kept: %s", name, row.name, exc)
        data[row.name] = {**entry, "attrs": attrs}
    return list(loaded.definition.resolve_outputs(attrdata.DataContext(data)))
