"""The gunicorn worker class of the api and cfn processes (their config modules name it):
gunicorn's ``gthread`` worker with two changes, each of which had let a few clients stall every
other connection of a process (docs/code/app.md, app.http_worker):

- a new connection waits in the worker's poller for its first bytes, as an idle kept-alive one
  does, not on a thread (gunicorn's waited up to 5 s: preconnects held every thread);
- a graceful close (half-close, then read until the client closes, up to 2 s) runs on
  :data:`CLOSERS` threads of the process, not on the event loop.
"""
from __future__ import annotations

import errno
import selectors
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from gunicorn.workers.gthread import TConn, ThreadWorker  # type: ignore[import-untyped]

#: threads of a worker process draining connections being closed, each for up to 2 s a close
CLOSERS = 4


class Worker(ThreadWorker):  # type: ignore[misc]
    """``gthread`` with new connections waiting in the poller for their first bytes and
    graceful closes handed to :data:`CLOSERS` threads of the process."""

    closers: ThreadPoolExecutor

    def init_process(self) -> None:
        """In the forked worker, before gunicorn's loop starts (its ``init_process`` runs it)."""
        self.closers = ThreadPoolExecutor(CLOSERS, thread_name_prefix="close")
        super().init_process()

    def accept(self, listener: Any) -> None:
        """A new connection, registered with the poller until it is readable (then a thread
        reads its request), for as long as an idle kept-alive one (``keepalive``)."""
        try:
            sock, client = listener.accept()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self.nr_conns += 1
        conn = TConn(self.cfg, sock, client, listener.getsockname())  # non-blocking
        conn.timeout = time.monotonic() + self.cfg.keepalive
        self.pending_conns.append(conn)
        self.poller.register(sock, selectors.EVENT_READ,
                             partial(self.on_pending_socket_readable, conn))

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
