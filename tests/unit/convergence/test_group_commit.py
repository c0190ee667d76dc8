"""Group commit (:mod:`app.convergence.store.group_commit`): callers that arrive while a batch is
being written share the next one; each gets its own result or error; nobody waits forever."""
from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from app.convergence.store.group_commit import GroupCommit, Interrupted


def _until(cond: Any, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.005)


def test_a_caller_alone_writes_its_own_item_at_once() -> None:
    batches: list[list[int]] = []

    def write(items: list[int]) -> list[int]:
        batches.append(items)
        return [i * 10 for i in items]
    g: GroupCommit[int, int] = GroupCommit(write)
    assert g.submit(1) == 10
    assert g.submit(2) == 20
    assert batches == [[1], [2]]
    assert g.waiting == 0


class _Gated:
    """A write whose first batch waits for ``gate``; records every batch."""

    def __init__(self, result: Any = None) -> None:
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.batches: list[list[Any]] = []
        self.result = result or (lambda items: [f"r{i}" for i in items])

    def __call__(self, items: list[Any]) -> list[Any]:
        self.batches.append(list(items))
        if len(self.batches) == 1:
            self.entered.set()
            assert self.gate.wait(5)
        return self.result(items)  # type: ignore[no-any-return]


def _submit_all(g: GroupCommit[Any, Any], write: _Gated, items: list[Any]) -> dict[Any, Any]:
    """The first item's caller writes alone and is held in its write while the others
    arrive (they queue); then the gate opens. :returns: what each caller got."""
    got: dict[Any, Any] = {}

    def run(i: Any) -> None:
        try:
            got[i] = g.submit(i)
        except Exception as exc:  # the test reads what each caller got
            got[i] = exc
    threads = [threading.Thread(target=run, args=(i,)) for i in items]
    threads[0].start()
    assert write.entered.wait(5)
    for t in threads[1:]:
        t.start()
    _until(lambda: g.waiting == len(threads) - 1)
    write.gate.set()
    for t in threads:
        t.join(5)
    return got


def test_callers_arriving_during_a_write_share_the_next_batch_and_each_gets_its_own() -> None:
    write = _Gated()
    g: GroupCommit[int, str] = GroupCommit(write)
    got = _submit_all(g, write, [0, 1, 2, 3, 4])
    assert len(write.batches) == 2
    assert write.batches[0] == [0] and sorted(write.batches[1]) == [1, 2, 3, 4]
    assert got == {i: f"r{i}" for i in range(5)}
    assert g.waiting == 0
    assert g.submit(9) == "r9"  # the group is free again: a lone caller writes at once


def test_an_error_given_for_one_item_is_raised_in_its_caller_only() -> None:
    def result(items: list[int]) -> list[Any]:
        return [ValueError(f"bad {i}") if i == 2 else i for i in items]
    write = _Gated(result)
    g: GroupCommit[int, Any] = GroupCommit(write)
    got = _submit_all(g, write, [0, 1, 2, 3])
    assert isinstance(got[2], ValueError) and str(got[2]) == "bad 2"
    assert {i: got[i] for i in (0, 1, 3)} == {0: 0, 1: 1, 3: 3}


def test_a_write_that_raises_fails_its_whole_batch_and_the_next_batch_still_runs() -> None:
    calls: list[list[int]] = []
    gate, entered = threading.Event(), threading.Event()

    def write(items: list[int]) -> list[int]:
        calls.append(items)
        if len(calls) == 1:
            entered.set()
            assert gate.wait(5)
            return items
        if len(calls) == 2:
            raise OSError("database went away")
        return items
    g: GroupCommit[int, int] = GroupCommit(write)
    got: dict[int, Any] = {}

    def run(i: int) -> None:
        try:
            got[i] = g.submit(i)
        except Exception as exc:  # recorded for the assertions
            got[i] = exc
    first = threading.Thread(target=run, args=(0,))
    first.start()
    assert entered.wait(5)
    others = [threading.Thread(target=run, args=(i,)) for i in (1, 2)]
    for t in others:
        t.start()
    _until(lambda: g.waiting == 2)
    gate.set()
    for t in [first, *others]:
        t.join(5)
    assert got[0] == 0
    assert all(isinstance(got[i], OSError) for i in (1, 2))
    assert g.submit(5) == 5  # handed over: not stuck busy


def test_a_batch_is_at_most_largest_and_the_rest_follow() -> None:
    write = _Gated()
    g: GroupCommit[int, str] = GroupCommit(write, largest=2)
    got = _submit_all(g, write, [0, 1, 2, 3, 4])
    assert got == {i: f"r{i}" for i in range(5)}
    assert [len(b) for b in write.batches] == [1, 2, 2]


def test_a_write_that_returns_too_few_results_interrupts_the_rest() -> None:
    g: GroupCommit[int, int] = GroupCommit(lambda items: [])
    with pytest.raises(Interrupted, match="interrupted"):
        g.submit(1)
    assert g.waiting == 0


def test_a_write_that_submits_again_writes_that_item_alone_instead_of_waiting_on_itself() -> None:
    """An inline dispatcher may run a step from inside a batch's write (a traversal that
    finished wakes its parent): that step's submit must not queue behind the write running
    it."""
    batches: list[list[str]] = []
    g: GroupCommit[str, str] = GroupCommit(lambda items: write(items))

    def write(items: list[str]) -> list[str]:
        batches.append(list(items))
        if items == ["outer"]:
            assert g.submit("inner") == "inner!"
        return [f"{i}!" for i in items]
    done = threading.Event()
    got: list[str] = []
    t = threading.Thread(target=lambda: (got.append(g.submit("outer")), done.set()))
    t.start()
    assert done.wait(5), "the nested submit waited on its own batch"
    assert got == ["outer!"] and batches == [["outer"], ["inner"]]
    assert g.submit("after") == "after!"
