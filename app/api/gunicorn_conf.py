"""gunicorn settings of the api process: ``gunicorn -c python:app.api.gunicorn_conf
'app.cli.wsgi:create_app()'`` (the Procfile, ``stoker api`` and ``stoker up`` pass it; a flag given on
the command line still wins).

- ``limit_request_line = 8190``: the longest request line (method, URL with its query string,
  version) gunicorn reads. Its default, 4094, turned away URLs that heat-api serves (a stack
  list or event list with many filters). 8190 is the largest bounded value gunicorn takes
  (larger values are cut to it; 0 means unbounded reads) and Apache's ``LimitRequestLine``
  default, which bounds heat-api deployed under mod_wsgi; heat-api's own eventlet server reads
  up to 50000 bytes (its ``URL_LENGTH_LIMIT``).
- ``limit_request_field_size = 16384``: one header line, Heat's ``max_header_line`` default
  (room for large Keystone tokens).
- ``keepalive = 900``: seconds an idle persistent connection stays open. gunicorn's default (2 s)
  closed connections a client was about to reuse: a keystoneauth session polling a stack every
  2 s sent its next request on a socket the server was closing (``RemoteDisconnected``,
  ``Connection reset by peer``). Heat's API keeps idle connections for its
  ``client_socket_timeout`` (900 s); the gthread worker holds no thread for an idle one.
  Nothing recycles workers (no ``max_requests``): a worker lives as long as the process.
- What gunicorn still turns away before the app sees it (a longer URL, an oversize or malformed
  header) is answered in Heat's fault JSON instead of gunicorn's HTML page: a 414
  ``HTTPRequestURITooLong``, a 400 ``HTTPBadRequest``... (:func:`app.api.faults.server_fault`),
  installed in each worker by :func:`post_worker_init`.
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
    requests it rejects through ``util.write_error``; this worker writes them as Heat faults."""
    util.write_error = write_fault
