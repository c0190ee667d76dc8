"""The gunicorn worker class of the api and cfn processes (their config modules name it):
gunicorn's ``gthread`` worker, except where a new connection waits for its first request and
where a connection is closed gracefully.

gunicorn hands a new connection to one of the process's threads at once, and that thread
waits up to 5 s for the request to begin: a few clients that open connections and send nothing
yet (a browser's preconnect, a probe) held every thread of the process, and the requests of
other clients waited. Here a new connection waits in the worker's poller, as an idle kept-alive
one does, and takes a thread when its first bytes arrive.

gunicorn's graceful close (``gunicorn.util.close_graceful``: half-close, then read until the
client closes, for up to 2 s) runs on the worker's event loop when a response ends its
connection (a client's ``Connection: close``, an HTTP/1.0 request, a fault that closes). Every
other connection of that process then waits until that client closes, or 2 s: a health check
or a urllib client that keeps its socket a moment stalled each request of the process's other
clients. Here a few closing threads of the process do that wait; the event loop goes on.
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
