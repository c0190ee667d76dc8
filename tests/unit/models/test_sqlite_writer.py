"""SQLite's one writer: the threads of a process take it in turn through a reentrant mutex
(:data:`app.models.base._writer`) instead of sleeping in SQLite's busy handler."""
from __future__ import annotations

import threading

import pytest
from sqlalchemy import text

from app.models import base


def test_a_writer_thread_waits_for_the_one_in_its_transaction_then_sees_its_rows(db):
    with base.session() as s:
        s.execute(text("CREATE TABLE t (n INTEGER)"))
    inside, seen = threading.Event(), []

    def second() -> None:
        inside.wait(5)
        with base.session() as s:  # queued until the first transaction commits
            seen.append(s.execute(text("SELECT count(*) FROM t")).scalar())

    worker = threading.Thread(target=second)
    worker.start()
    with base.session() as s:
        s.execute(text("INSERT INTO t VALUES (1)"))
        inside.set()
        worker.join(0.3)
        assert worker.is_alive() and seen == []  # not in while this transaction is open
        s.execute(text("INSERT INTO t VALUES (2)"))
    worker.join(10)
    assert seen == [2]


def test_a_transaction_inside_another_of_the_same_thread_does_not_deadlock(db):
    """An inline dispatcher runs the next step from the after-commit hook of the first: the
    same thread takes the mutex again."""
    got = []

    def hook() -> None:
        with base.session() as inner:
            got.append(inner.execute(text("SELECT 1")).scalar())

    with base.session() as s:
        base.after_commit(s, hook)
    assert got == [1]


def test_a_failed_transaction_gives_the_writer_back(db):
    with pytest.raises(ZeroDivisionError), base.session():
        1 / 0  # noqa: B018
    done = []

    def take() -> None:
        if base._writer.acquire(timeout=5):
            done.append(True)
            base._writer.release()

    t = threading.Thread(target=take)
    t.start()
    t.join(10)
    assert done == [True]
