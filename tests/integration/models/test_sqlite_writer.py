"""SQLite's one writer: the threads of a process take it in turn through a reentrant mutex, and
the processes through an flock of a lock file (:data:`app.models.base._writer`), instead of
sleeping in SQLite's busy handler."""
from __future__ import annotations

import fcntl
import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path

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


def _insert_in_another_process(url: str) -> subprocess.Popen[str]:
    code = ("import sys; from sqlalchemy import text; from app.models import base; base.init(sys.argv[1])\n"
            "with base.session() as s:\n"
            "    s.execute(text('INSERT INTO t VALUES (9)'))\n"
            "    print(s.execute(text('SELECT count(*) FROM t')).scalar())\n")
    return subprocess.Popen([sys.executable, "-c", code, url], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).resolve().parents[3])


def test_another_process_queues_on_the_writer_lock_file_then_sees_the_rows(db):
    """The processes sharing a database file take its write lock in turn through an flock of
    ``<database>-writer.lock``, held for exactly the transaction."""
    url = db.database_url
    lock_file = url.split("///", 1)[1] + "-writer.lock"
    with base.session() as s:
        s.execute(text("CREATE TABLE t (n INTEGER)"))

    def free() -> bool:
        fd = os.open(lock_file, os.O_RDWR)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:
            os.close(fd)   # closing drops a lock this probe took

    assert free()
    with base.session() as s:
        s.execute(text("INSERT INTO t VALUES (1)"))
        assert not free()           # held while the transaction is open
        child = _insert_in_another_process(url)
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(1.0)         # queued behind this transaction
    out, _ = child.communicate(timeout=30)
    assert child.returncode == 0 and out.split() == ["2"]
    assert free()


def test_a_forked_child_takes_the_writer_lock_on_a_descriptor_of_its_own(db):
    """An inherited descriptor would share the parent's flock: a child re-attaches on its
    first use of the engine (``get_engine`` re-initialises per process)."""
    ctx = multiprocessing.get_context("fork")
    answer = ctx.Queue()

    def child() -> None:
        base.get_engine()
        fd = base._writer._fd
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            answer.put("took it")
        except BlockingIOError:
            answer.put("blocked")

    with base.session():
        proc = ctx.Process(target=child)
        proc.start()
        got = answer.get(timeout=30)
        proc.join(30)
    assert got == "blocked"


def _lock_descriptors(path: str) -> int:
    return sum(1 for fd in os.listdir("/proc/self/fd")
               if os.path.realpath(f"/proc/self/fd/{fd}") == f"{path}-writer.lock")


def test_threads_installing_the_engine_at_once_share_one_writer_lock(db, tmp_path):
    """A worker's threads (its lease, its broker watch, its first steps) may install the
    engine together: one descriptor of the lock file, so a lock taken is the lock released
    (two let a holder lock one and unlock the other, and the process wait on itself)."""
    previous = str(base.get_engine().url)
    path = str(tmp_path / "together.db")
    start = threading.Barrier(8)

    def install() -> None:
        start.wait(5)
        base.init(f"sqlite:///{path}")

    try:
        threads = [threading.Thread(target=install) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert _lock_descriptors(path) == 1
        with base.session() as s:
            s.execute(text("SELECT 1"))
        fd = os.open(f"{path}-writer.lock", os.O_RDWR)
        try:  # given back: no descriptor of this process still holds the lock
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
    finally:
        base.init(previous)
