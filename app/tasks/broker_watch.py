"""A worker's watch on its broker (Redis): the database is the truth, so when the broker lost
messages the in-flight work is sent again from the database at once
(:func:`app.services.engine.redrive`), not at the reconciler's next idle sweep.

More in docs/code/tasks.md (app.tasks.broker_watch).
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import redis
from celery.worker.consumer import Consumer as CeleryConsumer

log = logging.getLogger(__name__)
#: Present while Redis kept its data (set by the first worker that finds it missing)
MARKER = "stoker:broker-marker"
#: Held (expiring) by the worker re-driving after one broker event
GUARD = "stoker:redrive"
GUARD_SECONDS = 5
#: s between two looks (a ``SET NX``; refused at once while the broker is down)
WATCH_SECONDS = 0.25
#: The consumer's reconnection: first wait, added each try, longest wait (s)
RECONNECT = {"interval_start": 0.1, "interval_step": 0.1, "interval_max": 0.25}
#: s between two log lines of a consumer that still cannot reach the broker
RECONNECT_LOG_SECONDS = 10.0


def redis_url(broker_url: str) -> str | None:
    """The redis-py URL of a Redis broker URL (``redis://``, ``rediss://``,
    ``redis+socket://``), or None for another broker."""
    scheme, _, rest = broker_url.partition("://")
    if scheme in ("redis", "rediss"):
        return broker_url
    if scheme == "redis+socket":
        return f"unix://{rest}"
    return None


class BrokerWatch:
    """Looks at the broker (:meth:`look`) and calls ``redrive`` after it lost messages."""

    def __init__(self, client: redis.Redis, redrive: Callable[[], Any], name: str) -> None:
        self.client, self.redrive, self.name = client, redrive, name
        self.lost = False

    def look(self) -> bool:
        """One look; :returns: whether this worker re-drove the in-flight work."""
        try:
            fresh = bool(self.client.set(MARKER, "1", nx=True))
            if not (fresh or self.lost):
                return False
            if not self.client.set(GUARD, self.name, nx=True, ex=GUARD_SECONDS):
                self.lost = False  # another worker re-drives for this event
                return False
        except redis.RedisError:
            self.lost = True
            return False
        try:
            self.redrive()
        except Exception:  # the database may be down as well: look again next time
            log.exception("re-driving the in-flight work after the broker's return failed")
            self.lost = True
            try:
                self.client.delete(GUARD)
            except redis.RedisError:
                pass
            return False
        self.lost = False
        return True

    def run(self) -> None:
        while True:
            self.look()
            time.sleep(WATCH_SECONDS)


_started: BrokerWatch | None = None


def start(broker_url: str, redrive: Callable[[], Any], name: str) -> BrokerWatch | None:
    """Start (once per process) the watch of a Redis broker in a daemon thread; None for
    another broker."""
    global _started
    url = redis_url(broker_url)
    if url is None or _started is not None:
        return _started
    client = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    _started = BrokerWatch(client, redrive, name)
    threading.Thread(target=_started.run, name="stoker-broker-watch", daemon=True).start()
    return _started


class Consumer(CeleryConsumer):  # type: ignore[misc]
    """Celery's worker consumer, reconnecting to a lost broker every quarter second at most
    (:data:`RECONNECT`; its failures logged once every :data:`RECONNECT_LOG_SECONDS`), and
    without Celery's mingle and gossip: mingle asks the other workers for their revoked tasks at
    every (re)connection and waits a whole second for their answers (Stoker revokes no task),
    gossip has each worker consume every other's events. Work resumes within about half a
    second of the broker's return."""

    def __init__(self, *args: Any, worker_options: dict[str, Any] | None = None,
                 **kwargs: Any) -> None:
        for key in ("without_mingle", "without_gossip"):
            kwargs.pop(key, None)
        options = {**(worker_options or {}), "without_mingle": True, "without_gossip": True}
        super().__init__(*args, worker_options=options, **kwargs)

    def ensure_connected(self, conn: Any) -> Any:
        plain = conn.ensure_connection

        def quick(errback: Callable[..., Any] | None = None, *args: Any, **kwargs: Any) -> Any:
            for key, value in RECONNECT.items():
                kwargs.setdefault(key, value)
            return plain(_every(RECONNECT_LOG_SECONDS, errback), *args, **kwargs)

        conn.ensure_connection = quick
        return super().ensure_connected(conn)


def _every(seconds: float, errback: Callable[..., Any] | None) -> Callable[..., Any] | None:
    """``errback`` called on the first failure, then at most once every ``seconds``."""
    if errback is None:
        return None
    last = [float("-inf")]

    def throttled(*args: Any, **kwargs: Any) -> Any:
        if time.monotonic() - last[0] < seconds:
            return None
        last[0] = time.monotonic()
        return errback(*args, **kwargs)

    return throttled
