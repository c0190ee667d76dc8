"""One step of one traversal node: Heat's convergence ``check_resource``, on Celery.

Called by the thin task ``app.tasks.check_resource`` (or in-process by the inline dispatcher).
The step itself (:mod:`create`, :mod:`update`, :mod:`delete`, :mod:`cleanup`) returns an
outcome, and :func:`app.convergence.outcome.apply` applies it.
Each call does a bounded amount of work and returns: it never sleeps on a cloud; an unfinished
action is persisted and re-enqueued with a countdown (DESIGN.md, invariant 4). Cost per call is
O(degree) queries (invariant 5). Steps:

1. stop if the stack's current traversal is not this one (superseded), or the node is not FIRED;
2. take the resource lock (compare-and-swap), else retry shortly;
3. forward: resolve properties from the snippet and the predecessors' passed-on data, create,
   poll; reverse: delete (honouring deletion_policy), poll;
4. apply the outcome: finished → one transaction writes the resource, its event, the
   successors' sync points, and the stack-level count — then the successors that became ready
   are enqueued; not finished → persist the handle and poll, or wait for the event.
"""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, and_, bindparam, select, tuple_, update

from app import errors
from app.convergence import outcome, runtime, traversal
from app.convergence.outcome import Node, Outcome
from app.convergence.steps import actions, adopt, cleanup, create, delete, stopped
from app.convergence.steps import update as updating
from app.convergence.store import definitions, lease, locks, syncpoints
from app.convergence.store.group_commit import GroupCommit, indexes_by
from app.convergence.store.rows import ResourceRow, StepStack, table
from app.engine.states import Action, NodeState
from app.models import (
    Resource,
    Stack,
    SyncPoint,
    autocommit,
    concurrent_writers,
    read_session,
    session,
)

log = logging.getLogger(__name__)
LOCK_RETRY_SECONDS = 0.1

RT = table(Resource)
ST = table(Stack)
SP = table(SyncPoint)

#: What a step reads of its stack and its node's sync point (:class:`StepStack`)
_STEP_COLUMNS = (ST.c.id, ST.c.name, ST.c.tenant, ST.c.raw_template_id, ST.c.current_traversal,
                 ST.c.action, ST.c.nested_depth, ST.c.failed, ST.c.disable_rollback,
                 ST.c.timeout_mins, ST.c.traversal_started_at,
                 SP.c.state, SP.c.expected, SP.c.succ)
#: The first statement of every step, built once: the stack, this node's sync point and its
#: resource's ``atomic_key`` (read in one snapshot with the stack's current traversal)
_READ = (select(*_STEP_COLUMNS, RT.c.atomic_key)
         .select_from(ST.outerjoin(SP, and_(SP.c.stack_id == ST.c.id,
                                            SP.c.traversal_id == ST.c.current_traversal,
                                            SP.c.entity_id == bindparam("rid"),
                                            SP.c.is_update == bindparam("upd")))
                      .outerjoin(RT, RT.c.id == SP.c.entity_id))
         .where(ST.c.id == bindparam("sid")))
#: A batch's first statement: the stack and several of its nodes' sync points (built once).
#: The sync points are found by their key (entity, traversal): a traversal id is its stack's
#: own, and naming the stack too made SQLite read every sync point of the stack (a scan per
#: batch, quadratic in a 100,000-member group)
_READ_MANY = (select(*_STEP_COLUMNS, SP.c.entity_id, SP.c.is_update, RT.c.atomic_key)
              .select_from(ST.join(SP, SP.c.traversal_id == ST.c.current_traversal)
                           .join(RT, RT.c.id == SP.c.entity_id))
              .where(ST.c.id == bindparam("sid"), ST.c.current_traversal == bindparam("tid"),
                     SP.c.entity_id.in_(bindparam("rids", expanding=True))))
