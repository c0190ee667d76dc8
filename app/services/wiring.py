"""Composition: the complete runtime of one process, built by its factory.

:func:`compose` is called by every factory and boot function, which then makes its result the
process's (:func:`app.convergence.runtime.configure`): the API (``app.api.create_app``), the
CFN API (``app.cfn.create_app``), a Celery worker (``app.tasks.worker``). It joins the
runtime to the use cases it may not import: nested stacks (:mod:`.children`), scaling
(:mod:`.scaling`), event sinks (:mod:`.event_sinks`) and change sets' outcomes
(:mod:`.change_sets`).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app import config, errors
from app.convergence.dispatch import Dispatcher
from app.convergence.inline import InlineDispatcher
from app.convergence.runtime import Runtime
from app.services import change_sets, children, drift, event_sinks, scaling

NO_DISPATCHER = ("no dispatcher: outside always_eager the API is served through "
                 "'app.cli.wsgi:create_app()' (the CFN API through "
                 "'app.cli.wsgi:create_cfn_app()'), which hand it Celery's")


def compose(settings: config.Settings, dispatcher: Dispatcher | None = None) -> Runtime:
    """The runtime of a process with ``settings``: ``dispatcher`` (Celery's, from ``app.tasks``,
    in API and worker processes; None: the in-process
    :class:`~app.convergence.inline.InlineDispatcher`, only under ``always_eager``), the
    nested-stack port, the scaling hooks and the event sinks. Builds objects only: no I/O,
    nothing made process-wide.

    :raises errors.StokerError: ``NoDispatcher``, none given outside ``always_eager`` (every
        stack operation would fail).
    """
    if dispatcher is None:
        if not settings.always_eager:
            raise errors.StokerError(NO_DISPATCHER, heat_type="NoDispatcher")
        dispatcher = InlineDispatcher()
    job = getattr(dispatcher, "job", None)
    return Runtime(dispatcher=dispatcher, run_job=job if callable(job) else run_inline,
                   child_stacks=children.ServiceChildStacks(),
                   scaling_adjuster=scaling.adjust,
                   group_completed=scaling.reload_load_balancers,
                   child_unclaimed=scaling.child_ended,
                   event_observers=(event_sinks.publish, change_sets.observe),
                   environment_read=event_sinks.remember)


#: the use cases' background jobs, by the name of their task (``stoker.<name>``)
JOBS: dict[str, Callable[..., None]] = {"detect_drift": drift.run}


def run_inline(name: str, args: tuple[Any, ...]) -> None:
    """Run job ``name`` now, in this process (``always_eager``)."""
    JOBS[name](*args)
