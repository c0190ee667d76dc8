"""One step of one traversal node: Heat's convergence ``check_resource``, on Celery.

Called by the thin task ``app.tasks.worker.check_resource`` (or in-process by the inline
dispatcher).
Reading down: the node store reads the node and takes its lock by compare-and-swap
(:meth:`~app.convergence.store.nodes.NodeStore.begin`; superseded, not FIRED or held: no
step), its step returns an outcome (:func:`app.convergence.steps.run.run`), and the one
applier writes it (:func:`app.convergence.outcome.apply`). Each call does a bounded amount
of work: it never sleeps on a cloud (DESIGN.md, invariant 4) and costs O(degree) queries
(invariant 5).
"""
from __future__ import annotations

import logging

from app.convergence import outcome, runtime
from app.convergence.outcome import Node, Result
from app.convergence.steps import run, stopped
from app.convergence.store import lease, locks
from app.convergence.store import nodes as node_store
from app.convergence.store.rows import ResourceRow, StepStack
from app.convergence.store.starts import lock_fired

log = logging.getLogger(__name__)
LOCK_RETRY_SECONDS = 0.1


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
    node = node_store.current().begin(stack_id, traversal_id, resource_id, is_update)
    if isinstance(node, Node):
        outcome.apply(node, run.run(node))
    elif node is node_store.Skip.SUPERSEDED:  # a stopped traversal's action may still finish
        outcome.settled(stopped.settle(stack_id, traversal_id, resource_id, is_update))
    elif node is node_store.Skip.BUSY:
        runtime.dispatcher().check_resource(stack_id, traversal_id, resource_id, is_update,
                                            countdown=LOCK_RETRY_SECONDS)


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
    with node_store.current().starting() as c:
        locked = lock_fired(c, stack_id, traversal_id, nodes)
    if not locked:
        return nodes
    results: list[tuple[Node, Result]] = []
    for key in nodes:
        if key in locked:
            found, row, given = locked[key]
            node = Node(StepStack.of(found), ResourceRow.of(row), traversal_id, key[1],
                        inputs=dict(given))
            results.append((node, run.run(node)))
    for node in outcome.apply_many(results):
        requeue(stack_id, traversal_id, *node.key)
    return [key for key in nodes if key not in locked]
