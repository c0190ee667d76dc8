"""The names an engine step's label shows (:mod:`app.tasks.labels`), read by id."""
from __future__ import annotations

from sqlalchemy import select

from app import errors
from app.models import Resource, Stack, read_session

#: ids per read (below SQLite's bound-parameter limit)
CHUNK = 500


def stack_names(stack_id: str) -> tuple[str, str, str]:
    """``(tenant, name, action)`` of the stack, in one read.
    :raises errors.NotFound: no such stack."""
    with read_session() as s:
        row = s.execute(select(Stack.tenant, Stack.name, Stack.action)
                        .where(Stack.id == stack_id)).first()
    if row is None:
        raise errors.NotFound("Stack", stack_id)
    return str(row.tenant), str(row.name), str(row.action)


def resource_names(stack_id: str, resource_ids: list[int]) -> dict[int, str]:
    """``{resource id: name}`` of those of the stack's resources that exist: one read per
    :data:`CHUNK` ids."""
    names: dict[int, str] = {}
    with read_session() as s:
        for i in range(0, len(resource_ids), CHUNK):
            chunk = resource_ids[i:i + CHUNK]
            for rid, name in s.execute(select(Resource.id, Resource.name).where(
                    Resource.stack_id == stack_id, Resource.id.in_(chunk))):
                names[int(rid)] = str(name)
    return names
