"""kombu's Redis transport, with no window in which a fetched task exists only in a worker's memory.

More in docs/code/tasks.md (app.tasks.transport).
"""
from __future__ import annotations

import logging
import uuid
from time import monotonic, time
from typing import Any

from kombu.transport import TRANSPORT_ALIASES, virtual
from kombu.transport import redis as kredis
from kombu.utils.encoding import bytes_to_str
from kombu.utils.json import dumps, loads

INFLIGHT_PREFIX = "unacked_inflight:"
INFLIGHT_INDEX = "unacked_inflight_index"
LEASE_REFRESH_SECONDS = 1.0
#: seconds an idle worker consuming several queues blocks on one before it sweeps them all again
MULTI_QUEUE_BLOCK = 0.1
#: KEYS: the queues in the order to try, then the in-flight list -> {index of the queue, message}
SWEEP = """
for i = 1, #KEYS - 1 do
  local item = redis.call('LMOVE', KEYS[i], KEYS[#KEYS], 'RIGHT', 'LEFT')
  if item then return {i, item} end
end
return false
"""
NEVER = float("-inf")
log = logging.getLogger(__name__)
ALIAS = "stoker-redis"
TRANSPORT_ALIASES.setdefault(ALIAS, "app.tasks.transport:Transport")


def broker_conf(url: str) -> dict[str, Any]:
    """Celery's ``broker_url`` and ``broker_transport`` selecting this transport for ``redis://``
    and ``redis+socket://`` URLs; any other URL is left to kombu.

    kombu takes the transport of a ``scheme+...://`` URL from the URL alone, ignoring an explicit
    one, so ``redis+socket://`` becomes ``stoker-redis+socket://`` (an alias of this transport).
    ``rediss://`` stays kombu's: an explicit transport would hide the scheme from kombu's TLS
    defaults, and a setting given here would override an operator's ``broker_use_ssl``."""
    scheme, _, rest = url.partition("://")
    if scheme == "redis":
        return {"broker_url": url, "broker_transport": ALIAS}
    if scheme == "redis+socket":
        return {"broker_url": f"{ALIAS}+socket://{rest}", "broker_transport": None}
    return {"broker_url": url, "broker_transport": None}


class QoS(kredis.QoS):
    """Records a message fetched by BLMOVE in ``unacked`` and removes it from the channel's
    in-flight list in one transaction; the periodic restore also restores abandoned lists."""

    def append(self, message: Any, delivery_tag: str) -> None:
        channel = self.channel
        item = channel._inflight_item
        if item is None:
            return super().append(message, delivery_tag)
        delivery = message.delivery_info
        with self.pipe_or_acquire() as pipe:  # MULTI ... EXEC
            pipe.zadd(self.unacked_index_key, {delivery_tag: time()}) \
                .hset(self.unacked_key, delivery_tag,
                      dumps([message._raw, delivery["exchange"], delivery["routing_key"]])) \
                .lrem(channel.inflight_key, 1, item) \
                .execute()
        channel._inflight_item = None
        virtual.QoS.append(self, message, delivery_tag)

    def restore_visible(self, start: int = 0, num: int | None = 10, interval: int = 10) -> None:
        if self.channel._lease_refreshed != NEVER:  # a consuming channel: keep its lease
            self.channel._refresh_lease()
        scans = self._vrestore_count % (interval or 1) == 0  # the base class scans this call
        super().restore_visible(start, num, interval)
        if scans:
            self.channel._restore_abandoned()


class PublishBatch(kredis.PublishBatch):
    """kombu's publish batch (``Producer.batch``: one pipeline), during which the channel
    reads each exchange's binding table once, not once a message (a round trip each)."""

    def __init__(self, channel: Any, max_size: int) -> None:
        super().__init__(channel, max_size)
        channel._batch_tables = {}

    def close(self) -> None:
        self.channel._batch_tables = None
        super().close()


