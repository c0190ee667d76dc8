"""How a step's node is read and locked at its start: the statements of the node store's
:meth:`~app.convergence.store.nodes.NodeStore.begin` (one node) and of a batch's start
(:func:`lock_fired`, several nodes of one traversal).

A step reads its stack, its node's sync point and its resource's ``atomic_key`` in one
statement, then takes the resource's lock by compare-and-swap at that key (DESIGN.md,
invariant 2), then reads the data its predecessors passed on. A lock taken and not followed by
its inputs is released at once (on PostgreSQL it committed on its own).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, and_, bindparam, select, tuple_, update

from app.convergence.results import NodeKey
from app.convergence.store import locks, syncpoints
from app.convergence.store.rows import table
from app.engine.states import NodeState
from app.models import Resource, Stack, SyncPoint

RT, ST, SP = table(Resource), table(Stack), table(SyncPoint)
#: ``(the read row, the locked resource row, its inputs)`` of a node started with others
Started = tuple[Any, Any, dict[str, Any]] | None

#: What a step reads of its stack and its node's sync point (:class:`~.rows.StepStack`)
_STEP_COLUMNS = (ST.c.id, ST.c.name, ST.c.tenant, ST.c.raw_template_id, ST.c.current_traversal,
                 ST.c.action, ST.c.nested_depth, ST.c.failed, ST.c.disable_rollback,
                 ST.c.timeout_mins, ST.c.traversal_started_at,
                 SP.c.state, SP.c.expected, SP.c.succ)
#: The first statement of a step, built once: the stack, this node's sync point and its
#: resource's ``atomic_key`` (read in one snapshot with the stack's current traversal)
_READ = (select(*_STEP_COLUMNS, RT.c.atomic_key)
         .select_from(ST.outerjoin(SP, and_(SP.c.stack_id == ST.c.id,
                                            SP.c.traversal_id == ST.c.current_traversal,
                                            SP.c.entity_id == bindparam("rid"),
                                            SP.c.is_update == bindparam("upd")))
                      .outerjoin(RT, RT.c.id == SP.c.entity_id))
         .where(ST.c.id == bindparam("sid")))
#: Take the resource's lock if it is free and its key is the one read with the stack: a new
#: traversal that settled the row at its start moved the key on
#: (:func:`app.convergence.unchanged.settle`). Returns the row (built once).
_LOCK = (update(RT).where(RT.c.id == bindparam("rid"), RT.c.engine_id.is_(None),
                          RT.c.atomic_key == bindparam("key"))
         .values(engine_id=bindparam("eid"), atomic_key=RT.c.atomic_key + 1)
         .returning(*RT.c))
#: Several nodes' first statement: the stack and their sync points (built once). The sync
#: points are found by their key (entity, traversal): a traversal id is its stack's own, and
#: naming the stack too made SQLite read every sync point of the stack (a scan per batch)
_READ_MANY = {d: select(*_STEP_COLUMNS, SP.c.entity_id, SP.c.is_update, RT.c.atomic_key)
              .select_from(ST.join(SP, SP.c.traversal_id == ST.c.current_traversal)
                           .join(RT, RT.c.id == SP.c.entity_id))
              .where(ST.c.id == bindparam("sid"), ST.c.current_traversal == bindparam("tid"),
                     syncpoints.ids_in(SP.c.entity_id, "rids", d))
              for d in ("postgresql", "sqlite")}
#: Take the free locks of several resources at the keys read with the stack, returning their
#: rows (built once). ``ids`` lets SQLite find the rows by primary key (with the pairs alone
#: it scanned the whole resource table per batch)
_LOCK_MANY = (update(RT).where(RT.c.id.in_(bindparam("ids", expanding=True)),
                               tuple_(RT.c.id, RT.c.atomic_key)
                               .in_(bindparam("keys", expanding=True)),
                               RT.c.engine_id.is_(None))
              .values(engine_id=bindparam("eid"), atomic_key=RT.c.atomic_key + 1)
              .returning(*RT.c))


def lock_one(c: Connection, stack_id: str, traversal_id: str, resource_id: int,
             is_update: bool) -> tuple[Any, Any, dict[str, Any]]:
    """Read node ``(resource_id, is_update)`` with its stack and, if it is FIRED in the stack's
    current traversal ``traversal_id``, take its lock and read its inputs.

    :returns: ``(the read row or None, the locked resource row or None, its inputs)``."""
    found = c.execute(_READ, {"rid": resource_id, "upd": is_update, "sid": stack_id}).first()
    if found is None or found.current_traversal != traversal_id \
            or found.state != NodeState.FIRED:
        return found, None, {}
    row = c.execute(_LOCK, {"rid": resource_id, "key": found.atomic_key,
                            "eid": locks.engine_id()}).first()
    inputs: dict[str, Any] = {}
    if row is not None and is_update and found.expected:
        try:
            inputs = syncpoints.inputs(c, traversal_id, is_update, resource_id)
        except Exception:
            locks.release(resource_id, row.atomic_key)
            raise
    return found, row, inputs


def lock_fired(c: Connection, stack_id: str, traversal_id: str,
               nodes: list[NodeKey]) -> dict[NodeKey, tuple[Any, Any, Any]]:
    """Of ``nodes`` of one traversal, the FIRED ones whose locks were free: their stack and
    sync points read in one statement, their locks taken in one more at the keys read (the
    compare-and-swap of a step's own start), their inputs read in a third.

    :returns: ``{node: (the read row, the locked resource row, its inputs)}``; empty when a
        resource is named twice (forward and reverse: one by one). If the inputs cannot be
        read, the locks taken (committed on their own on PostgreSQL) are released."""
    if len(nodes) == 1:  # :func:`lock_one`'s statements: no list parameter to expand
        found, row, inputs = lock_one(c, stack_id, traversal_id, *nodes[0])
        return {} if row is None else {nodes[0]: (found, row, inputs)}
    ids = [rid for rid, _ in nodes]
    if len(set(ids)) != len(ids):
        return {}
    wanted = set(nodes)
    fired = {(r.entity_id, bool(r.is_update)): r for r in c.execute(
        _READ_MANY[c.dialect.name], {"sid": stack_id, "tid": traversal_id, "rids": ids})
        if (r.entity_id, bool(r.is_update)) in wanted and r.state == NodeState.FIRED}
    if not fired:
        return {}
    rows = {r.id: r for r in c.execute(_LOCK_MANY, {
        "ids": [rid for rid, _ in fired],
        "keys": [(rid, r.atomic_key) for (rid, _), r in fired.items()],
        "eid": locks.engine_id()})}
    try:
        given = syncpoints.inputs_many(c, traversal_id, [
            key for key, r in fired.items() if key[1] and r.expected and key[0] in rows])
    except Exception:
        for rid, r in rows.items():
            locks.release(rid, r.atomic_key)
        raise
    return {key: (r, rows[key[0]], given.get(key, {})) for key, r in fired.items()
            if key[0] in rows}


def resource_row(c: Connection, resource_id: int) -> Any:
    """The resource's row as it stands (None: gone)."""
    return c.execute(select(RT).where(RT.c.id == resource_id)).first()


def current_traversal(c: Connection, stack_id: str) -> str | None:
    """The stack's current traversal id (None: the stack is gone)."""
    return c.execute(select(ST.c.current_traversal).where(ST.c.id == stack_id)).scalar()
