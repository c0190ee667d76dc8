"""The one applier: what a step's outcome writes and enqueues (:func:`apply`).

A finished node's row, events, successors' sync points and the stack-level count; a failed
node's row and events, its descendants skipped, the stack marked failed; a parked node's handle
and poll timing; every lock released. Written through the process's node store
(:func:`app.convergence.store.nodes.current`: one by one on SQLite, group commit on
PostgreSQL). More in docs/code/convergence.md (app.convergence.outcome).
"""
from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from sqlalchemy.orm import Session

from app import errors
from app.convergence import runtime, timeouts, traversal, wakeups
from app.convergence.results import (
    SET_ROW,
    Done,
    Ended,
    Failed,
    Node,
    NodeKey,
    Outcome,
    Poll,
    Raised,
    Record,
    Result,
    Settled,
    Signalled,
    Start,
    Wait,
    with_events,
)
from app.convergence.store import attrdata, locks, nodes, pacing
from app.convergence.store.events import ResourceEvent
from app.convergence.store.node_writes import Failing, Finished
from app.convergence.traversal import PROPS_BEFORE
from app.engine.states import Action, Status
from app.models import utcnow
from app.resource_types import failures
from app.resource_types.heat_signals import signal_event

__all__ = ["SET_ROW", "Done", "Ended", "Failed", "Node", "NodeKey", "Outcome", "Poll", "Raised",
           "Record", "ResourceEvent", "Result", "Settled", "Signalled", "Start", "Wait", "apply",
           "apply_many", "settled", "signalled", "unsignalled", "with_events"]
log = logging.getLogger(__name__)


def apply(node: Node, outcome: Result) -> None:
    """Apply a step's outcome to its node: the only place that ends, polls or parks one, and
    lets go of its lock. A node whose lock was taken over meanwhile (its lease ran out:
    :class:`errors.LeaseLost`) writes nothing; on any other error its lock is released and
    the error raised (the task's retry runs the step again)."""
    try:
        _apply(node, outcome)
    except errors.LeaseLost:
        log.warning("resource %s: this engine's lock (key %s) was taken over after its lease "
                    "ran out; its step stops and writes nothing", node.resource.id,
                    node.resource.atomic_key)
    except Exception:
        if not isinstance(outcome, Ended):
            locks.release(node.resource.id, node.resource.atomic_key)
        raise


def _apply(node: Node, outcome: Result) -> None:
    if isinstance(outcome, Raised):
        raise outcome.error
    if not isinstance(outcome, Ended):
        _write(node, outcome)
    else:  # a redelivery: make sure it was counted and its successors went out
        nodes.current().ended_again(node, end)


def _write(node: Node, outcome: Outcome) -> None:
    """Write ``outcome`` through the node store and enqueue what follows it."""
    outcome, data = _reported(node, outcome)
    left = timeouts.seconds_left(outcome.deadline, utcnow()) if isinstance(outcome, Wait) else 1.0
    if isinstance(outcome, Wait) and left <= 0:
        if outcome.start is None and outcome.deadline >= node.deadline():
            # the traversal's own deadline (a deployment, a nested stack: no timeout of their
            # own): Heat's stack timeout, "Timed out", whichever of beat's sweep and this poll
            # is first
            traversal.stack_timeout(node.stack.id, node.traversal_id)
            nodes.current().release(node, list(outcome.events))
            return
        outcome = Failed(f"{node.resource.name}: timed out waiting for {outcome.event}",
                         plugin=outcome.plugin, start=outcome.start,
                         stack_action=node.default_action, events=outcome.events)
    if isinstance(outcome, Failed):
        nodes.current().fail(node, _failing(node, outcome), end)
    elif isinstance(outcome, Done):
        nodes.current().finish(node, _finished(node, outcome, data), end)
    else:  # not finished: parked, and looked at again after a poll's delay or a safety poll
        delay, timing = pacing.poll(
            node.resource, node.stack.action, node.is_update, outcome.plugin, outcome.handle,
            outcome.delay, outcome.start is not None, node.looked, pacing.clock(),
        ) if isinstance(outcome, Poll) else (min(timeouts.SAFETY_POLL_SECONDS, left), {})
        if not _park(node, outcome, timing):
            return  # its lease ran out: the engine that took it over polls it
        if isinstance(outcome, Poll):
            runtime.dispatcher().check_resource(node.stack.id, node.traversal_id,
                                                node.resource.id, node.is_update,
                                                countdown=delay)
        else:
            runtime.dispatcher().safety_poll(node.stack.id, node.traversal_id,
                                             node.resource.id, node.is_update, delay)