#: Take the free locks of several resources at the keys read with the stack, returning their
#: rows (built once). ``ids`` lets SQLite find the rows by primary key (with the pairs alone
#: it scanned the whole resource table per batch)
_LOCK_MANY = (update(RT).where(RT.c.id.in_(bindparam("ids", expanding=True)),
                               tuple_(RT.c.id, RT.c.atomic_key)
                               .in_(bindparam("keys", expanding=True)),
                               RT.c.engine_id.is_(None))
              .values(engine_id=bindparam("eid"), atomic_key=RT.c.atomic_key + 1)
              .returning(*RT.c))
#: Take the resource's lock if it is free and its key is the one read with the stack: a new
#: traversal that settled the row at its start moved the key on
#: (:func:`app.convergence.unchanged.settle`). Returns the row (built once).
_LOCK = (update(RT).where(RT.c.id == bindparam("rid"), RT.c.engine_id.is_(None),
                          RT.c.atomic_key == bindparam("key"))
         .values(engine_id=bindparam("eid"), atomic_key=RT.c.atomic_key + 1)
         .returning(*RT.c))


@contextlib.contextmanager
def _starting() -> Iterator[Connection]:
    """The connection a step starts on: reading the stack, its node and its resource's key,
    then taking the lock at that key (and reading the node's inputs). On PostgreSQL each
    statement commits on its own: the compare-and-swap on ``atomic_key`` is what makes the
    read and the lock one decision, so no transaction is needed around them (and a step saves
    its BEGIN and COMMIT round trips). On SQLite, one transaction, as the single writer wants."""
    if concurrent_writers():
        with autocommit() as conn:
            yield conn
    else:
        with session() as s:
            yield s.connection()


def check_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """Run one step of node ``(resource_id, is_update)`` of ``traversal_id``.

    The usual path is one transaction that reads the stack and the node's state and takes the
    resource lock (``UPDATE ... RETURNING`` the row), then the step, then one transaction that
    applies its outcome. Idempotent: a redelivered call for a finished node counts it if it was
    not counted yet and re-enqueues only successors that fired but have not finished; a call for a superseded
    traversal does nothing.
    """
    lease.ensure_heartbeat()
    with locks.working([resource_id]):
        _check_resource(stack_id, traversal_id, resource_id, is_update)


def _check_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    if concurrent_writers():
        started = _STARTS.submit((stack_id, traversal_id, resource_id, is_update))
        if started is not None:  # read, FIRED and locked with the others that came together
            found_row, locked, given = started
            _run(Node(StepStack.of(found_row), ResourceRow.of(locked), traversal_id,
                      is_update, inputs=given))
            return
    row = None
    inputs: dict[str, object] = {}
    with _starting() as c:
        found = c.execute(_READ, {"rid": resource_id, "upd": is_update, "sid": stack_id}).first()
        stale = found is not None and found.current_traversal != traversal_id
        if found is not None and not stale:
            st = StepStack.of(found)
            if st.state == NodeState.FIRED:
                row = c.execute(_LOCK, {"rid": resource_id, "key": found.atomic_key,
                                        "eid": locks.engine_id()}).first()
                if row is not None and is_update and st.expected:
                    try:
                        inputs = syncpoints.inputs(c, traversal_id, is_update, resource_id)
                    except Exception:  # the lock committed on its own (PostgreSQL)
                        locks.release(resource_id, row.atomic_key)
                        raise
    if stale:  # superseded; a stopped traversal's action still running may finish
        stopped.settle(stack_id, traversal_id, resource_id, is_update)
    if found is None or stale:
        return
    if st.state == NodeState.DONE:
        with read_session() as s:
            done_row = s.connection().execute(select(RT).where(RT.c.id == resource_id)).first()
        if done_row is not None:
            outcome.ended_again(Node(st, ResourceRow.of(done_row), traversal_id, is_update))
        return
    if st.state != NodeState.FIRED:
        return
    if row is None:  # held: by a live engine (retry soon) or a dead one (take it over); or
        # its key moved since the read (another step came and went, or a newer traversal)
        if locks.acquire(resource_id) is False:
            runtime.dispatcher().check_resource(stack_id, traversal_id, resource_id, is_update,
                                          countdown=LOCK_RETRY_SECONDS)
            return
        with read_session() as s:
            row = s.connection().execute(select(RT).where(RT.c.id == resource_id)).first()
            current = s.connection().execute(select(ST.c.current_traversal).where(
                ST.c.id == stack_id)).scalar()
            if is_update and st.expected:
                inputs = syncpoints.inputs(s, traversal_id, is_update, resource_id)
        if current != traversal_id:  # superseded meanwhile
            locks.release(resource_id, None if row is None else row.atomic_key)
            stopped.settle(stack_id, traversal_id, resource_id, is_update)
            return
        if row is None:
            return
    _run(Node(st, ResourceRow.of(row), traversal_id, is_update, inputs=dict(inputs)))


