"""The sandbox cloud's state store: collections of plain JSON objects, thread-safe, optionally
persisted to a JSON file so that a restarted sandbox keeps its clouds.

Shape: ``{collection: {id: object}}``; every object is a plain ``dict`` with an ``"id"``. Keys that
start with ``_`` are private to the sandbox (owner bookkeeping, pending transitions) and never
rendered.

Asynchronous behaviour (a server in BUILD that becomes ACTIVE, a volume that finishes deleting) is
stored as *pending transitions* on the object — ``obj["_pending"] = [{"at": epoch, "set": {...}}
| {"at": epoch, "delete": True}]`` — and applied lazily whenever the object is read
(:meth:`Store.get`, :meth:`Store.all`). No background thread is needed and a transition survives a
restart because its deadline is an absolute time.
"""
from __future__ import annotations

import copy
import json
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

Obj = dict[str, Any]


class Store:
    """Thread-safe in-memory store with optional JSON-file persistence.

    :param path: file to load from and save to; ``None`` keeps everything in memory.
    :param deterministic_ids: ids are ``00000000-0000-4000-8000-<counter>`` instead of random
        UUID4s, so tests can predict them; the counter is part of the persisted state.
    :param clock: returns the current time in epoch seconds (tests may freeze it).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *,
                 deterministic_ids: bool = False,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path) if path else None
        self.deterministic_ids = deterministic_ids
        self.clock = clock
        self.lock = threading.RLock()
        self.data: dict[str, dict[str, Obj]] = {}
        self.meta: dict[str, Any] = {"counter": 0}
        self.dirty = False
        self._last_save = 0.0
        self._timer: threading.Timer | None = None
        if self.path and self.path.exists():
            self._load()

    # ---- ids ------------------------------------------------------------------------------------
    def new_id(self, *, hex_only: bool = False) -> str:
        """A new object id: a UUID string (32 hex digits when ``hex_only``, as Keystone uses)."""
        with self.lock:
            if self.deterministic_ids:
                self.meta["counter"] += 1
                self.dirty = True
                value = uuid.UUID(f"00000000-0000-4000-8000-{self.meta['counter']:012d}")
            else:
                value = uuid.uuid4()
        return value.hex if hex_only else str(value)

    def next_number(self, name: str) -> int:
        """A per-name counter (MAC addresses, VNIs); persisted with the state."""
        with self.lock:
            key = f"n_{name}"
            self.meta[key] = self.meta.get(key, 0) + 1
            self.dirty = True
            return int(self.meta[key])

    # ---- objects --------------------------------------------------------------------------------
    def add(self, collection: str, obj: Obj) -> Obj:
        """Insert ``obj`` (which must carry ``"id"``) and return it."""
        with self.lock:
            self.data.setdefault(collection, {})[obj["id"]] = obj
            self.dirty = True
            return obj

    def get(self, collection: str, obj_id: str | None) -> Obj | None:
        """The object, after applying due transitions; ``None`` if absent (or just deleted)."""
        if obj_id is None:
            return None
        with self.lock:
            obj = self.data.get(collection, {}).get(str(obj_id))
            if obj is not None and obj.get("_pending"):
                obj = self._settle(collection, obj)
            return obj

    def all(self, collection: str) -> list[Obj]:
        """Every object of ``collection`` (transitions applied), in insertion order."""
        with self.lock:
            out = []
            for obj in list(self.data.get(collection, {}).values()):
                if obj.get("_pending"):
                    obj = self._settle(collection, obj)  # type: ignore[assignment]
                if obj is not None:
                    out.append(obj)
            return out

    def find(self, collection: str, **match: Any) -> list[Obj]:
        """Objects whose fields equal every ``match`` value."""
        return [o for o in self.all(collection) if all(o.get(k) == v for k, v in match.items())]

    def remove(self, collection: str, obj_id: str) -> Obj | None:
        with self.lock:
            obj = self.data.get(collection, {}).pop(obj_id, None)
            self.dirty = True
            return obj

    def touch(self) -> None:
        """Mark the state changed (after mutating an object in place)."""
        self.dirty = True

    # ---- transitions ----------------------------------------------------------------------------
    def schedule(self, obj: Obj, delay: float, changes: Obj | None = None, *,
                 delete: bool = False) -> None:
        """After ``delay`` seconds, set ``changes`` on ``obj`` (or delete it). A zero delay applies
        at the next read. Transitions apply in deadline order."""
        step: Obj = {"at": self.clock() + max(0.0, delay)}
        if delete:
            step["delete"] = True
        else:
            step["set"] = dict(changes or {})
        with self.lock:
            obj.setdefault("_pending", []).append(step)
            obj["_pending"].sort(key=lambda s: s["at"])
            self.dirty = True

    def cancel_pending(self, obj: Obj) -> None:
        obj.pop("_pending", None)
        self.dirty = True

    def _settle(self, collection: str, obj: Obj) -> Obj | None:
        now = self.clock()
        pending = obj["_pending"]
        while pending and pending[0]["at"] <= now:
            step = pending.pop(0)
            self.dirty = True
            if step.get("delete"):
                self.data.get(collection, {}).pop(obj["id"], None)
                return None
            obj.update(step["set"])
        if not pending:
            obj.pop("_pending", None)
        return obj

    # ---- whole state ----------------------------------------------------------------------------
    def collections(self) -> Iterable[str]:
        return list(self.data)

    def reset(self) -> None:
        """Forget everything (the caller seeds the defaults again)."""
        with self.lock:
            self.data = {}
            self.meta = {"counter": 0}
            self.dirty = True

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            for name in list(self.data):
                self.all(name)
            return copy.deepcopy({"meta": self.meta, "data": self.data})

    def restore(self, snapshot: dict[str, Any]) -> None:
        """Go back to a :meth:`snapshot` (an all-or-nothing request that failed half-way)."""
        with self.lock:
            self.meta = snapshot["meta"]
            self.data = snapshot["data"]
            self.dirty = True

    def save_soon(self, interval: float = 0.5) -> None:
        """Save now if the last save is older than ``interval`` seconds, else within ``interval``
        (a timer), so a burst of requests writes the file a few times, not once per request."""
        with self.lock:
            if not self.path or not self.dirty:
                return
            wait = self._last_save + interval - time.monotonic()
            if wait <= 0:
                self.save()
            elif self._timer is None:
                self._timer = threading.Timer(wait, self._timed_save)
                self._timer.daemon = True
                self._timer.start()

    def _timed_save(self) -> None:
        with self.lock:
            self._timer = None
            self.save()

    def close(self) -> None:
        """Cancel a pending timed save and write what is unsaved."""
        with self.lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self.save()

    def save(self) -> None:
        """Write the state to :attr:`path` atomically if anything changed (no-op in memory)."""
        with self.lock:
            self._last_save = time.monotonic()
            if not self.path or not self.dirty:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(self.path.suffix + ".tmp")
            tmp.write_text(json.dumps({"meta": self.meta, "data": self.data}))
            os.replace(tmp, self.path)
            self.dirty = False

    def _load(self) -> None:
        assert self.path is not None
        try:
            raw = json.loads(self.path.read_text() or "{}")
        except (OSError, ValueError):
            return
        self.meta = raw.get("meta") or {"counter": 0}
        self.data = raw.get("data") or {}