def apply_many(items: list[tuple[Node, Result]]) -> list[Node]:
    """Apply the outcomes of a batch's steps (one traversal): every ``Done`` in one
    transaction (the writes of a wide fan-out's leaves, one commit instead of one each; their
    ready successors enqueued together), the others one by one as :func:`apply` does. If the
    shared transaction fails, nothing of it was written and each is applied alone.

    :returns: the nodes whose step or outcome raised, their locks released (the caller
        enqueues them again)."""
    finished = [(n, o) for n, o in items if isinstance(o, Done)]
    alone = [(n, o) for n, o in items if not isinstance(o, Done)]
    failed: list[Node] = []
    if len(finished) > 1:
        try:
            failed = nodes.current().finish_together(
                [(n, _finished(n, o, _reported(n, o)[1])) for n, o in finished
                 if isinstance(o, Done)], end)
            finished = []
        except errors.LeaseLost:  # the others are written one by one, without it
            pass
        except Exception:
            log.exception("a batch of %d finished steps could not be written at once; "
                          "writing them one by one", len(finished))
    for n, o in [*finished, *alone]:
        try:
            apply(n, o)
        except Exception:
            log.exception("step of resource %s failed", n.resource.id)
            failed.append(n)
    return failed


def settled(found: Settled | None) -> None:
    """Write what a superseded step found of the action its stopped traversal left running
    (:class:`Settled`; None: nothing to write), and enqueue its next look if it goes on."""
    if found is None:
        return
    r = found.resource
    nodes.current().settle(r, found.values, list(found.events))
    if found.delay is not None:
        runtime.dispatcher().check_resource(r.stack_id, found.traversal_id, r.id,
                                            found.is_update, countdown=found.delay)


def signalled(found: Signalled) -> None:
    """Write a delivered signal (its plugin's data, its event) and let go of the lock, then
    wake the wait conditions that name the signalled handle and the signalled resource itself
    if it waits for its own signal (a software deployment).

    :raises LeaseLost: the delivery's lock was taken over meanwhile (nothing written)."""
    r = found.resource
    nodes.current().signalled(r, found.token, found.data, list(found.events))
    if found.ref is not None:
        wakeups.wake_signal_waiters(r.stack_id, found.ref, signal_event(found.ref))
        wakeups.wake(r.stack_id, r.id, signal_event(found.ref))


def unsignalled(resource_id: int, token: int | None) -> None:
    """Let go of a signal delivery's lock (taken at ``token``; None: before its row was read)
    when the delivery raised before its outcome: nothing else is written."""
    locks.release(resource_id, token)


def end(s: Session, node: Node) -> None:
    """Finish ``node``'s traversal in ``s``: its count reached zero."""
    traversal.finish(s, node.stack.id, node.traversal_id, node.loaded)


def _reported(node: Node, outcome: Outcome) -> tuple[Outcome, Any]:
    """What the applier reads of a step's report: ``outcome`` with every error it reports
    worded as Heat's failure reason (:func:`failures.reason_of`: its own, and its events'),
    and the data a finished node passes on (:func:`attrdata.attr_data`: its reference id and
    the attributes its dependents and the outputs reference; without a plugin, or in a
    reverse node, the row's own)."""
    name = node.resource.name
    found = [e if isinstance(e.reason, str) else replace(e, reason=failures.reason_of(name, e.reason))
             for e in outcome.events]
    if isinstance(outcome, Failed) and not isinstance(outcome.reason, str):
        outcome = replace(outcome, reason=failures.reason_of(name, outcome.reason))
    if outcome.events:
        outcome = replace(outcome, events=found)
    if isinstance(outcome, Done) and outcome.plugin is not None and node.is_update \
            and node.loaded is not None:
        return outcome, attrdata.attr_data(
            outcome.plugin, node.loaded.definition.referenced_attributes(name))
    return outcome, node.resource.attr_data


