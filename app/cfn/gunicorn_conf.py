"""gunicorn settings of the cfn process: ``gunicorn -c python:app.cfn.gunicorn_conf
'app.cli.wsgi:create_cfn_app()'`` (the Procfile and ``stoker up`` pass it).

- ``limit_request_line = 8190`` and ``limit_request_field_size = 16384``: as the api process
  (:mod:`app.api.gunicorn_conf`): query requests sent with GET carry their parameters in the URL.
- What gunicorn still turns away before the app sees it (a longer URL, an oversize or malformed
  header) is answered as AWS error XML (``InvalidQueryParameter`` for a 4xx, ``InternalFailure``
  otherwise) instead of gunicorn's HTML page, installed in each worker by
  :func:`post_worker_init`.
- ``worker_class``: gthread, closing connections off its event loop (:mod:`app.http_worker`).
"""
from __future__ import annotations

from http import HTTPStatus
from typing import Any

from gunicorn import util  # type: ignore[import-untyped]

limit_request_line = 8190
limit_request_field_size = 16384
keepalive = 900  # as the api process: a polling client's idle connection stays open
worker_class = "app.http_worker.Worker"  # as the api process (:mod:`app.http_worker`)


def write_fault(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn's ``util.write_error(sock, status_int, reason, mesg)`` as AWS error XML."""
    from app.cfn import faults
    status = 400 if status_int == 431 else status_int
    kind = faults.InvalidQueryParameter if 400 <= status < 500 else faults.InternalFailure
    body = kind(mesg or None).body()
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = reason
    head = (f"HTTP/1.1 {status} {phrase}\r\nConnection: close\r\n"
            f"Content-Type: application/xml\r\nContent-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin-1") + body)


def post_worker_init(worker: Any) -> None:
    """gunicorn server hook: this worker writes the requests it rejects as AWS error XML;
    what the boot made leaves the collector's walks (:func:`app.heap.settle_heap`)."""
    from app import heap
    util.write_error = write_fault
    heap.settle_heap()