def _run(node: Node) -> None:
    """The locked node's step and its outcome; the lock is released if either raises. A step
    whose lock was taken over (its lease ran out: :class:`errors.LeaseLost`) stops quietly."""
    try:
        outcome.apply(node, _step(node))
    except errors.LeaseLost:
        lost(node)
    except Exception:
        locks.release(node.resource.id, node.resource.atomic_key)
        raise


def lost(node: Node) -> None:
    """Log that ``node``'s step lost its lock: its lease ran out and another engine took the
    node over (nothing of the step was written)."""
    log.warning("resource %s: this engine's lock (key %s) was taken over after its lease ran "
                "out; its step stops and writes nothing", node.resource.id,
                node.resource.atomic_key)


_Started = tuple[Any, Any, dict[str, Any]] | None


def _start_group(items: list[tuple[str, str, int, bool]]) -> list[_Started | BaseException]:
    """:data:`_STARTS`'s write (PostgreSQL): the steps of this process that start together,
    per stack and traversal: their stack and sync points read in one statement, the locks of
    the FIRED ones taken in one more at the keys read (the same compare-and-swap as
    :func:`check_resource`'s), their inputs in a third.

    :returns: per item ``(the read row, the locked resource row, its inputs)``; None for an
        item this path does not start (not FIRED, its lock held, a superseded traversal, its
        stack gone, or the group's statements failed): it takes :func:`check_resource`'s own
        path, which tells those cases apart."""
    out: list[_Started | BaseException] = [None] * len(items)
    for (sid, tid), idx in indexes_by(items, lambda item: (item[0], item[1])).items():
        keys = [(items[i][2], items[i][3]) for i in idx]
        try:
            with autocommit() as c:
                locked = _lock_fired(c, sid, tid, keys)
        except Exception:
            log.exception("%d steps could not start together; starting them one by one",
                          len(keys))
            continue
        for i, key in zip(idx, keys):
            out[i] = locked.get(key)
    return out


