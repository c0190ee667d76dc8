"""Event sinks: every event of a stack, sent where its environment's ``event_sinks`` say.

More in docs/code/services.md (app.services.event_sinks).
"""
from __future__ import annotations

import datetime as dt
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, select

from app import auth, config, errors
from app.clients import webhook
from app.models import RawTemplate, Stack, read_session

log = logging.getLogger(__name__)
QUEUE_LIMIT = 10_000
SINKS_TTL = 5.0
MAX_BACKOFF = 30.0
ZAQAR_DEFAULT_TTL = 3600


class SinkError(errors.BadRequest):
    """A sink specification that cannot be used (unknown type, missing target)."""


def event_body(row: Mapping[str, Any]) -> dict[str, Any]:
    """Heat's event notification (``heat/engine/event.py`` ``Event.as_dict``) for an event row
    (``app.models.Event`` columns: uuid, stack_id, resource_name, physical_resource_id,
    resource_type, action, status, status_reason, created_at)."""
    created = row.get("created_at")
    stamp = created.isoformat() if isinstance(created, dt.datetime) else str(created or "")
    return {"timestamp": stamp, "version": "0.1", "type": "os.heat.event", "id": row.get("uuid"),
            "payload": {"resource_name": row.get("resource_name"),
                        "physical_resource_id": row.get("physical_resource_id"),
                        "stack_id": row.get("stack_id"),
                        "resource_action": row.get("action"),
                        "resource_status": row.get("status"),
                        "resource_status_reason": row.get("status_reason"),
                        "resource_type": row.get("resource_type"),
                        "resource_properties": dict(row.get("resource_properties") or {}),
                        "version": "0.1"}}


@dataclass(frozen=True)
class Project:
    """Whose cloud a Zaqar sink posts to: the stack's project (``app.auth.clients_for``: its trust in keystone mode)."""
    stack_name: str
    stack_id: str
    project_id: str


@dataclass(frozen=True)
class ZaqarQueue:
    """Heat's ``zaqar-queue`` sink: post ``{"body": event, "ttl": ttl}`` to queue ``target``."""
    target: str
    ttl: int = ZAQAR_DEFAULT_TTL
    project: Project | None = field(default=None, compare=False)
    retries: int = 5
    backoff: float = 0.5

    @property
    def key(self) -> tuple[Any, ...]:
        return ("zaqar-queue", self.project.project_id if self.project else "", self.target)

    def consume(self, event: dict[str, Any]) -> None:
        """:raises Exception: whatever the cloud call raised (the courier retries)."""
        conn = auth.clients_for(self.project).connection()  # keystone: the stack's trust
        conn.message.post_message(self.target, [{"body": event, "ttl": self.ttl}])


@dataclass(frozen=True)
class Webhook:
    """POST the event as JSON to ``url``; a 2xx answer delivers it."""
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    retries: int = 5
    backoff: float = 0.5
    timeout: float = 10.0

    @property
    def key(self) -> tuple[Any, ...]:
        return ("webhook", self.url)

    def consume(self, event: dict[str, Any]) -> None:
        """POST to the address checked at this delivery (:func:`app.clients.webhook.post_json`:
        no DNS rebinding, no redirect).

        :raises app.clients.webhook.WebhookRefused: a non-global address (permanent);
            anything else: no answer, or not a 2xx one (the courier retries)."""
        webhook.post_json(self.url, event, dict(self.headers), self.timeout,
                          config.get().event_sink_private_addresses)


Sink = ZaqarQueue | Webhook


def build(spec: Mapping[str, Any], project: Project | None = None) -> Sink:
    """One sink from an ``event_sinks`` entry. :raises SinkError: unknown type or no target."""
    if not isinstance(spec, Mapping):
        raise SinkError(f"an event sink must be a mapping, not {spec!r}")
    kind = spec.get("type")
    retry = {k: type_(spec[k]) for k, type_ in (("retries", int), ("backoff", float)) if k in spec}
    if kind == "zaqar-queue":
        target = spec.get("target") or spec.get("target_queue")
        if not target:
            raise SinkError("a zaqar-queue event sink needs a target (the queue name)")
        ttl = spec.get("ttl")
        return ZaqarQueue(str(target), int(ttl) if ttl is not None else ZAQAR_DEFAULT_TTL,
                          project, **retry)
    if kind == "webhook":
        if not spec.get("url"):
            raise SinkError("a webhook event sink needs a url")
        try:  # what is known without DNS; the addresses are checked at each delivery
            webhook.check_url(str(spec["url"]), config.get().event_sink_private_addresses)
        except webhook.WebhookRefused as exc:
            raise SinkError(str(exc)) from None
        headers = tuple((str(k), str(v)) for k, v in dict(spec.get("headers") or {}).items())
        return Webhook(str(spec["url"]), headers, timeout=float(spec.get("timeout", 10.0)), **retry)
    raise SinkError(f"unknown event sink type {kind!r} (zaqar-queue or webhook)")


