"""app.clients.constraints: catalogue names (flavors, images...) looked up once per connection,
as Heat keeps its constraint validations ([constraint_validation_cache], 60 s), and one lookup
in flight for readers that ask together."""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from app import errors
from app.clients import constraints
from app.clients.retry import Cloud


class _Flavor:
    def __init__(self, ident: str) -> None:
        self.id = ident


class _Compute:
    """find_flavor that takes ``seconds`` (a cloud's latency) and counts its calls."""

    def __init__(self, seconds: float = 0.0, fail: int = 0) -> None:
        self.seconds, self.fail = seconds, fail
        self.calls = 0
        self._lock = threading.Lock()

    def find_flavor(self, value: str, ignore_missing: bool = True) -> Any:
        with self._lock:
            self.calls += 1
            failing = self.fail > 0
            self.fail -= 1
        time.sleep(self.seconds)
        if failing:
            raise RuntimeError("the cloud hung up")
        return None if value == "missing" else _Flavor(f"id-of-{value}")


class _Conn:
    def __init__(self, compute: _Compute) -> None:
        self.compute = compute


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    constraints.forget_catalogue()
    yield
    constraints.forget_catalogue()


def _together(n: int, fn: Any) -> list[Any]:
    out: list[Any] = [None] * n
    go = threading.Barrier(n)

    def run(i: int) -> None:
        go.wait()
        try:
            out[i] = fn()
        except Exception as exc:  # kept, for the test to look at
            out[i] = exc
    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return out


def test_a_name_is_looked_up_once_and_kept() -> None:
    compute = _Compute()
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    assert constraints.resolve(cloud, "nova.flavor", "m1.small") == "id-of-m1.small"
    assert constraints.resolve(cloud, "nova.flavor", "m1.small") == "id-of-m1.small"
    assert compute.calls == 1


def test_readers_asking_together_share_one_lookup() -> None:
    compute = _Compute(seconds=0.2)
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    got = _together(20, lambda: constraints.resolve(cloud, "nova.flavor", "m1.small"))
    assert got == ["id-of-m1.small"] * 20
    assert compute.calls == 1


def test_a_failed_lookup_lets_each_waiting_reader_ask_on_its_own() -> None:
    compute = _Compute(seconds=0.2, fail=1)
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    got = _together(5, lambda: constraints.resolve(cloud, "nova.flavor", "m1.small"))
    assert sum(isinstance(g, Exception) for g in got) == 1   # the one that asked first
    assert [g for g in got if not isinstance(g, Exception)] == ["id-of-m1.small"] * 4
    assert compute.calls >= 2


def test_a_missing_name_is_heats_not_found_and_not_kept() -> None:
    compute = _Compute()
    cloud = Cloud(_Conn(compute), retry_limit=0, backoff=0)
    for _ in range(2):
        with pytest.raises(errors.CloudError) as got:
            constraints.resolve(cloud, "nova.flavor", "missing")
        assert got.value.status == 404
    assert compute.calls == 2


def test_other_connections_and_names_are_looked_up_apart() -> None:
    compute, other = _Compute(), _Compute()
    cloud, second = (Cloud(_Conn(compute), retry_limit=0, backoff=0),
                     Cloud(_Conn(other), retry_limit=0, backoff=0))
    constraints.resolve(cloud, "nova.flavor", "m1.small")
    constraints.resolve(cloud, "nova.flavor", "m1.tiny")
    constraints.resolve(second, "nova.flavor", "m1.small")
    assert (compute.calls, other.calls) == (2, 1)