def _lock_fired(c: Connection, stack_id: str, traversal_id: str,
                nodes: list[tuple[int, bool]]) -> dict[tuple[int, bool], tuple[Any, Any, Any]]:
    """Of ``nodes`` of one traversal, the FIRED ones whose locks were free: their stack and
    sync points read in one statement, their locks taken in one more at the keys read (the
    same compare-and-swap as :func:`check_resource`'s), their inputs read in a third.

    :returns: ``{node: (the read row, the locked resource row, its inputs)}``; empty when a
        resource is named twice (forward and reverse: one by one). If the inputs cannot be
        read, the locks taken (committed on their own on PostgreSQL) are released."""
    ids = [rid for rid, _ in nodes]
    if len(set(ids)) != len(ids):
        return {}
    wanted = set(nodes)
    fired = {(r.entity_id, bool(r.is_update)): r for r in c.execute(
        _READ_MANY, {"sid": stack_id, "tid": traversal_id, "rids": ids})
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


#: The steps of this process that start together read and lock in one group
#: (:mod:`app.convergence.store.group_commit`)
_STARTS: GroupCommit[tuple[str, str, int, bool], _Started] = GroupCommit(_start_group)


def check_resources(stack_id: str, traversal_id: str, nodes: list[tuple[int, bool]]) -> None:
    """Run the steps of several nodes of one traversal, one after another, each as
    :func:`check_resource` runs it (a wide fan-out's batch, :func:`dispatch.batches`).

    The usual path reads the stack and every node's sync point and takes all the free locks in
    one transaction, runs each step, then writes every finished one in one more transaction
    (:func:`outcome.apply_many`; a poll or a wait is applied on its own). A
    node in any other case (not FIRED, its lock held, a superseded traversal) takes
    :func:`check_resource`'s own path. A step that raises does not stop the others: it is
    enqueued again on its own (where the task's retries apply) and the error is logged. A
    redelivered batch repeats only what had not finished (every step is idempotent, DESIGN.md
    invariant 1)."""
    rest = _run_locked(stack_id, traversal_id, nodes) if len(nodes) > 1 else nodes
    for resource_id, is_update in rest:
        try:
            check_resource(stack_id, traversal_id, resource_id, is_update)
        except Exception:
            requeue(stack_id, traversal_id, resource_id, is_update)


def requeue(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """Log the error being handled and enqueue the node's step again on its own, shortly (a
    step of a batch, or one a task kept for itself, that raised: the single task's retries
    then apply). Call it from an ``except`` block."""
    log.exception("step of resource %s in traversal %s failed; enqueued again alone",
                  resource_id, traversal_id)
    runtime.dispatcher().check_resource(stack_id, traversal_id, resource_id, is_update,
                                  countdown=LOCK_RETRY_SECONDS)


def _run_locked(stack_id: str, traversal_id: str,
                nodes: list[tuple[int, bool]]) -> list[tuple[int, bool]]:
    """Run the batch's FIRED nodes whose locks were free, all locked in one transaction;
    :returns: the nodes left for the one-by-one path, in their order."""
    lease.ensure_heartbeat()
    with locks.working(sorted({rid for rid, _ in nodes})):
        return _run_fired(stack_id, traversal_id, nodes)


def _run_fired(stack_id: str, traversal_id: str,
               nodes: list[tuple[int, bool]]) -> list[tuple[int, bool]]:
    with _starting() as c:
        locked = _lock_fired(c, stack_id, traversal_id, nodes)
    if not locked:
        return nodes
    rest: list[tuple[int, bool]] = []
    results: list[tuple[Node, Outcome]] = []
    for key in nodes:
        if key not in locked:
            rest.append(key)
            continue
        found, row, given = locked[key]
        node = Node(StepStack.of(found), ResourceRow.of(row), traversal_id, key[1],
                    inputs=dict(given))
        try:
            results.append((node, _step(node)))
        except errors.LeaseLost:
            lost(node)
        except Exception:
            locks.release(key[0], node.resource.atomic_key)
            requeue(stack_id, traversal_id, *key)
    for node in outcome.apply_many(results):
        locks.release(node.resource.id, node.resource.atomic_key)
        requeue(stack_id, traversal_id, *node.key)
    return rest


def _load(node: Node) -> None:
    st = node.stack
    node.loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)


def _step(node: Node) -> Outcome:
    """The node's step: forward (create, or update), cleanup (an update's reverse node), or
    delete (a DELETE or a create's ROLLBACK; its template is not needed, nor loaded)."""
    action = node.stack.action
    if action in actions.ACTIONS:
        return actions.step(node)
    if action == Action.ADOPT and node.is_update:
        _load(node)
        return adopt.forward(node)
    if node.is_update:
        _load(node)
        return create.forward(node) if action == Action.CREATE else updating.forward(node)
    if action in (Action.UPDATE, Action.RESTORE) or (action == Action.ROLLBACK
                                                     and _update_shaped(node.traversal_id)):
        _load(node)
        return cleanup.step(node)
    return delete.step(node)


def _update_shaped(traversal_id: str) -> bool:
    """Whether a ROLLBACK traversal rolls an update back (it has forward nodes) rather than a
    create (reverse nodes only)."""
    with read_session() as s:
        return traversal.has_forward_nodes(s, traversal_id)
