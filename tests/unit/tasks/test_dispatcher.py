"""The Celery dispatcher's messages: a wide fan-out goes out in producer batches (sent again
step by step when a batch fails), and labels are wanted once task events are on in the worker."""
from __future__ import annotations

import dataclasses

from app import config
from app.tasks import dispatcher, labels


class _Producer:
    def __init__(self, fail: bool) -> None:
        self.fail, self.batches = fail, 0

    def batch(self):  # type: ignore[no-untyped-def]
        producer = self

        class Batch:
            def __enter__(self):  # type: ignore[no-untyped-def]
                producer.batches += 1
                return self

            def __exit__(self, exc_type, *_: object) -> None:
                if exc_type is None and producer.fail:
                    raise ConnectionError("batch failed; delivery is uncertain")

        return Batch()


class _App:
    def __init__(self, fail: bool) -> None:
        self.producer, self.sent = _Producer(fail), []

    def producer_or_acquire(self):  # type: ignore[no-untyped-def]
        import contextlib
        return contextlib.nullcontext(self.producer)

    def send_task(self, name, args, **kw):  # type: ignore[no-untyped-def]
        assert kw["producer"] is self.producer and kw["ignore_result"] is True
        self.sent.append(args[2])


def test_a_batch_of_steps_goes_out_in_one_producer_batch(settings):
    app = _App(fail=False)
    dispatcher.CeleryDispatcher(app).check_resources("s", "t", [(1, True), (2, True), (3, True)])
    assert app.producer.batches == 1 and app.sent == [1, 2, 3]


def test_a_failed_batch_is_sent_again_step_by_step(settings):
    app = _App(fail=True)  # kombu cannot tell what went out: everything again, one by one
    dispatcher.CeleryDispatcher(app).check_resources("s", "t", [(1, True), (2, True)])
    assert app.producer.batches == 1 and app.sent == [1, 2, 1, 2]


def test_a_fan_out_wider_than_twice_the_fleet_goes_out_in_batches(settings, monkeypatch):
    app = _App(fail=False)
    sent: list[tuple[str, tuple]] = []
    app.send_task = lambda name, args, **kw: sent.append((name, args))  # type: ignore[method-assign]
    d = dispatcher.CeleryDispatcher(app)
    d.parallelism, d.batch_max = 2, 3
    nodes = [(i, True) for i in range(10)]
    d.check_resources("s", "t", nodes)
    assert {name for name, _ in sent} == {"stoker.check_resources"}
    carried = [tuple(n) for _, args in sent for n in args[2]]
    assert carried == nodes                      # every node once, in order
    assert max(len(args[2]) for _, args in sent) <= 3
    sent.clear()
    d.check_resources("s", "t", nodes[:4])       # not wider than twice the fleet: one each
    assert [name for name, _ in sent] == ["stoker.check_resource"] * 4


def test_labels_are_wanted_once_a_flower_turns_the_workers_task_events_on(settings, monkeypatch):
    """Celery's ``enable_events`` (what a Flower sends) adds ``task`` to the worker's event
    groups; from then on the messages the worker sends carry labels again."""
    class Events:
        enabled, groups = True, {"worker"}

    class Consumer:
        event_dispatcher = Events()

    monkeypatch.setattr(labels, "_consumer", Consumer())
    assert not labels.wanted()
    Events.groups = {"worker", "task"}
    assert labels.wanted()
    Events.enabled = False
    assert not labels.wanted()
    monkeypatch.setattr(labels, "_consumer", None)
    config.set_current(dataclasses.replace(settings, task_events=True))
    assert labels.wanted()
