"""The gunicorn worker class of the api and cfn processes (their config modules name it):
gunicorn's ``gthread`` worker, except where a connection is closed gracefully.

gunicorn's graceful close (``gunicorn.util.close_graceful``: half-close, then read until the
client closes, for up to 2 s) runs on the worker's event loop when a response ends its
connection (a client's ``Connection: close``, an HTTP/1.0 request, a fault that closes). Every
other connection of that process then waits until that client closes, or 2 s: a health check
or a urllib client that keeps its socket a moment stalled each request of the process's other
clients. Here a few closing threads of the process do that wait; the event loop goes on.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]

#: threads of a worker process draining connections being closed, each for up to 2 s a close
CLOSERS = 4


class Worker(ThreadWorker):  # type: ignore[misc]
    """``gthread`` with graceful closes handed to :data:`CLOSERS` threads of the process."""

    closers: ThreadPoolExecutor

    def init_process(self) -> None:
        """In the forked worker, before gunicorn's loop starts (its ``init_process`` runs it)."""
        self.closers = ThreadPoolExecutor(CLOSERS, thread_name_prefix="close")
        super().init_process()

    def finish_request(self, conn: Any, fs: Any) -> None:
        """gunicorn's, with this connection's graceful close queued to the closing threads."""
        if "close" not in vars(conn):
            conn.close = _closing(self.closers, conn.close)
        super().finish_request(conn, fs)


def _closing(closers: ThreadPoolExecutor, close: Callable[..., None]) -> Callable[..., None]:
    """``close(graceful=False)``: a graceful close runs on ``closers``, a plain one at once."""
    def closed(graceful: bool = False) -> None:
        if graceful:
            closers.submit(close, True)
        else:
            close()
    return closed
