"""Behaviour controls of the sandbox cloud: transition delays, per-operation latency and fault
injection. Pure data plus a seeded random generator; the admin API (``app.sandbox.admin``)
changes it at run time and ``create_app`` takes its initial values.

More in docs/code/sandbox.md (app.sandbox.behaviour).
"""
from __future__ import annotations

import fnmatch
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from app import errors

DEFAULT_DELAYS: dict[str, float] = {
    "server_build": 1.0,       # BUILD -> ACTIVE
    "server_delete": 0.5,      # DELETED -> gone
    "server_action": 0.3,      # REBOOT/RESIZE/... -> final state
    "volume_create": 0.5,      # creating -> available
    "volume_delete": 0.3,      # deleting -> gone
    "snapshot_create": 0.3,
    "backup_create": 0.5,
    "backup_restore": 0.3,     # restoring-backup -> available (volume), restoring -> available
    "lb_provision": 1.0,       # PENDING_CREATE/UPDATE -> ACTIVE (Octavia)
    "lb_delete": 0.5,          # PENDING_DELETE -> gone
    "image_import": 0.2,
    "order_generate": 0.3,     # Barbican order PENDING -> ACTIVE (key material made)
    "zone_propagate": 0.3,     # Designate zone/recordset PENDING -> ACTIVE
    "cluster_create": 1.0,     # Magnum CREATE_IN_PROGRESS -> CREATE_COMPLETE
    "cluster_update": 0.5,     # Magnum UPDATE_IN_PROGRESS -> UPDATE_COMPLETE
    "cluster_delete": 0.3,     # Magnum DELETE_IN_PROGRESS -> gone
    "share_create": 0.5,       # Manila creating -> available
    "share_extend": 0.3,       # Manila extending/shrinking -> available
    "share_delete": 0.3,       # Manila deleting -> gone
    "db_build": 1.0,           # Trove BUILD -> ACTIVE (instances, cluster members)
    "db_resize": 0.3,          # Trove RESIZE -> ACTIVE
    "db_delete": 0.3,          # Trove SHUTDOWN -> gone
    "fw_create": 0.3,          # FWaaS firewall PENDING_CREATE -> ACTIVE
    "fw_delete": 0.2,          # FWaaS firewall PENDING_DELETE -> gone
    "vpn_connect": 0.3,        # IPsec site connection PENDING_CREATE -> ACTIVE
    "taas_create": 0.2,        # tap service / flow PENDING_CREATE -> ACTIVE
}


FAULT_KINDS = ("error", "quota", "server_error")


class RuleError(errors.BadRequest):
    """A fault, latency or delay rule the sandbox could not apply (the admin API's 400)."""


