"""A worker's consumer after its broker came back (app.tasks.broker_watch.Consumer): no
mingle (a second spent waiting for the other workers' revoked tasks at every reconnection)
nor gossip, whatever the worker's options; a reconnection tried every quarter second at
most, its failures logged once every RECONNECT_LOG_SECONDS; and, from celeryconfig.py, tried
until the broker is back (Celery's default gives up after 100 tries)."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from app.tasks import broker_watch, celery_app


def _consumer(**options: Any) -> broker_watch.Consumer:
    return broker_watch.Consumer(lambda *a: None, app=celery_app, hostname="t@x",
                                 controller=SimpleNamespace(use_eventloop=False),
                                 worker_options=options)


def _enabled(consumer: broker_watch.Consumer) -> dict[str, Any]:
    return {name.rpartition(".")[2]: step.enabled
            for name, step in consumer.blueprint.steps.items()}


def test_the_consumer_neither_mingles_nor_gossips_whatever_the_options_say():
    for options in ({}, {"without_mingle": False, "without_gossip": False}):
        steps = _enabled(_consumer(**options))
        assert steps["Mingle"] is False and steps["Gossip"] is False
        assert steps["Tasks"] is True and steps["Heart"] is True   # Flower's heartbeats stay


def test_a_lost_broker_is_tried_again_at_most_every_quarter_second_and_logged_seldom(
        monkeypatch):
    calls: list[dict[str, Any]] = []
    logged: list[tuple[Any, ...]] = []
    clock = [100.0]
    monkeypatch.setattr(broker_watch.time, "monotonic", lambda: clock[0])

    class Conn:
        def ensure_connection(self, errback: Any = None, *args: Any, **kwargs: Any) -> Any:
            calls.append({"args": args, **kwargs})
            for _ in range(5):            # five failed tries, 0.1 s apart
                errback(OSError("refused"), 0.1)
                clock[0] += 0.1
            clock[0] += broker_watch.RECONNECT_LOG_SECONDS
            errback(OSError("refused"), 0.25)
            return self

    # Celery's own: its errback logs each failure; 100: broker_connection_max_retries
    monkeypatch.setattr(broker_watch.CeleryConsumer, "ensure_connected",
                        lambda self, conn: conn.ensure_connection(
                            lambda *a: logged.append(a), 100))
    _consumer().ensure_connected(Conn())
    assert calls[0]["interval_max"] == 0.25 and calls[0]["interval_start"] == 0.1
    assert calls[0]["args"] == (100,)
    assert [a[1] for a in logged] == [0.1, 0.25]   # the first failure, then one 10 s on


def test_celeryconfig_retries_a_lost_broker_until_it_is_back():
    assert celery_app.conf.broker_connection_max_retries is None
