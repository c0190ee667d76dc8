"""Step outcomes, and the one function that applies them (:func:`apply`).

More in docs/code/convergence.md (app.convergence.outcome).
"""
from __future__ import annotations

import logging

from app import errors
from app.convergence import runtime, timeouts, traversal
from app.convergence.finishing import done, end, ended_again, failed, park, prepare
from app.convergence.results import (
    SET_ROW,
    Done,
    Failed,
    Node,
    NodeKey,
    Outcome,
    Poll,
    Record,
    Start,
    Wait,
    default_action,
    with_events,
)
from app.convergence.store import nodes, pacing
from app.models import utcnow

__all__ = ["SET_ROW", "Done", "Failed", "Node", "NodeKey", "Outcome", "Poll", "Record", "Start",
           "Wait", "apply", "apply_many", "ended_again", "with_events"]
log = logging.getLogger(__name__)


def apply(node: Node, outcome: Outcome) -> None:
    """Apply a step's outcome to its node (the only place that ends, polls or parks one)."""
    if isinstance(outcome, Done):
        done(node, outcome)
    elif isinstance(outcome, Failed):
        failed(node, outcome)
    elif isinstance(outcome, Poll):
        delay, timing = pacing.poll(node.resource, node.stack.action, node.is_update,
                                    outcome.plugin, outcome.handle, outcome.delay,
                                    outcome.start is not None, node.looked, pacing.clock())
        if not park(node, outcome.plugin, outcome.handle, outcome.start, outcome.owner, None,
                    timing, outcome.events):
            return  # its lease ran out: the engine that took it over polls it
        runtime.dispatcher().check_resource(node.stack.id, node.traversal_id, node.resource.id,
                                      node.is_update, countdown=delay)
    else:
        _wait(node, outcome)


def _wait(node: Node, w: Wait) -> None:
    left = timeouts.seconds_left(w.deadline, utcnow())
    if left <= 0 and w.start is None and w.deadline >= node.deadline():
        # the traversal's own deadline (a deployment, a nested stack: no timeout of their
        # own): Heat's stack timeout, "Timed out", whichever of its timer and this poll is first
        traversal.stack_timeout(node.stack.id, node.traversal_id)
        nodes.current().release(node, list(w.events))
        return
    if left <= 0:
        failed(node, Failed(f"{node.resource.name}: timed out waiting for {w.event}",
                             plugin=w.plugin, start=w.start, stack_action=default_action(node),
                             events=w.events))
        return
    if not park(node, w.plugin, w.handle, w.start, w.owner, w.event, rows=w.events):
        return  # its lease ran out: the engine that took it over polls it
    runtime.dispatcher().safety_poll(node.stack.id, node.traversal_id, node.resource.id,
                               node.is_update, min(timeouts.SAFETY_POLL_SECONDS, left))


def apply_many(items: list[tuple[Node, Outcome]]) -> list[Node]:
    """Apply the outcomes of a batch's steps (one traversal): every ``Done`` in one
    transaction (the writes of a wide fan-out's leaves, one commit instead of one each; their
    ready successors enqueued together), the others one by one as :func:`apply` does. If the
    shared transaction fails, nothing of it was written and each is applied alone.

    :returns: the nodes whose outcome raised (the caller releases and re-enqueues them)."""
    finished = [(n, o) for n, o in items if isinstance(o, Done)]
    alone = [(n, o) for n, o in items if not isinstance(o, Done)]
    failed: list[Node] = []
    if len(finished) > 1:
        try:
            failed = nodes.current().finish_together([(n, prepare(n, o)) for n, o in finished],
                                                     end)
            finished = []
        except errors.LeaseLost:  # the others are written one by one, without it
            pass
        except Exception:
            log.exception("a batch of %d finished steps could not be written at once; "
                          "writing them one by one", len(finished))
    for n, o in [*finished, *alone]:
        try:
            apply(n, o)
        except errors.LeaseLost:
            log.warning("resource %s: this engine's lock (key %s) was taken over after its "
                        "lease ran out; its step stops and writes nothing", n.resource.id,
                        n.resource.atomic_key)
        except Exception:
            log.exception("outcome of resource %s failed", n.resource.id)
            failed.append(n)
    return failed
