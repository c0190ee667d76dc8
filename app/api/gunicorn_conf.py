"""gunicorn settings of the api process: ``gunicorn -c python:app.api.gunicorn_conf
'app.cli.wsgi:create_app()'`` (the Procfile, ``stoker api`` and ``stoker up`` pass it; a flag given on
the command line still wins).

More in docs/code/api.md (app.api.gunicorn_conf).
"""
from __future__ import annotations

import email.utils
import time
from http import HTTPStatus
from typing import Any

from gunicorn import util  # type: ignore[import-untyped]

limit_request_line = 8190
limit_request_field_size = 16384
keepalive = 900
#: gthread, with a connection's graceful close off the event loop (:mod:`app.http_worker`)
worker_class = "app.http_worker.Worker"


def write_fault(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error(sock, status_int, reason, mesg)``, answering Heat's fault
    JSON (``Connection: close``, as gunicorn closes the connection after it)."""
    from app.api import faults
    status, body = faults.server_fault(status_int, mesg)
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = reason
    head = (f"HTTP/1.1 {status} {phrase}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


#: ``[(second, its Date header)]``: the current second's, replaced as a whole (threads read it)
_date: list[tuple[int, str]] = [(-1, "")]


def http_date(timestamp: float | None = None) -> str:
    """gunicorn's ``util.http_date``: the ``Date`` header (RFC 7231's IMF-fixdate, GMT) of
    ``timestamp`` (default: now), the current second's formatted once (gunicorn formats it
    for every response: ~2 % of a read request's CPU)."""
    if timestamp is not None:
        return email.utils.formatdate(timestamp, usegmt=True)
    now = int(time.time())
    cached = _date[0]
    if cached[0] != now:
        cached = _date[0] = (now, email.utils.formatdate(now, usegmt=True))
    return cached[1]


def post_worker_init(worker: Any) -> None:
    """gunicorn server hook, in each worker once the app is loaded: gunicorn writes the
    requests it rejects through ``util.write_error``; this worker writes them as Heat faults,
    and formats the ``Date`` header once a second (:func:`http_date`). What the boot made
    leaves the collector's walks (:func:`app.heap.settle_heap`)."""
    from app import heap
    util.write_error = write_fault
    util.http_date = http_date
    heap.settle_heap()