class Channel(kredis.Channel):
    """kombu's Redis channel fetching with BLMOVE into an in-flight list (see the module)."""

    QoS = QoS
    _sync_client: tuple[Any, Any] | None = None  # (its pool, the client shared by commands)
    _batch_tables: dict[str, Any] | None = None  # binding tables read in an open publish batch

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inflight_key = f"{INFLIGHT_PREFIX}{uuid.uuid4().hex}"
        self._blmove_queue: str | None = None    # the queue of the BLMOVE awaiting its reply
        self._sweep_queues: list[str] | None = None  # the queues of the SWEEP awaiting its reply
        self._swept_empty = False                 # the last sweep found every queue empty
        self._idle_wait = False                   # the outstanding BLMOVE is an idle wait
        self._inflight_item: bytes | None = None  # fetched, not yet recorded in unacked
        self._orphans = False                     # own in-flight list may hold unread moves
        self._lease_refreshed = NEVER
        self._sync_client = None

    def create_publish_batch(self, max_size: int) -> PublishBatch:
        return PublishBatch(self, max_size)

    def get_table(self, exchange: str) -> Any:
        tables = self._batch_tables
        if tables is None:
            return super().get_table(exchange)
        found = tables.get(exchange)
        if found is None:
            found = tables[exchange] = super().get_table(exchange)
        return found

    def _create_client(self, asynchronous: bool = False) -> Any:
        """The client of every command outside the fetch (publish, ack, ``unacked``, leases).

        kombu builds a new redis-py client for each (copying its ~250 response callbacks:
        about a tenth of a busy worker's Python time); one per connection pool serves them all,
        as a redis-py client may be shared between threads (each command takes a connection
        from the pool). A new pool (after a fork or a reconnect) gets a new client."""
        if asynchronous or self.global_keyprefix:
            return super()._create_client(asynchronous)
        pool = self.pool
        cached = self._sync_client
        if cached is None or cached[0] is not pool:
            cached = self._sync_client = (pool, super()._create_client())
        return cached[1]

    # ---- fetching -------------------------------------------------------------------------
    def _consumed(self) -> list[str] | None:
        """The queues to fetch from, in kombu's round-robin order, or None (BRPOP fallback: a
        key prefix, or several priority steps)."""
        if self.global_keyprefix or len(self.priority_steps) != 1:
            return None
        return self._queue_cycle.consume(len(self.active_queues)) or None

    def _brpop_start(self, timeout: float | None = None) -> None:
        if self._blmove_queue is not None or self._sweep_queues is not None:
            self._orphans = True  # the last fetch's reply was never read (reconnect)
        self._blmove_queue = self._sweep_queues = None
        queues = self._consumed()
        if queues is None:
            return super()._brpop_start(timeout)
        if self._orphans:
            self._restore_own()
        self._refresh_lease(force=self._lease_refreshed == NEVER)
        if timeout is None:
            timeout = self.brpop_timeout
        self._in_poll = self.client.connection
        self._brpop_sent_at = monotonic()  # type: ignore[assignment]
        if len(queues) > 1 and not self._swept_empty:
            self._sweep_queues, self._idle_wait = queues, False
            keys = [self._q_for_pri(q, self.priority_steps[0]) for q in queues]
            self.client.connection.send_command("EVAL", SWEEP, len(keys) + 1, *keys,
                                                self.inflight_key)
            return
        self._idle_wait = len(queues) > 1
        if self._idle_wait:
            timeout, self._swept_empty = MULTI_QUEUE_BLOCK, False
        # idle: block on the main queue (the first consumed), not the round-robin's first
        queue = self.active_queues[0] if self._idle_wait else queues[0]
        self._blmove_queue = queue
        self.client.connection.send_command("BLMOVE", self._q_for_pri(queue, self.priority_steps[0]),
                                            self.inflight_key, "RIGHT", "LEFT", timeout or 0)

    def _fetched(self, **options: Any) -> tuple[str, Any] | None:
        """(queue, reply) of the outstanding BLMOVE or SWEEP, or None when there is none."""
        queue, self._blmove_queue = self._blmove_queue, None
        swept, self._sweep_queues = self._sweep_queues, None
        if queue is None and swept is None:
            return None
        try:
            reply = self.client.parse_response(self.client.connection,
                                               "BLMOVE" if swept is None else "EVAL", **options)
        except self.connection_errors:
            self._orphans = True
            self.client.connection.disconnect()
            raise
        if swept is None:
            return str(queue), reply
        if not reply:
            self._swept_empty = True
            return swept[0], None
        return swept[int(reply[0]) - 1], reply[1]

    def _brpop_read(self, **options: Any) -> bool:
        if self._blmove_queue is None and self._sweep_queues is None:
            return super()._brpop_read(**options)
        try:
            fetched = self._fetched(**options)
            assert fetched is not None
            queue, item = fetched
            if not item:
                if self._idle_wait:  # idle: what kombu does when a poll times out with no data
                    self.connection.cycle.maybe_restore_messages()
                raise kredis.Empty()
            self._queue_cycle.rotate(queue)  # the next fetch starts with the next queue
            self._inflight_item = item
            requeue = False
            try:
                self.connection._deliver(loads(bytes_to_str(item)), queue)
            except self.connection_errors:  # recording it failed: requeue it at the next fetch
                requeue = True
                raise
            finally:
                if self._inflight_item is not None:  # not recorded in unacked
                    self._inflight_item = None
                    if requeue:
                        self._orphans = True
                    else:
                        self._forget(item)
            return True
        finally:
            self._in_poll = None  # type: ignore[assignment]
            flush = getattr(self, "_flush_brpop_reauth", None)  # kombu >= 5.6
            if flush is not None:
                flush()

    def _forget(self, item: bytes) -> None:
        """Drop a fetched message that ``QoS.append`` did not record: consumed without
        acknowledgement (``no_ack``), or not deliverable (malformed), as kombu drops it."""
        try:
            with self.conn_or_acquire() as client:
                client.lrem(self.inflight_key, 1, item)
        except self.connection_errors:
            self._orphans = True

    def _poll_error(self, type: str, **options: Any) -> Any:
        if type == "BRPOP" and (self._blmove_queue is not None or self._sweep_queues is not None):
            command = "BLMOVE" if self._sweep_queues is None else "EVAL"
            self._blmove_queue = self._sweep_queues = None
            self._orphans = True
            return self.client.parse_response(self.client.connection, command)
        return super()._poll_error(type, **options)

    # ---- in-flight lists --------------------------------------------------------------------
    def _refresh_lease(self, force: bool = False) -> None:
        now = monotonic()
        if force or now - self._lease_refreshed >= LEASE_REFRESH_SECONDS:
            with self.conn_or_acquire() as client:
                client.zadd(INFLIGHT_INDEX, {self.inflight_key: time()})
            self._lease_refreshed = now

    def close(self) -> None:
        """A channel closed in order gives back what it moved but never recorded and drops its
        lease at once (a dead one's is found by :meth:`_restore_abandoned` after the timeout)."""
        if not self.closed:
            try:
                with self.conn_or_acquire() as client:
                    self._restore_list(client, self.inflight_key, None)
                    client.zrem(INFLIGHT_INDEX, self.inflight_key)
            except self.connection_errors as exc:
                log.warning("in-flight list %s not released at close: %s", self.inflight_key, exc)
        super().close()

    def _restore_own(self) -> None:
        """Requeue what this channel moved but never recorded (a reply lost to a reconnect)."""
        with self.conn_or_acquire() as client:
            self._restore_list(client, self.inflight_key, None)
        self._orphans = False

    def _restore_abandoned(self) -> None:
        """Requeue the in-flight messages of channels whose lease is older than
        ``visibility_timeout`` (their worker died), as ``restore_visible`` does for ``unacked``."""
        ceil = time() - self.visibility_timeout
        with self.conn_or_acquire() as client:
            for key in client.zrange(INFLIGHT_INDEX, "-inf", ceil, byscore=True):
                key = bytes_to_str(key)
                if key != self.inflight_key:
                    self._restore_list(client, key, ceil)

    def _restore_list(self, client: Any, key: str, ceil: float | None) -> None:
        """Move every message of in-flight list ``key`` back to its queue, atomically; with
        ``ceil``, only if the list's lease is (still) not newer than ``ceil``, and drop the lease."""
        restored: list[int] = []

        def restore(pipe: Any) -> None:
            restored.clear()
            if ceil is not None:
                score = pipe.zscore(INFLIGHT_INDEX, key)
                if score is not None and score > ceil:
                    return  # refreshed meanwhile: its owner lives
            items = pipe.lrange(key, 0, -1)
            pipe.multi()
            pipe.delete(key)
            if ceil is not None:
                pipe.zrem(INFLIGHT_INDEX, key)
            for raw in items:  # newest first: the oldest ends rightmost, consumed first
                try:
                    payload = loads(bytes_to_str(raw))
                    info = payload["properties"]["delivery_info"]
                except (ValueError, TypeError, KeyError):
                    log.error("Dropped a malformed in-flight message: %r", raw[:200])
                    continue
                self._do_restore_message(payload, info["exchange"], info["routing_key"], pipe)
            restored.append(len(items))

        client.transaction(restore, key, INFLIGHT_INDEX)
        if restored and restored[0]:
            log.warning("Restored %d message(s) fetched but never recorded by %s channel %s",
                        restored[0], "a dead" if ceil is not None else "this", key)


class Transport(kredis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
