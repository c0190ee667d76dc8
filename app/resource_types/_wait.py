"""Wait-condition logic shared by the native and AWS handles and conditions (pure).

As Heat's ``heat/engine/resources/wait_condition.py`` (``BaseWaitConditionHandle``,
``WaitConditionFailure``, ``WaitConditionTimeout``): a handle's signals are its metadata, a map
``{signal id: {"status": "SUCCESS"|"FAILURE", "reason": str, "data": any}}``; a condition
completes when ``count`` SUCCESS signals are in, fails at the first FAILURE, and fails at its
timeout. Metadata lives in the handle's ``data`` under :data:`METADATA` (the engine stores it
with the resource row; the API's ``.../metadata`` shows it).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, NamedTuple

from app import errors

#: Key of a resource's live metadata in its ``data`` (Heat's ``rsrc_metadata`` column).
METADATA = "_metadata"
SUCCESS, FAILURE = "SUCCESS", "FAILURE"
STATUSES = (FAILURE, SUCCESS)


class Keys(NamedTuple):
    """The names of a signal's fields: Heat's ``METADATA_KEYS`` of a handle type."""
    data: str
    reason: str
    status: str
    id: str


#: OS::Heat::WaitConditionHandle's signal fields
NATIVE = Keys("data", "reason", "status", "id")
#: AWS::CloudFormation::WaitConditionHandle's (and OS::Heat::UpdateWaitConditionHandle's)
CFN = Keys("Data", "Reason", "Status", "UniqueId")


class WaitConditionFailure(errors.StokerError):
    """A FAILURE signal arrived: the reasons of the FAILURE signals joined by ``;``."""
    heat_type = "WaitConditionFailure"

    def __init__(self, signals: Mapping[str, Any]) -> None:
        super().__init__(";".join(reasons(signals, FAILURE)))


class WaitConditionTimeout(errors.StokerError):
    """Heat's message: ``"<n> of <count> received"`` (then ``" - <reasons>"`` if any)."""
    heat_type = "WaitConditionTimeout"

    def __init__(self, signals: Mapping[str, Any], count: int) -> None:
        got = reasons(signals, SUCCESS)
        message = f"{len(got)} of {count} received"
        if got:
            message += " - " + ";".join(got)
        super().__init__(message)


def metadata_of(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the signals stored in a handle's ``data`` (``{}`` when none)."""
    return copy.deepcopy(dict(data.get(METADATA) or {}))


def reasons(signals: Mapping[str, Any], status: str) -> list[str]:
    """The reasons of the signals with ``status``, in the order received."""
    return [str(v.get("reason")) for v in signals.values() if v.get("status") == status]


def normalise_native(details: Any, signals: Mapping[str, Any]) -> dict[str, Any]:
    """OS::Heat::WaitConditionHandle's defaults for a signal body (Heat's
    ``normalise_signal_data``): ``reason`` "Signal <n> received", ``data`` None, ``id`` n,
    ``status`` SUCCESS, where n = number of signals so far + 1."""
    n = len(signals) + 1
    out = dict(details) if isinstance(details, Mapping) else {}
    if details is not None and not isinstance(details, Mapping):
        raise ValueError("Metadata format invalid")
    out.setdefault("reason", f"Signal {n} received")
    out.setdefault("data", None)
    out.setdefault("id", n)
    out.setdefault("status", SUCCESS)
    return out


def merge(signal: Mapping[str, Any], signals: Mapping[str, Any],
          keys: Keys = NATIVE) -> tuple[dict[str, Any], str]:
    """Add a normalised ``signal`` to ``signals``; :returns: ``(new signals, signal reason)``,
    the reason as Heat's ``handle_signal`` returns it: ``"status:<s> reason:<r>"``.

    :raises ValueError: "Metadata format invalid" (keys other than ``keys``, or a status that
        is not SUCCESS/FAILURE), as Heat's ``_metadata_format_ok``.
    :raises errors.NoActionRequired: the same id was stored with the same content already.
    """
    if set(signal) != set(keys) or signal.get(keys.status) not in STATUSES:
        raise ValueError("Metadata format invalid")
    entry = dict(signal)
    unique_id = str(entry.pop(keys.id))
    if signals.get(unique_id) == entry:
        raise errors.NoActionRequired(reason=f"signal {unique_id} was received already")
    new = copy.deepcopy(dict(signals))
    new[unique_id] = entry
    return new, f"status:{entry[keys.status]} reason:{entry[keys.reason]}"


def as_native(signals: Mapping[str, Any], keys: Keys) -> dict[str, Any]:
    """Stored signals with ``keys`` fields as ``{id: {"status", "reason", "data"}}`` (what a
    wait condition reads, whatever its handle's type)."""
    return {k: {"status": v.get(keys.status), "reason": v.get(keys.reason),
                "data": v.get(keys.data)} for k, v in signals.items()}


def check(signals: Mapping[str, Any], count: int, started: float, timeout: float,
          now: float) -> bool:
    """Heat's ``HeatWaitCondition._wait``: ``True`` once ``count`` signals are in.

    :raises WaitConditionTimeout: ``now`` is more than ``timeout`` seconds after ``started``.
    :raises WaitConditionFailure: a signal is not SUCCESS.
    """
    if now - started > timeout:
        raise WaitConditionTimeout(signals, count)
    statuses = [v.get("status") for v in signals.values()]
    if any(st != SUCCESS for st in statuses):
        raise WaitConditionFailure(signals)
    return len(statuses) >= count


def data_attribute(signals: Mapping[str, Any]) -> dict[str, Any]:
    """The wait condition's ``data``: ``{signal id: its data}`` (Heat JSON-dumps it)."""
    return {k: v.get("data") for k, v in signals.items()}
