"""app.convergence.store.pacing: polls of a kind of action timed once follow its expected duration."""
from __future__ import annotations

import datetime as dt
from typing import Any, ClassVar

import pytest

from app.convergence.store import pacing
from app.convergence.store.rows import ResourceRow
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


KEY0 = ("OS::Nova::Server", "CREATE", True, 0)


def test_a_started_action_begins_phase_zero_and_later_looks_keep_its_start() -> None:
    delay, timing = pacing.poll(row({"h": "old", "since": 50.0, "phase": 2}), "CREATE", True,
                                Paced(), "h", 0.2, True, 99.0, 100.0)
    assert delay == 0.2      # never timed: the plugin's own backoff
    assert timing == {"since": 100.0, "last": 99.0, "phase": 0, "fp": pacing.fingerprint("h")}
    # a later look that leaves the handle as it was stays in the phase, from its start
    _, again = pacing.poll(row({"h": "h", **timing}), "CREATE", True, Paced(), "h", 0.4,
                           False, 101.0, 101.1)
    assert (again["since"], again["last"], again["phase"]) == (100.0, 101.0, 0)
    assert pacing.durations.expected(KEY0) is None   # nothing ended


def test_a_look_that_moves_the_action_on_ends_its_phase_and_times_the_next_apart() -> None:
    # a resize: the look at 101.0 found the server ACTIVE and posted the resize (1 s), so the
    # handle changed: phase 0 ended at its first look, phase 1 begins when that look ended
    timing = {"since": 100.0, "last": 99.0, "phase": 0, "fp": pacing.fingerprint({"a": 0})}
    delay, nxt = pacing.poll(row({"h": {"a": 0}, **timing}), "UPDATE", True, Paced(),
                             {"a": 1}, 0.2, False, 101.0, 102.0)
    assert (nxt["since"], nxt["phase"]) == (102.0, 1)
    key0, key1 = ("OS::Nova::Server", "UPDATE", True, 0), ("OS::Nova::Server", "UPDATE", True, 1)
    # found over at its first look: at most 1 s, observed as a fraction of it
    assert pacing.durations.expected(key0) == pytest.approx(pacing.FIRST_LOOK_FRACTION * 1.0)
    assert delay == 0.2      # phase 1 never timed yet: the plugin's backoff, not phase 0's
    pacing.durations.observe(key1, 0.3)
    delay, _ = pacing.poll(row({"h": {"a": 1}, **timing}), "UPDATE", True, Paced(),
                           {"a": 2}, 0.2, False, 101.0, 102.0)
    assert delay == pytest.approx(0.3)   # the new phase's own estimate, from its own start


def test_phases_past_the_last_share_its_estimate() -> None:
    r = row(None)
    assert pacing.kind(r, "UPDATE", True, 99) == pacing.kind(r, "UPDATE", True,
                                                             pacing.LAST_PHASE)


def test_untimed_kind_and_self_paced_plugins_keep_their_delay() -> None:
    assert pacing.delay(KEY0, Paced(), 0.2, started=100.0, now=100.0) == 0.2
    pacing.durations.observe(KEY0, 1.0)
    assert pacing.delay(KEY0, Paced(), 0.2, started=100.0, now=100.0) == pytest.approx(1.0)
    assert pacing.delay(KEY0, OwnPace(), 7.0, started=100.0, now=100.0) == 7.0
    assert pacing.delay(KEY0, None, 0.3, started=100.0, now=100.0) == 0.3


def test_finished_observes_the_last_phase() -> None:
    pacing.finished(row({"h": None, "since": 100.0, "last": 99.5}), "CREATE", True, 101.0)
    # the first look found it done: it took at most 1 s
    assert pacing.durations.expected(KEY0) == pytest.approx(pacing.FIRST_LOOK_FRACTION * 1.0)
    pacing.durations.clear()
    pacing.finished(row({"h": None, "since": 100.0, "last": 101.0}), "CREATE", True, 101.2)
    assert pacing.durations.expected(KEY0) == pytest.approx(1.1)   # between the last two looks
    pacing.finished(row({"h": None, "since": 100.0, "last": 101.0, "phase": 2}), "CREATE",
                    True, 101.2)
    assert pacing.durations.expected(("OS::Nova::Server", "CREATE", True, 2)) == \
        pytest.approx(1.1)
    pacing.durations.clear()
    pacing.finished(row(None), "CREATE", True, 101.0)              # never polled: nothing
    assert pacing.durations.expected(KEY0) is None


def test_an_estimate_learnt_too_long_shrinks_back() -> None:
    """A kind once timed at 2 s whose actions now take 0.5 s: every first look finds it done,
    and each is observed as less than it waited, so the looks come earlier and earlier until
    they find the action unfinished (then it is timed between two looks)."""
    pacing.durations.observe(KEY0, 2.0)
    for _ in range(8):   # a handful of actions of one worker, not dozens
        wait = pacing.delay(KEY0, Paced(), 0.1, started=0.0, now=0.0)
        if wait < 0.5:
            break
        pacing.finished(row({"h": None, "since": 0.0, "last": -1.0}), "CREATE", True, wait)
    assert pacing.durations.expected(KEY0) < 0.6


def test_a_resource_starting_a_new_action_counts_its_looks_from_one() -> None:
    r = row(None)
    r.poll_attempt = 7   # the looks of its create
    assert r.next_attempt(start=object()) == 1
    assert r.next_attempt(start=None) == 8
