"""Fixtures for resource plugin tests: a stack identity, a fake clock, Heat's reference schemas."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
SHARED = REPO_ROOT.parent / "shared"
REFERENCE_TYPES = SHARED / "heat-reference" / "resource_types.json"


@dataclass(frozen=True)
class Identity:
    """Stands in for app.templates.StackIdentity."""

    stack_name: str = "vstack"
    stack_id: str = "0b2c5bd6-5d8c-4e8a-9d8f-0f1e2d3c4b5a"
    project_id: str = "admin"


class FakeClock:
    """Epoch seconds that only move when told to."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def stack() -> Identity:
    return Identity()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def heat_types() -> dict[str, Any]:
    """Heat 27's resource_types.json (skips when ../shared is not beside the repo)."""
    if not REFERENCE_TYPES.exists():
        pytest.skip(f"{REFERENCE_TYPES} not found")
    return json.loads(REFERENCE_TYPES.read_text())
