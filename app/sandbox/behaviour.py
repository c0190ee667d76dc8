"""Behaviour controls of the sandbox cloud: transition delays, per-operation latency and fault
injection. Pure data plus a seeded random generator; the admin API (``app.sandbox.admin``)
changes it at run time and ``create_app`` takes its initial values.

An *operation* is named ``"<service>.<METHOD>.<collection>"``, e.g. ``"compute.POST.servers"`` or
``"network.DELETE.ports"``; rules match with shell-style globs (``"compute.*"``).

Latency rule: ``{"match": "compute.POST.*", "seconds": 0.2}`` or
``{"match": "*", "min": 0.01, "max": 0.05}`` (uniform random).

Fault rule: ``{"match": "compute.POST.servers", "rate": 1.0, "times": 1, "kind": ...}`` where kind is
``"error"`` (HTTP ``status``, default 500, with ``message``), ``"quota"`` (the service's quota
exceeded error) or ``"server_error"`` (the request succeeds but the server goes to ERROR instead of
ACTIVE). ``times`` (optional) limits how often the rule fires; ``rate`` is the probability.
"""
from __future__ import annotations

import fnmatch
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

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
        with self._lock:
            if delays is not None:
                self.delays.update({k: float(v) for k, v in delays.items()})
            if latency is not None:
                self.latency = [dict(r) for r in latency]
            if faults is not None:
                self.faults = [dict(r) for r in faults]
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

    def fault_for(self, operation: str, kinds: tuple[str, ...] = ("error", "quota")) -> dict[str, Any] | None:
        """The fault rule that fires for ``operation`` now (consuming one of its ``times``), or None."""
        with self._lock:
            for rule in self.faults:
                if rule.get("kind", "error") not in kinds:
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
