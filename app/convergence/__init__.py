"""The convergence runtime: one step of one node at a time, on Celery workers (DESIGN.md).

Sub-packages: ``steps`` (what a node does for its action), ``nested`` (child stacks and
groups, one strategy per kind), ``store`` (rows, locks, sync points, events, batched writes).
Imports go one way: ``check`` -> ``steps`` -> ``nested`` -> ``outcome`` (the one applier) ->
``traversal`` -> ``store`` and ``dispatch``. More in docs/code/convergence.md.
"""
from __future__ import annotations

from app.convergence import inline
from app.convergence.check import check_resource, check_resources, requeue
from app.convergence.reconciler import check_timeouts, reconcile, redrive, unsettled_after
from app.convergence.store.lease import ensure_heartbeat as start_lease
from app.convergence.store.lease import release as end_lease
from app.convergence.traversal import (
    stack_timeout,
    start_create,
    start_reverse,
    start_update,
    start_update_rollback,
)
from app.convergence.wakeups import child_stack_event, wake

InlineDispatcher = inline.InlineDispatcher

__all__ = ["InlineDispatcher", "check_resource", "check_resources", "check_timeouts", "child_stack_event",
           "end_lease", "reconcile", "redrive", "requeue", "stack_timeout", "start_create", "start_lease",
           "start_reverse", "start_update",
           "start_update_rollback", "unsettled_after", "wake"]
