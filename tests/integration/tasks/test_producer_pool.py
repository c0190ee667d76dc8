"""The Celery dispatcher's producer pool against a real Redis: many threads sending their
first messages at once all get through (kombu resized the pool under them: "Can't shrink
pool when in use"), and the pool is built from the broker the app is configured with when
the first message goes out, not when the dispatcher was made."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from kombu import pools

from app import config
from app.tasks import broker, dispatcher, make_celery

THREADS = 24


@pytest.fixture()
def fresh(settings: config.Settings, redis_url: str) -> Iterator[tuple[Any, Any]]:
    """A Celery app of its own and its dispatcher, made before the app is pointed at the test
    Redis (as ``app.cli.wsgi`` makes the dispatcher before any request); kombu's process-wide
    pool limit as it was afterwards."""
    limit = pools.get_limit()
    app = make_celery(settings)
    d = dispatcher.CeleryDispatcher(app)
    app.conf.update(**broker(settings, redis_url))
    redis.Redis.from_url(redis_url).delete("stoker.engine")
    yield app, d
    app.close()
    pools.set_limit(limit)


def _first_sends_at_once(d: dispatcher.CeleryDispatcher) -> list[BaseException]:
    """:data:`THREADS` threads each sending one job at the same moment; the errors raised."""
    start, errors = threading.Barrier(THREADS), []

    def send(i: int) -> None:
        start.wait()
        try:
            d.job("noop", (i,))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return errors


def test_threads_sending_their_first_messages_at_once_all_get_through(fresh, redis_url,
                                                                      monkeypatch):
    """``broker_pool_limit`` below kombu's default of 10 (an operator's celeryconfig), and
    kombu's limit applied a little late (the thread that builds the pool is preempted there):
    Celery alone publishes its pool with kombu's 10 slots, other threads take producers from
    it, and the resize to 4 then fails."""
    app, d = fresh
    app.conf.broker_pool_limit = 4
    set_limit = pools.set_limit

    def late(limit: int, *args: Any, **kwargs: Any) -> int:
        time.sleep(0.2)
        return set_limit(limit, *args, **kwargs)

    monkeypatch.setattr(pools, "set_limit", late)
    errors = _first_sends_at_once(d)
    assert errors == []
    assert redis.Redis.from_url(redis_url).llen("stoker.engine") == THREADS
    assert app.amqp.producer_pool.limit == 4


def test_the_pool_is_built_from_the_broker_configured_before_the_first_message(fresh,
                                                                               redis_url):
    """The dispatcher was made while the app still named the default (socket) broker; its
    messages reach the broker configured afterwards, the pool is built once."""
    app, d = fresh
    d.job("noop", (1,))
    pool = app.amqp.producer_pool
    d.check_resource("s", "t", 1, True)
    assert app.amqp.producer_pool is pool
    assert pool.connections.connection.as_uri().endswith(redis_url.rsplit("/", 1)[-1])
    assert redis.Redis.from_url(redis_url).llen("stoker.engine") == 2
