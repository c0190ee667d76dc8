"""The engine's work as use cases, for the thin Celery tasks (``app.tasks``): ids in, one call.

Each delegates to :mod:`app.convergence`, whose runtime the worker's boot composed
(:func:`app.services.wiring.compose`).
"""
from __future__ import annotations

from app import convergence


def check_resource(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """One step of node ``(resource_id, is_update)`` (:func:`app.convergence.check_resource`)."""
    convergence.check_resource(stack_id, traversal_id, resource_id, is_update)


def check_resources(stack_id: str, traversal_id: str,
                    nodes: list[tuple[int, bool]]) -> None:
    """Several steps of one traversal, one after another (:func:`app.convergence.check_resources`)."""
    convergence.check_resources(stack_id, traversal_id, nodes)


def unsettled_after(stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                    limit: int) -> list[tuple[int, bool]]:
    """The ended nodes after node ``(resource_id, is_update)`` whose step a redelivered task
    runs again, at most ``limit`` visited (:func:`app.convergence.unsettled_after`)."""
    return convergence.unsettled_after(stack_id, traversal_id, (resource_id, is_update), limit)


def check_timeouts() -> int:
    """Fail traversals past their deadline. :returns: how many."""
    return convergence.check_timeouts()


def reconcile() -> int:
    """Re-drive abandoned nodes from the database. :returns: how many were enqueued."""
    return convergence.reconcile()


def redrive() -> int:
    """Re-enqueue every in-flight node at once, after the broker lost messages
    (:func:`app.convergence.redrive`). :returns: how many were enqueued."""
    return convergence.redrive()


def start_lease() -> None:
    """Start this process's heartbeat and dead-engine sweep (:mod:`app.convergence.store.lease`)
    now rather than at its first step: a worker started after every other died takes their
    work over at once."""
    convergence.start_lease()


def end_lease() -> bool:
    """A clean stop of this process's engine (:func:`app.convergence.end_lease`): its heartbeat
    ends and its row goes unless it holds locks. :returns: whether the row went."""
    return convergence.end_lease()


def wake(stack_id: str, resource_id: int, event: str) -> int:
    """An outside event for a waiting node (:func:`app.convergence.wake`)."""
    return convergence.wake(stack_id, resource_id, event)


def enqueue_step(stack_id: str, traversal_id: str, resource_id: int, is_update: bool) -> None:
    """Log the error being handled and send one node's step as a task of its own, shortly (a
    step a task kept for itself and could not run: :func:`app.convergence.requeue`)."""
    convergence.requeue(stack_id, traversal_id, resource_id, is_update)
