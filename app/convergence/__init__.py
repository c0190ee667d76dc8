"""The convergence runtime: one step of one node at a time, on Celery workers (DESIGN.md).

Public entry points (what ``app.services`` and ``app.tasks`` call):

- :func:`check_resource` — one step of node ``(resource, is_update)`` of a traversal
  (:func:`check_resources`: several, one after another);
- :func:`wake` — an outside event happened for a waiting node (a child stack finished, a
  signal arrived): enqueue its step now;
- :func:`start_create`, :func:`start_update`, :func:`start_reverse` — start a traversal inside
  the caller's transaction; :func:`stack_timeout`, :func:`timer_fired` — timeouts;
- :func:`check_timeouts`, :func:`reconcile` — the periodic sweeps (Celery beat); :func:`redrive`
  — every in-flight node at once, after the broker lost messages;
  :func:`unsettled_after` — what a step delivered again re-drives after its own node.

Inside, imports go one way: ``check`` -> steps (``create``, ``update``, ``delete``,
``cleanup``, ``replaced``) -> ``nested`` -> ``outcome`` (the one applier) -> ``traversal`` ->
stores (``syncpoints``, ``events``, ``locks``, ``definitions``) and ``dispatch``.
"""
from __future__ import annotations

from app.convergence import inline
from app.convergence.check import check_resource, check_resources, requeue
from app.convergence.reconciler import check_timeouts, reconcile, redrive, unsettled_after
from app.convergence.traversal import (
    stack_timeout,
    start_create,
    start_reverse,
    start_update,
    start_update_rollback,
    timer_fired,
)
from app.convergence.wakeups import child_stack_event, wake

InlineDispatcher = inline.InlineDispatcher

__all__ = ["InlineDispatcher", "check_resource", "check_resources", "check_timeouts", "child_stack_event",
           "reconcile", "redrive", "requeue", "stack_timeout", "start_create", "start_reverse", "start_update",
           "start_update_rollback", "timer_fired", "unsettled_after", "wake"]
