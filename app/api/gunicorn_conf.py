"""gunicorn settings of the api process: ``gunicorn -c python:app.api.gunicorn_conf
'app.cli.wsgi:create_app()'`` (the Procfile, ``stoker api`` and ``stoker up`` pass it; a flag given on
the command line still wins).

More in docs/code/api.md (app.api.gunicorn_conf).
"""
from __future__ import annotations

from http import HTTPStatus
from typing import Any

from gunicorn import util  # type: ignore[import-untyped]

limit_request_line = 8190
limit_request_field_size = 16384
keepalive = 900


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


def post_worker_init(worker: Any) -> None:
    """gunicorn server hook, in each worker once the app is loaded: gunicorn writes the
    requests it rejects through ``util.write_error``; this worker writes them as Heat faults.
    What the boot made leaves the collector's walks (:func:`app.heap.settle_heap`)."""
    from app import heap
    util.write_error = write_fault
    heap.settle_heap()