class Courier:
    """Delivers one target's events in order from a daemon thread, with retries and backoff.

    :param sleep: the wait between attempts (tests may shorten it).
    """

    def __init__(self, sink: Sink, sleep: Callable[[float], None] = time.sleep) -> None:
        self.sink, self.sleep = sink, sleep
        self.queue: queue.Queue[dict[str, Any]] = queue.Queue(QUEUE_LIMIT)
        self.delivered = self.dropped = self.attempts = 0
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name=f"event-sink-{sink.key[0]}")
        self.thread.start()

    def put(self, event: dict[str, Any]) -> None:
        try:
            self.queue.put_nowait(event)
        except queue.Full:
            self.dropped += 1
            log.warning("event sink %s: %d events waiting; dropped event %s",
                        self.sink.key, QUEUE_LIMIT, event.get("id"))

    def _run(self) -> None:
        while True:
            event = self.queue.get()
            try:
                self._deliver(event)
            finally:
                self.queue.task_done()

    def _deliver(self, event: dict[str, Any]) -> None:
        wait = self.sink.backoff
        for attempt in range(self.sink.retries + 1):
            self.attempts += 1
            try:
                self.sink.consume(event)
                self.delivered += 1
                return
            except Exception as exc:
                if attempt == self.sink.retries or isinstance(exc, webhook.WebhookRefused):
                    self.dropped += 1
                    log.warning("event sink %s: dropped event %s after %d attempts: %s",
                                self.sink.key, event.get("id"), attempt + 1, exc)
                    return
                log.info("event sink %s: attempt %d failed (%s); retrying in %.1fs",
                         self.sink.key, attempt + 1, exc, wait)
                self.sleep(wait)
                wait = min(MAX_BACKOFF, wait * 2)

    def join(self, timeout: float) -> bool:
        """Wait until every queued event was handled. :returns: False on timeout."""
        deadline = time.monotonic() + timeout
        while self.queue.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True


_couriers: dict[tuple[Any, ...], Courier] = {}
_sinks_cache: dict[str, tuple[float, list[Sink]]] = {}
_lock = threading.Lock()


def courier(sink: Sink) -> Courier:
    """The process's courier for ``sink``'s target (created on first use)."""
    with _lock:
        found = _couriers.get(sink.key)
        if found is None or found.sink != sink:
            found = _couriers[sink.key] = Courier(sink)
        return found


#: a stack's name, project and stored environment (built once: read per stack and process)
_ENVIRONMENT = (select(Stack.name, Stack.tenant, RawTemplate.environment)
                .join(RawTemplate, RawTemplate.id == Stack.raw_template_id)
                .where(Stack.id == bindparam("sid")))


def stack_sinks(stack_id: str) -> list[Sink]:
    """The sinks of a stack's stored environment (cached :data:`SINKS_TTL` s); an entry that
    cannot be built is logged and skipped. ``[]`` for a stack that is gone."""
    now = time.monotonic()
    cached = _sinks_cache.get(stack_id)
    if cached and now - cached[0] < SINKS_TTL:
        return cached[1]
    with read_session() as s:
        row = s.execute(_ENVIRONMENT, {"sid": stack_id}).first()
    if row is None:
        return _cached(stack_id, [])
    return remember(stack_id, row.name, row.tenant, row.environment)


def remember(stack_id: str, stack_name: str, tenant: str,
             environment: Mapping[str, Any] | None) -> list[Sink]:
    """The sinks of a stack's environment, built and cached as :func:`stack_sinks` caches
    them: a new stack's (its create knows its environment) cost its first events no read."""
    project = Project(stack_name, stack_id, tenant)
    sinks: list[Sink] = []
    for spec in (environment or {}).get("event_sinks") or []:
        try:
            sinks.append(build(spec, project))
        except (SinkError, TypeError, ValueError) as exc:
            log.warning("stack %s: event sink %r ignored: %s", stack_id, shown(spec), exc)
    return _cached(stack_id, sinks)


def shown(spec: Any) -> Any:
    """An ``event_sinks`` entry as a log line may show it: its headers' values hidden (they
    carry tokens), their names kept."""
    if isinstance(spec, Mapping) and isinstance(spec.get("headers"), Mapping):
        return {**spec, "headers": {name: "***" for name in spec["headers"]}}
    return spec


def _cached(stack_id: str, sinks: list[Sink]) -> list[Sink]:
    if len(_sinks_cache) > QUEUE_LIMIT:  # bounded: stacks come and go
        _sinks_cache.clear()
    _sinks_cache[stack_id] = (time.monotonic(), sinks)
    return sinks


def _known_without_sinks(stack_id: str) -> bool:
    """Whether the cache (:func:`stack_sinks`, still fresh) says the stack has no sinks: its
    events then go nowhere. A miss or a stale entry: not known."""
    cached = _sinks_cache.get(stack_id)
    return cached is not None and not cached[1] and time.monotonic() - cached[0] < SINKS_TTL


def publish(row: Mapping[str, Any]) -> None:
    """Hand a stored event row to its stack's sinks' couriers; never raises, never waits for a
    delivery (a courier with :data:`QUEUE_LIMIT` events already waiting drops it, logged).

    Runs on the thread that wrote the event, after its commit: a stack whose sinks are cached
    (:data:`SINKS_TTL`) costs a dict lookup, one that is not costs one read of its environment
    (no router thread: a hand-off per event, most of them for stacks without any sink)."""
    try:
        stack_id = str(row["stack_id"])
        if _known_without_sinks(stack_id):
            return  # the usual case
        sinks = stack_sinks(stack_id)
        if sinks:
            body = event_body(row)
            for sink in sinks:
                courier(sink).put(body)
    except Exception as exc:
        log.warning("event %s not handed to the sinks: %s", row.get("uuid"), exc)


def flush(timeout: float = 10.0) -> bool:
    """Wait until every published event was delivered or dropped (tests, shutdown).
    :returns: False on timeout."""
    deadline = time.monotonic() + timeout
    with _lock:
        couriers = list(_couriers.values())
    return all(c.join(max(0.0, deadline - time.monotonic())) for c in couriers)
