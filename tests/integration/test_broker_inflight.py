"""The Redis transport (app.tasks.transport) against a real Redis: a message is always in its queue,
in a consumer's in-flight list, or in ``unacked``, so a consumer killed at any moment loses nothing.

kombu's own transport pops a message (BRPOP) and records it in ``unacked`` only afterwards: a
consumer killed in between lost it. Here the consumer is made to stop exactly there (its
``QoS.append`` blocks) and is SIGKILLed; another consumer must receive the message again.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import redis
from kombu import Connection, Exchange, Queue

from app.tasks import transport
from tests.fixtures.stacks import wait_for
from tests.integration.conftest import REPO

pytestmark = pytest.mark.integration
OPTIONS = {"visibility_timeout": 1, "unacked_restore_interval": 1, "unacked_restore_throttle": 1,
           "priority_steps": [0]}
QUEUE = Queue("inflight-test", Exchange("inflight-test", "direct"), "inflight-test")

# A consumer that fetches one message and is stopped right after the fetch, before the message is
# recorded in ``unacked`` (the window in which kombu's BRPOP transport lost it).
STOPPED_CONSUMER = """
import sys, time
from kombu import Connection
from app.tasks import transport
from tests.integration.test_broker_inflight import OPTIONS, QUEUE

def stopped(self, message, delivery_tag):
    print("fetched", flush=True)
    time.sleep(3600)

transport.QoS.append = stopped
with Connection(sys.argv[1], transport_options=OPTIONS,
                **{"transport": transport.broker_conf(sys.argv[1])["broker_transport"]}) as c:
    with c.Consumer(QUEUE, callbacks=[lambda body, message: None], accept=["json"]):
        c.drain_events(timeout=60)
