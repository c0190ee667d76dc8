"""Test doubles for resource plugin tests: a stack identity and a clock that moves when told."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    """Stands in for app.templates.StackIdentity (the oracle vectors' stack is ``vstack``)."""

    stack_name: str = "vstack"
    stack_id: str = "0b2c5bd6-5d8c-4e8a-9d8f-0f1e2d3c4b5a"
    project_id: str = "admin"


class FakeClock:
    """Epoch seconds that only move when told to (inject as ``resource.clock``)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
