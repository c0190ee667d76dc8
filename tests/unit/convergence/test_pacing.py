"""app.convergence.pacing: polls of a kind of action timed once follow its expected duration."""
from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

import pytest

from app.convergence import pacing
from app.convergence.rows import ResourceRow
from app.resource_types.base import Resource


def row(handle: Any) -> ResourceRow:
    now = dt.datetime(2026, 1, 1)
    return ResourceRow(id=1, uuid="u", stack_id="s", name="r", type="OS::Nova::Server",
                       action="CREATE", status="IN_PROGRESS", status_reason="",
                       physical_resource_id="p", requires=[], deletion_policy="Delete",
                       properties_data=None, rsrc_data={}, handle=handle, attr_data=None,
                       poll_attempt=1, engine_id=None, atomic_key=1, created_at=now,
                       updated_at=now)


class Paced(Resource):
    type_name = "Test::Paced"
    poll_initial: ClassVar[float] = 0.1
    poll_max: ClassVar[float] = 2.0

    def __init__(self) -> None:  # no stack needed: only the class attributes are read
        pass


class OwnPace(Paced):
    def poll_delay(self, handle: Any, attempt: int) -> float:
        return 7.0


@pytest.fixture(autouse=True)
def _fresh() -> Any:
    pacing.durations.clear()
    yield
    pacing.durations.clear()


def test_since_kept_across_polls_and_reset_by_a_new_action() -> None:
    assert pacing.since(row({"h": None, "since": 100.0, "last": 101.0}), False, 105.0) == 100.0
    assert pacing.since(row({"h": None, "since": 100.0}), True, 105.0) == 105.0
    assert pacing.since(row(None), False, 105.0) == 105.0


def test_untimed_kind_and_self_paced_plugins_keep_their_delay() -> None:
    key = ("OS::Nova::Server", "CREATE", True)
    assert pacing.delay(key, Paced(), 0.2, started=100.0, now=100.0) == 0.2
    pacing.durations.observe(key, 1.0)
    assert pacing.delay(key, Paced(), 0.2, started=100.0, now=100.0) == pytest.approx(1.0)
    assert pacing.delay(key, OwnPace(), 7.0, started=100.0, now=100.0) == 7.0
    assert pacing.delay(key, None, 0.3, started=100.0, now=100.0) == 0.3


def test_finished_observes_the_duration() -> None:
    key = ("OS::Nova::Server", "CREATE", True)
    pacing.finished(key, row({"h": None, "since": 100.0, "last": 100.0}), 101.0)
    assert pacing.durations.expected(key) == pytest.approx(1.0)   # first look found it done
    pacing.durations.clear()
    pacing.finished(key, row({"h": None, "since": 100.0, "last": 101.0}), 101.2)
    assert pacing.durations.expected(key) == pytest.approx(1.1)   # between the last two looks
    pacing.finished(("x", "CREATE", True), row(None), 101.0)      # never polled: nothing
    assert pacing.durations.expected(("x", "CREATE", True)) is None
