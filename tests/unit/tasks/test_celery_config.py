"""The Celery app's configuration: Stoker's defaults, and an operator's ``celeryconfig`` on top."""
from __future__ import annotations

import sys
import types

from app import tasks


def test_defaults_are_late_acks_and_the_in_flight_transport():
    app = tasks.make_celery()
    assert app.conf.task_acks_late is True and app.conf.task_reject_on_worker_lost is True
    options = app.conf.broker_transport_options
    assert options["priority_steps"] == [0]
    # kombu's default (300 s) stops restores for five minutes after a kill mid-restore
    assert options["unacked_mutex_expire"] <= 30


def test_an_operators_celeryconfig_wins(monkeypatch):
    module = types.ModuleType("celeryconfig")
    module.worker_prefetch_multiplier = 1
    module.task_acks_late = False
    module.UPPER_CASE_IGNORED = 3
    monkeypatch.setitem(sys.modules, "celeryconfig", module)
    app = tasks.make_celery()
    assert app.conf.worker_prefetch_multiplier == 1 and app.conf.task_acks_late is False
    assert tasks.operator_overrides() == {"worker_prefetch_multiplier": 1,
                                          "task_acks_late": False}
