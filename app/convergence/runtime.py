"""The process's composition: what the runtime calls that its own layer does not implement.

A :class:`Runtime` holds the dispatcher and the hooks the use cases provide (nested stacks,
scaling, event sinks). ``app.services.wiring.compose`` builds one; each process's factory or
boot function makes it the process's with one :func:`configure` call: the API
(``app.api.create_app``), the CFN API (``app.cfn.create_app``), a worker
(``app.tasks.worker``'s ``worker_init``); beat runs no engine code. Nothing is installed on import.

One holder for the process, not an argument: the hooks are used at the bottom of every step (an
event written, a node enqueued, a child stack ending), a task carries ids only, and a process
keeps one runtime for its life. :func:`current` refuses to run in a process nobody composed.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.convergence.dispatch import Dispatcher
from app.convergence.nested.child_stacks import ChildStacks
from app.resource_types.heat_autoscaling import Adjuster

#: ``fn(event_row)``, after the transaction that wrote the event committed
EventObserver = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Runtime:
    """Everything a process's runtime calls beyond its own layer.

    - ``dispatcher``: how work is enqueued (Celery's; the in-process one under ``always_eager``);
    - ``child_stacks``: creates and updates nested stacks (:mod:`.child_stacks`);
    - ``scaling_adjuster``: what a scaling policy's signal calls to resize its group;
    - ``group_completed(stack_id, resource_id, load_balancer_names)``: an autoscaling group
      with ``LoadBalancerNames`` finished its create or update (Heat's ``_lb_reload``);
    - ``child_unclaimed(parent_stack_id, resource_id)``: a child stack ended, no node of its
      parent waiting for it (a scaling group's resize);
    - ``event_observers``: called with every event row this process writes, once committed;
    - ``run_job(name, args)``: a use case's job (task ``stoker.<name>``; inline when eager);
    - ``environment_read(stack_id, stack_name, tenant, environment)``: a step read a stack's
      stored environment (the event sinks keep it: its events then cost no read of their own).
    """

    dispatcher: Dispatcher
    child_stacks: ChildStacks
    scaling_adjuster: Adjuster
    group_completed: Callable[[str, int, list[str]], object]
    child_unclaimed: Callable[[str, int], None]
    event_observers: tuple[EventObserver, ...] = ()
    run_job: Callable[[str, tuple[Any, ...]], None] = lambda name, args: None
    environment_read: Callable[[str, str, str, Any], object] = lambda *args: None


_current: Runtime | None = None


def configure(rt: Runtime | None) -> Runtime | None:
    """Make ``rt`` this process's runtime (None: none). :returns: the one it replaces."""
    global _current
    previous, _current = _current, rt
    return previous


def current() -> Runtime:
    """This process's runtime.

    :raises RuntimeError: the process was not composed (build it through its factory:
        ``app.api.create_app``, ``app.cfn.create_app``, the worker's boot)."""
    if _current is None:
        raise RuntimeError("this process has no runtime: build it through its factory "
                           "(app.api.create_app, app.cfn.create_app, a Celery worker of "
                           "app.tasks), which composes one (app.services.wiring.compose)")
    return _current


def dispatcher() -> Dispatcher:
    """This process's dispatcher (:func:`current`'s). :raises RuntimeError: not composed."""
    return current().dispatcher