def _number(rule: dict[str, Any], key: str, low: float, high: float | None = None) -> None:
    value = rule.get(key)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low or (
            high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise RuleError(f"'{key}' must be a number {span}, not {value!r}")


def _rule(rule: Any, what: str, keys: frozenset[str]) -> dict[str, Any]:
    if not isinstance(rule, dict):
        raise RuleError(f"a {what} rule must be an object, not {rule!r}")
    unknown = sorted(set(rule) - keys)
    if unknown:
        raise RuleError(f"unknown {what} rule keys: {', '.join(unknown)}")
    if not isinstance(rule.get("match", "*"), str):
        raise RuleError(f"'match' must be a glob of operations, not {rule['match']!r}")
    return dict(rule)


def checked_fault(rule: Any) -> dict[str, Any]:
    """A fault rule (the module doc) as given, or ``RuleError`` saying what is wrong with it:
    a rule the sandbox could not apply is refused when it is added, never at a request."""
    out = _rule(rule, "fault", frozenset({"match", "rate", "times", "kind", "status", "message",
                                          "type", "resource", "fired", "after"}))
    if out.get("kind", "error") not in FAULT_KINDS:
        raise RuleError(f"'kind' must be one of {', '.join(FAULT_KINDS)}, not {out['kind']!r}")
    _number(out, "rate", 0.0, 1.0)
    _number(out, "times", 0)
    if out.get("status") is not None and (not isinstance(out["status"], int)
                                          or isinstance(out["status"], bool)
                                          or not 400 <= out["status"] <= 599):
        raise RuleError(f"'status' must be an HTTP error status (400-599), not {out['status']!r}")
    if not isinstance(out.get("after", False), bool):
        raise RuleError(f"'after' must be true or false, not {out['after']!r}")
    for key in ("message", "type", "resource"):
        if out.get(key) is not None and not isinstance(out[key], str):
            raise RuleError(f"'{key}' must be a string, not {out[key]!r}")
    return out


def checked_latency(rule: Any) -> dict[str, Any]:
    """A latency rule (the module doc) as given, or ``RuleError``."""
    out = _rule(rule, "latency", frozenset({"match", "seconds", "min", "max"}))
    for key in ("seconds", "min", "max"):
        _number(out, key, 0.0)
    return out


def checked_delays(delays: Any) -> dict[str, float]:
    """``{name: seconds}`` for names of :data:`DEFAULT_DELAYS`, or ``RuleError``."""
    if not isinstance(delays, dict):
        raise RuleError(f"'delays' must be an object of seconds by name, not {delays!r}")
    unknown = sorted(set(delays) - set(DEFAULT_DELAYS))
    if unknown:
        raise RuleError(f"unknown delays: {', '.join(unknown)} (known: {', '.join(DEFAULT_DELAYS)})")
    for name in delays:
        _number(delays, name, 0.0)
    return {k: float(v) for k, v in delays.items()}


@dataclass
class Behaviour:
    """Mutable behaviour settings; methods are thread-safe."""

    delays: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_DELAYS))
    latency: list[dict[str, Any]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    seed: int | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._random = random.Random(self.seed)
        self.requests: dict[str, int] = {}

    def count(self, operation: str) -> None:
        """Count one request for ``operation`` (``GET /sandbox/requests`` shows the counts)."""
        with self._lock:
            self.requests[operation] = self.requests.get(operation, 0) + 1

    def request_counts(self, *, reset: bool = False) -> dict[str, int]:
        """``{operation: requests served}`` since the start or the last reset."""
        with self._lock:
            out = dict(self.requests)
            if reset:
                self.requests = {}
            return out

    def delay(self, name: str) -> float:
        """Seconds for the named transition (``DEFAULT_DELAYS`` keys)."""
        return float(self.delays.get(name, 0.0))

    def configure(self, *, delays: dict[str, float] | None = None,
                  latency: list[dict[str, Any]] | None = None,
                  faults: list[dict[str, Any]] | None = None,
                  seed: int | None = None) -> None:
        """Replace the rules given (``None``: kept); all are checked before any is applied.

        :raises RuleError: a rule or delay the sandbox could not apply (the admin API's 400).
        """
        for rules in (latency, faults):
            if rules is not None and not isinstance(rules, list):
                raise RuleError(f"rules must be a list, not {rules!r}")
        new_delays = checked_delays(delays) if delays is not None else None
        new_latency = [checked_latency(r) for r in latency] if latency is not None else None
        new_faults = [checked_fault(r) for r in faults] if faults is not None else None
        with self._lock:
            if new_delays is not None:
                self.delays.update(new_delays)
            if new_latency is not None:
                self.latency = new_latency
            if new_faults is not None:
                self.faults = new_faults
            if seed is not None:
                self.seed = seed
                self._random = random.Random(seed)

    def as_dict(self) -> dict[str, Any]:
        with self._lock:
            return {"delays": dict(self.delays), "latency": list(self.latency),
                    "faults": list(self.faults), "seed": self.seed}

    def latency_for(self, operation: str) -> float:
        """Seconds to sleep before handling ``operation`` (first matching rule wins; 0 if none)."""
        with self._lock:
            for rule in self.latency:
                if fnmatch.fnmatchcase(operation, rule.get("match", "*")):
                    if "seconds" in rule:
                        return float(rule["seconds"])
                    return self._random.uniform(float(rule.get("min", 0)), float(rule.get("max", 0)))
        return 0.0

    def apply_latency(self, operation: str) -> None:
        seconds = self.latency_for(operation)
        if seconds > 0:
            time.sleep(seconds)

    def fault_for(self, operation: str, kinds: tuple[str, ...] = ("error", "quota"), *,
                  after: bool = False) -> dict[str, Any] | None:
        """The fault rule that fires for ``operation`` now (consuming one of its ``times``), or
        None; ``after``: the rules that fire once the request was carried out."""
        with self._lock:
            for rule in self.faults:
                if rule.get("kind", "error") not in kinds or bool(rule.get("after")) != after:
                    continue
                if not fnmatch.fnmatchcase(operation, rule.get("match", "*")):
                    continue
                if rule.get("times") is not None and int(rule["times"]) <= 0:
                    continue
                if self._random.random() >= float(rule.get("rate", 1.0)):
                    continue
                if rule.get("times") is not None:
                    rule["times"] = int(rule["times"]) - 1
                rule["fired"] = int(rule.get("fired", 0)) + 1
                return dict(rule)
        return None
