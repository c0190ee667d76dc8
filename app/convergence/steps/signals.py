"""Delivering a signal to a resource, as Heat's ``Resource.signal`` (heat/engine/resource.py).

The plugin's ``handle_signal`` runs under the resource's lock (:mod:`app.convergence.store.locks`);
what it stored (``data``) and Heat's signal event go to the applier
(:func:`app.convergence.outcome.signalled`), which writes them in one transaction that also
releases the lock, and then wakes the nodes that wait for the signal. A signal that changes nothing (the same
signal id with the same content: ``NoActionRequired``) writes nothing, so a repeated signal is
harmless.
"""
from __future__ import annotations

import logging
import time
from typing import Any

from sqlalchemy import select

from app import errors
from app.convergence import outcome, plugins
from app.convergence.outcome import ResourceEvent, Signalled
from app.convergence.store import lease, locks, nodes
from app.convergence.store.rows import ResourceRow, table
from app.engine.states import Action
from app.models import Resource, read_session
from app.resource_types import base, failures

log = logging.getLogger(__name__)
RT = table(Resource)
#: How long a signal waits for a resource another engine holds (seconds)
LOCK_WAIT_SECONDS = 10.0
#: Heat's ``Resource.no_signal_actions``
NO_SIGNAL_ACTIONS = (Action.SUSPEND.value, Action.DELETE.value)
SIGNAL_ACTION = "SIGNAL"


def takes_signal(cls: type[Any] | None) -> bool:
    """Whether a plugin class has its own ``handle_signal`` (Heat: ``callable(handle_signal)``)."""
    return cls is not None and getattr(cls, "handle_signal", None) is not \
        base.Resource.handle_signal


def signal_reason(result: Any, details: Any) -> str:
    """The signal event's reason, as Heat's ``_handle_signal``: ``"Signal: <result>"`` when the
    handler returned something, else a description of ``details`` ("No signal details
    provided", the string itself, an alarm's "alarm state changed from <previous> to
    <current> (<reason>)", or "Unknown")."""
    if result:
        return f"Signal: {result}"
    if details is None:
        return "No signal details provided"
    if isinstance(details, str):
        return details
    if isinstance(details, dict) and all(k in details for k in ("previous", "current",
                                                                "reason")):
        return ("alarm state changed from "
                f"{details['previous']} to {details['current']} ({details['reason']})")
    return "Unknown"


def _lock(resource_id: int) -> None:
    """Take the resource's lock, waiting up to :data:`LOCK_WAIT_SECONDS` for its holder.

    :raises errors.Conflict: still held by a live engine."""
    lease.ensure_heartbeat()
    waited, step = 0.0, 0.02
    while nodes.current().acquire(resource_id) is False:
        if waited >= LOCK_WAIT_SECONDS:
            raise errors.Conflict("The resource is busy; try the signal again.")
        time.sleep(step)
        waited += step
        step = min(0.2, step * 2)


def deliver(st: Any, resource_id: int, details: Any) -> str | None:
    """Signal resource ``resource_id`` of stack ``st`` (``id``, ``name``, ``tenant``) with
    ``details`` (the JSON body, or None). :returns: the signal event's reason, or None when
    the signal changed nothing.

    :raises base.ResourceActionNotSupported: the type takes no signal (400).
    :raises base.NotSupported: the resource is being deleted or suspended (400, Heat's
        "Signal resource during DELETE is not supported."; a "Cannot signal resource during
        DELETE" event is written, as Heat's ``_signal_check_action``).
    :raises errors.BadRequest: the handler refused the signal (``failure_reason`` wording,
        e.g. "ValueError: resources.h: Metadata format invalid").
    :raises errors.Conflict: another engine holds the resource longer than allowed.
    """
    with locks.working([resource_id]):
        return _deliver(st, resource_id, details)


def _deliver(st: Any, resource_id: int, details: Any) -> str | None:
    _lock(resource_id)
    token: int | None = None
    try:
        with read_session() as s:
            found = s.execute(select(RT).where(RT.c.id == resource_id)).first()
        if found is None:
            raise errors.NotFound("Resource", str(resource_id))
        r = ResourceRow.of(found)
        token = r.atomic_key
        signalled, reason = _signal(st, r, details)
    except BaseException:
        outcome.unsignalled(resource_id, token)
        raise
    outcome.signalled(signalled)  # 409 (LeaseLost) if its lease ran out meanwhile
    if r.action in NO_SIGNAL_ACTIONS:  # Heat writes the refusal's event, then answers 400
        raise base.NotSupported(f"Signal resource during {r.action}")
    return reason if signalled.events else None


def _signal(st: Any, r: ResourceRow, details: Any) -> tuple[Signalled, str]:
    """The plugin's ``handle_signal`` on row ``r`` (locked): what the applier writes (its data
    and Heat's signal event; the refusal's event while the resource is deleted or suspended;
    nothing for a signal that changes nothing, ``NoActionRequired``), and the signal's
    reason. :raises: as :func:`deliver`."""
    if r.action in NO_SIGNAL_ACTIONS:
        refused = f"Cannot signal resource during {r.action}"
        return Signalled(r, r.atomic_key, [ResourceEvent(
            r.physical_resource_id, r.type, r.action, r.status, refused)]), refused
    plugin = plugins.registry_plugin(r, st, r.properties_data)
    try:
        result = plugin.handle_signal(details)
    except errors.NoActionRequired:
        return Signalled(r, r.atomic_key, []), ""
    except (base.ResourceActionNotSupported, errors.StokerError):
        raise
    except Exception as exc:
        raise errors.BadRequest(failures.failure_reason(exc, r.name)) from None
    reason = signal_reason(result, details)
    return Signalled(r, r.atomic_key, [ResourceEvent(
        r.physical_resource_id, r.type, SIGNAL_ACTION, r.status, reason)], plugin.data,
        plugin.get_reference_id()), reason


def pull_handle(st: Any, ref: str) -> bool:
    """Heat's ``HeatWaitConditionHandle.get_status`` -> ``_service_signal``: the signals
    waiting in the queue of stack ``st``'s handle whose reference is ``ref`` (ZAQAR_SIGNAL)
    are popped and delivered one by one, as :func:`deliver` delivers an API signal (one
    refused is logged and dropped, as Heat drops it). :returns: whether the handle has such a
    queue (False: no such handle, or its signals come through the API)."""
    with read_session() as s:
        found = s.execute(select(RT).where(RT.c.stack_id == st.id,
                                           RT.c.physical_resource_id == ref)).first()
    if found is None:
        return False
    r = ResourceRow.of(found)
    pull = getattr(plugins.registry_plugin(r, st, r.properties_data), "pull_signals", None)
    bodies = pull() if pull is not None else None
    if bodies is None:
        return False
    for details in bodies:
        try:
            deliver(st, r.id, details)
        except errors.StokerError as exc:
            log.warning("signal from the queue of %s refused: %s", r.name, exc)
    return True
