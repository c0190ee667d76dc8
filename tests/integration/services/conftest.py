"""Fixtures of the engine's step tests: ``rec``, a dispatcher that only records what is
enqueued, so a test decides when each node runs (a rerun is a redelivery)."""
from __future__ import annotations

import pytest

from app import convergence
from tests.fixtures.wiring import use_dispatcher


class Recorder:
    """Records enqueued nodes; the test decides when each runs (a redelivery is a rerun)."""

    def __init__(self) -> None:
        self.queue: list[tuple] = []

    def check_resource(self, *args, countdown: float = 0.0) -> None:
        self.queue.append(args)

    def check_resources(self, stack_id, traversal_id, nodes) -> None:
        for rid, upd in nodes:
            self.queue.append((stack_id, traversal_id, rid, upd))

    def safety_poll(self, *args, **kwargs) -> None:
        pass  # a waiting node's fallback timer: the test wakes nodes by their events

    def run_all(self, limit: int = 1000) -> int:
        n = 0
        while self.queue and n < limit:
            convergence.check_resource(*self.queue.pop(0))
            n += 1
        return n


@pytest.fixture()
def rec(db):
    r = Recorder()
    return use_dispatcher(r)
