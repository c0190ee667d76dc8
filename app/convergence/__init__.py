"""The convergence runtime: one step of one node at a time, on Celery workers (DESIGN.md).

More in docs/code/convergence.md (app.convergence).
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
