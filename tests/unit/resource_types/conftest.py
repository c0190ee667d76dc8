"""Fixtures for resource plugin tests: a stack identity, a fake clock, Heat's reference schemas."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .helpers import FakeClock, Identity


@pytest.fixture
def stack() -> Identity:
    return Identity()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def heat_types(shared: Path) -> dict[str, Any]:
    """Heat 27's ``resource_types.json`` from ``../shared`` (the root ``shared`` fixture fails
    loudly when the folder is missing: a schema comparison must never be skipped)."""
    data: dict[str, Any] = json.loads(
        (shared / "heat-reference" / "resource_types.json").read_text())
    return data