def _park(node: Node, outcome: Poll | Wait, timing: dict[str, float]) -> bool:
    """Persist progress (the step's events, and the IN_PROGRESS state if this step started
    the action; the handle with the poll's ``timing``, :mod:`app.convergence.store.pacing`)
    and release the lock, in one transaction (the node store's).

    :returns: False if nothing was written: the lock was no longer this step's (fencing)."""
    r, plugin = node.resource, outcome.plugin
    stored: dict[str, Any] = {"h": outcome.handle, "t": outcome.owner or node.traversal_id,
                              **timing}
    if isinstance(outcome, Wait):
        stored["wait"] = outcome.event
    values = {"row_id": r.id, "handle": stored, "physical_resource_id": plugin.resource_id,
              "rsrc_data": plugin.data, "poll_attempt": r.next_attempt(outcome.start),
              "engine_id": None, "updated_at": utcnow()}
    found = list(outcome.events)
    if outcome.start is not None:
        values = {**outcome.start.columns(), **values}
        found.append(ResourceEvent(r.physical_resource_id, r.type, outcome.start.action,
                                   Status.IN_PROGRESS))
    return nodes.current().park(node, values, found)


def _failing(node: Node, f: Failed) -> Failing:
    """What failed ``node`` writes: its row's values (the started action's columns under
    them), its events (the step's own, the started IN_PROGRESS, the FAILED), the stack's
    reason (Heat's "Resource <ACTION> failed: <reason>")."""
    r, reason = node.resource, str(f.reason)
    row_action = f.action or node.default_action
    values: dict[str, Any] = {"engine_id": None, "updated_at": utcnow()}
    if f.record is not Record.UNTOUCHED:
        values.update(action=row_action, status=Status.FAILED, status_reason=reason)
        if f.plugin is not None:
            if PROPS_BEFORE in f.plugin.data:  # what the failed update did not reach
                values["properties_data"] = f.plugin.data.pop(PROPS_BEFORE)
            values.update(physical_resource_id=f.plugin.resource_id, rsrc_data=f.plugin.data)
    if f.attr_data is not None:
        values["attr_data"] = f.attr_data
    found = list(f.events)
    if f.start is not None:
        values = {**f.start.columns(), **values}
        found.append(ResourceEvent(r.physical_resource_id, r.type, f.start.action,
                                   Status.IN_PROGRESS))
    if f.record is not Record.UNTOUCHED:
        found.append(ResourceEvent(r.physical_resource_id, r.type, row_action, Status.FAILED,
                                   reason))
    stack_action = f.stack_action or row_action
    return Failing(values, found, f"Resource {stack_action} failed: {f.stack_reason or reason}")


def _finished(node: Node, d: Done, data: Any) -> Finished:
    """What finished ``node`` writes: its row's values, its events, the ``data`` it passes on
    (its plugin's, :func:`attrdata.attr_data`, or the row's own)."""
    r, is_update = node.resource, node.is_update
    pacing.finished(r, node.stack.action, node.is_update, node.looked)
    row_action = d.action or node.default_action
    values: dict[str, Any] = {"engine_id": None, "handle": None, "updated_at": utcnow()}
    if d.plugin is not None:
        d.plugin.data.pop(PROPS_BEFORE, None)  # the update it guarded went through
        values.update(physical_resource_id=d.plugin.resource_id, rsrc_data=d.plugin.data)
        if is_update and node.loaded is not None:
            values["attr_data"] = data
    if d.record is Record.UNTOUCHED:  # nothing happened to it: its updated_time stays (Heat)
        del values["updated_at"]
    elif d.record is Record.EVENT:
        values.update(action=row_action, status=Status.COMPLETE, status_reason=d.reason)
    elif not is_update:
        values.update(action=Action.DELETE, status=Status.COMPLETE)
    found = list(d.events)
    if d.start is not None:  # the action started in this step: its IN_PROGRESS goes in too
        if d.start.properties is not None:
            values["properties_data"] = d.start.properties
        found.append(ResourceEvent(r.physical_resource_id, r.type, d.start.action,
                                   Status.IN_PROGRESS))
    if d.record is Record.EVENT:
        found.append(ResourceEvent(values.get("physical_resource_id", r.physical_resource_id),
                                   r.type, row_action, Status.COMPLETE, d.reason))
    return Finished.of(node, values, found, data)