"""


def _connection(url: str) -> Connection:
    conf = transport.broker_conf(url)
    return Connection(conf["broker_url"], transport=conf["broker_transport"],
                      transport_options=OPTIONS)


@pytest.fixture()
def broker(redis_url: str) -> Iterator[str]:
    redis.Redis.from_url(redis_url).flushdb()
    yield redis_url
    redis.Redis.from_url(redis_url).flushdb()


def _publish(url: str, body: dict) -> None:
    with _connection(url) as c:
        c.Producer().publish(body, exchange=QUEUE.exchange, routing_key="inflight-test",
                             declare=[QUEUE], serializer="json")


def _receive(url: str, timeout: float) -> tuple[dict, object]:
    got: list[tuple[dict, object]] = []
    with _connection(url) as c:
        with c.Consumer(QUEUE, callbacks=[lambda body, m: got.append((body, m))],
                        accept=["json"]):
            deadline = time.time() + timeout
            while not got and time.time() < deadline:
                try:
                    c.drain_events(timeout=0.5)
                except TimeoutError:
                    pass
        assert got, "no message received"
        body, message = got[0]
        message.ack()
        return body, message


def test_the_transport_is_selected_for_redis_urls():
    assert transport.broker_conf("redis://h:6379/3")["broker_transport"] == transport.ALIAS
    assert transport.broker_conf("redis+socket:///d/redis.sock") == {
        "broker_url": f"{transport.ALIAS}+socket:///d/redis.sock", "broker_transport": None}
    for url in ("redis://h:6379/3", "redis+socket:///d/redis.sock"):
        conf = transport.broker_conf(url)
        c = Connection(conf["broker_url"], transport=conf["broker_transport"])
        assert c.get_transport_cls() is transport.Transport
    for url in ("memory://", "rediss://h:6380/1"):
        assert transport.broker_conf(url) == {"broker_url": url, "broker_transport": None}


def test_a_fetched_message_is_recorded_and_leaves_the_inflight_list(broker: str):
    r = redis.Redis.from_url(broker)
    _publish(broker, {"n": 1})
    got: list = []
    with _connection(broker) as c, \
            c.Consumer(QUEUE, callbacks=[lambda body, m: got.append((body, m))], accept=["json"]):
        c.drain_events(timeout=5)
        (body, message), = got
        assert body == {"n": 1}
        assert r.hexists("unacked", message.delivery_tag)
        assert [k for k in r.keys(f"{transport.INFLIGHT_PREFIX}*")] == []
        assert r.llen("inflight-test") == 0
        message.ack()
    assert r.hlen("unacked") == 0 and r.zcard("unacked_index") == 0


def test_a_consumer_killed_after_fetching_loses_nothing(broker: str):
    r = redis.Redis.from_url(broker)
    _publish(broker, {"n": 2})
    child = subprocess.Popen([sys.executable, "-c", STOPPED_CONSUMER, broker], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline().decode()
        assert line.strip() == "fetched", line + child.stdout.read().decode()
        # fetched, not recorded: in the consumer's in-flight list only
        assert r.llen("inflight-test") == 0 and r.hlen("unacked") == 0
        inflight = r.keys(f"{transport.INFLIGHT_PREFIX}*")
        assert len(inflight) == 1 and r.llen(inflight[0]) == 1
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(10)
    # another consumer's periodic restore requeues it once the dead lease is a visibility
    # timeout old; that consumer then receives it
    body, message = _receive(broker, timeout=15)
    assert body == {"n": 2}
    assert message.delivery_info.get("redelivered") or message.headers.get("redelivered")
    wait_for(lambda: not r.keys(f"{transport.INFLIGHT_PREFIX}*"), 5, what="in-flight lists gone")
    assert r.zcard(transport.INFLIGHT_INDEX) <= 1  # only the live consumer's lease, if any


# The same consumer on three queues (as a worker on the engine, poll and maintenance queues).
QUEUES = [Queue(f"inflight-{n}", Exchange(f"inflight-{n}", "direct"), f"inflight-{n}")
          for n in ("a", "b", "c")]
STOPPED_MULTI = STOPPED_CONSUMER.replace("from tests.integration.test_broker_inflight import "
                                         "OPTIONS, QUEUE", "from tests.integration.test_broker_"
                                         "inflight import OPTIONS, QUEUES as QUEUE")


def _publish_to(url: str, queue: Queue, body: dict) -> None:
    with _connection(url) as c:
        c.Producer().publish(body, exchange=queue.exchange, routing_key=queue.routing_key,
                             declare=[queue], serializer="json")


def test_a_consumer_of_several_queues_fetches_from_each_through_the_inflight_list(broker: str):
    r = redis.Redis.from_url(broker)
    for i, q in enumerate(QUEUES):
        _publish_to(broker, q, {"n": i})
    got: list = []
    with _connection(broker) as c, \
            c.Consumer(QUEUES, callbacks=[lambda body, m: got.append((body, m))], accept=["json"]):
        deadline = time.time() + 10
        while len(got) < 3 and time.time() < deadline:
            try:
                c.drain_events(timeout=0.5)
            except TimeoutError:
                pass
        assert sorted(b["n"] for b, _ in got) == [0, 1, 2]
        assert all(r.hexists("unacked", m.delivery_tag) for _, m in got)
        assert all(r.llen(q.name) == 0 for q in QUEUES)
        for _, m in got:
            m.ack()
    assert r.hlen("unacked") == 0


def test_a_consumer_of_several_queues_killed_after_fetching_loses_nothing(broker: str):
    r = redis.Redis.from_url(broker)
    _publish_to(broker, QUEUES[2], {"n": 9})   # the last queue: found by the sweep
    child = subprocess.Popen([sys.executable, "-c", STOPPED_MULTI, broker], cwd=REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    try:
        assert child.stdout is not None
        line = child.stdout.readline().decode()
        assert line.strip() == "fetched", line + child.stdout.read().decode()
        assert r.llen(QUEUES[2].name) == 0 and r.hlen("unacked") == 0
        inflight = r.keys(f"{transport.INFLIGHT_PREFIX}*")
        assert len(inflight) == 1 and r.llen(inflight[0]) == 1
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(10)
    got: list = []
    with _connection(broker) as c, \
            c.Consumer(QUEUES, callbacks=[lambda body, m: got.append((body, m))], accept=["json"]):
        deadline = time.time() + 15
        while not got and time.time() < deadline:
            try:
                c.drain_events(timeout=0.5)
            except TimeoutError:
                pass
        assert [b for b, _ in got] == [{"n": 9}]
        got[0][1].ack()


def test_an_idle_consumer_of_several_queues_blocks_on_its_main_queue(broker: str):
    # after serving its main (first) queue, the round-robin puts that queue last; the idle wait
    # must still block on it, or each step of a chain waits out the block (~200 ms a hop)
    _publish_to(broker, QUEUES[0], {"n": 0})
    got: list = []
    with _connection(broker) as c, \
            c.Consumer(QUEUES, callbacks=[lambda body, m: got.append((body, m))], accept=["json"]):
        deadline = time.time() + 10
        while not got and time.time() < deadline:
            try:
                c.drain_events(timeout=0.5)
            except TimeoutError:
                pass
        assert [b for b, _ in got] == [{"n": 0}]
        got[0][1].ack()
        channel = c.default_channel
        for _ in range(20):  # until the sweep found every queue empty and the idle wait began
            with pytest.raises(TimeoutError):
                c.drain_events(timeout=0.05)
            if channel._idle_wait and channel._blmove_queue is not None:
                break
        assert channel._idle_wait and channel._blmove_queue == QUEUES[0].name


def test_a_publish_batch_delivers_every_message_and_reads_the_bindings_once(broker: str):
    with _connection(broker) as c:
        producer = c.Producer()
        producer.maybe_declare(QUEUE)
        channel = producer.channel
        reads: list[str] = []
        real = transport.kredis.Channel.get_table

        def counting(self, exchange):  # type: ignore[no-untyped-def]
            reads.append(exchange)
            return real(self, exchange)

        transport.kredis.Channel.get_table = counting
        try:
            with producer.batch():
                for n in range(3):
                    producer.publish({"n": n}, exchange=QUEUE.exchange, routing_key="inflight-test",
                                     serializer="json")
                assert redis.Redis.from_url(broker).llen("inflight-test") == 0  # not yet sent
        finally:
            transport.kredis.Channel.get_table = real
        assert reads == ["inflight-test"] and channel._batch_tables is None
    got = [_receive(broker, 10)[0] for _ in range(3)]
    assert sorted(b["n"] for b in got) == [0, 1, 2]
