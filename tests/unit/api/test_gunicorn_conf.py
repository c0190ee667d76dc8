"""The api process under gunicorn (``app.api.gunicorn_conf``): the request-line and header limits
are read from the config module, and what gunicorn rejects before the app sees it is answered in
Heat's fault JSON, not gunicorn's HTML page; then the same against a real gunicorn."""
from __future__ import annotations

import contextlib
import json
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from gunicorn import util
from gunicorn.app.wsgiapp import WSGIApplication
from gunicorn.http.errors import InvalidRequestLine, LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker

import app.api as api_init
from app import config, heap
from app.api import faults, gunicorn_conf
from app.cfn import faults as cfn_faults
from app.cfn import gunicorn_conf as cfn_conf
from app.cli import up as cli_up


def _cfg(monkeypatch: pytest.MonkeyPatch, *flags: str) -> Any:
    """gunicorn's settings as its command line reads them with the api's config module."""
    monkeypatch.setattr(sys, "argv", ["gunicorn", "-c", "python:app.api.gunicorn_conf",
                                      *flags, "app.cli.wsgi:create_app()"])
    return WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg


def test_config_module_sets_the_limits_and_the_hook(monkeypatch):
    cfg = _cfg(monkeypatch)
    assert cfg.limit_request_line == 8190  # gunicorn's largest bounded value (default 4094)
    assert cfg.limit_request_field_size == 16384  # Heat's max_header_line
    assert cfg.post_worker_init is gunicorn_conf.post_worker_init
    assert cfg.keepalive == 900  # Heat's client_socket_timeout; gunicorn's 2 s raced polling clients
    assert not cfg.max_requests  # no worker recycling under a client's connection
    assert cfg.worker_class_str == "app.http_worker.Worker"  # gthread, closing off its loop
    assert _cfg(monkeypatch, "--limit-request-line", "2048").limit_request_line == 2048


def test_the_hook_settles_each_workers_heap(monkeypatch):
    settled: list[bool] = []
    monkeypatch.setattr(util, "write_error", util.write_error)
    monkeypatch.setattr(util, "http_date", util.http_date)
    monkeypatch.setattr(heap, "settle_heap", lambda: settled.append(True))
    gunicorn_conf.post_worker_init(object.__new__(ThreadWorker))
    assert settled == [True] and util.write_error is gunicorn_conf.write_fault
    assert util.http_date is gunicorn_conf.http_date


def test_the_date_header_is_gunicorns_imf_fixdate_of_the_current_second(monkeypatch):
    clock = [1765123456.25]
    monkeypatch.setattr(gunicorn_conf.time, "time", lambda: clock[0])
    monkeypatch.setattr(gunicorn_conf, "_date", [(-1, "")])
    assert gunicorn_conf.http_date() == "Sun, 07 Dec 2025 16:04:16 GMT"
    clock[0] += 0.5  # the same second
    assert gunicorn_conf.http_date() == "Sun, 07 Dec 2025 16:04:16 GMT"
    clock[0] += 1.0
    assert gunicorn_conf.http_date() == "Sun, 07 Dec 2025 16:04:17 GMT"
    assert gunicorn_conf.http_date(0) == "Thu, 01 Jan 1970 00:00:00 GMT"


def test_every_api_launcher_passes_the_config_module(tmp_path):
    api = cli_up.procfile(config.load({}, data_dir=str(tmp_path)), sandbox=False)[0].argv
    assert api[api.index("-c") + 1] == "python:app.api.gunicorn_conf"
    procfile = (Path(__file__).resolve().parents[3] / "Procfile").read_text()
    api_line = next(line for line in procfile.splitlines() if line.startswith("api:"))
    assert "-c python:app.api.gunicorn_conf " in api_line


def _rejected(monkeypatch: pytest.MonkeyPatch, exc: Exception) -> tuple[str, dict[str, str], Any]:
    """What gunicorn's own ``handle_error`` writes for ``exc`` in a worker after the hook:
    ``(status line, headers, JSON body)``."""
    monkeypatch.setattr(util, "write_error", util.write_error)  # restored after the test
    monkeypatch.setattr(heap, "settle_heap", lambda: None)  # the test process's collector
    worker = object.__new__(ThreadWorker)
    worker.log = logging.getLogger("test.gunicorn")
    gunicorn_conf.post_worker_init(worker)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        worker.handle_error(None, ours, ("127.0.0.1", 4321), exc)
        ours.shutdown(socket.SHUT_WR)
        raw = b""
        while chunk := theirs.recv(65536):
            raw += chunk
    head, body = raw.split(b"\r\n\r\n", 1)
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    assert int(headers["Content-Length"]) == len(body)
    return status, headers, json.loads(body)


def test_too_long_url_is_a_json_414(monkeypatch):
    status, headers, body = _rejected(monkeypatch, LimitRequestLine(9032, 8190))
    assert status.startswith("HTTP/1.1 414 ")
    assert headers["Content-Type"] == "application/json" and headers["Connection"] == "close"
    assert body == {"code": 414, "title": "Request-URI Too Long",
                    "explanation": "The request URI was too long for this server.",
                    "error": {"type": "HTTPRequestURITooLong", "traceback": None,
                              "message": "Request Line is too large (9032 > 8190)"}}


def test_too_large_header_and_bad_request_line_are_json_400s(monkeypatch):
    status, _, body = _rejected(monkeypatch, LimitRequestHeaders("limit request headers fields"))
    assert status == "HTTP/1.1 400 Bad Request"  # gunicorn's 431, eventlet's (Heat's) 400
    assert body["code"] == 400 and body["title"] == "Bad Request"
    assert body["error"]["type"] == "HTTPBadRequest"
    assert "limit request headers fields" in body["error"]["message"]
    status, _, body = _rejected(monkeypatch, InvalidRequestLine("GARBAGE"))
    assert status == "HTTP/1.1 400 Bad Request" and body["error"]["type"] == "HTTPBadRequest"


def test_server_fault_without_a_message():
    status, raw = faults.server_fault(500, "")
    assert status == 500
    assert json.loads(raw)["error"] == {"type": "HTTPInternalServerError", "traceback": None,
                                        "message": "An unexpected error occurred."}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, target: str) -> tuple[int, str, bytes]:
    """One raw HTTP/1.1 GET: ``(status, content type, body)``."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                  .encode())
        raw = b""
        while chunk := s.recv(65536):
            raw += chunk
    head, body = raw.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
    return int(lines[0].split()[1]), headers.get("content-type", ""), body


@contextlib.contextmanager
def _serving(tmp_path: Path, which: int) -> Iterator[int]:
    """Process ``which`` of ``stoker up``'s list (0: api, 1: cfn) with one worker, as it starts
    it, answering on its port (yielded) until the block ends."""
    port = _free_port()
    s = config.load({}, data_dir=str(tmp_path), api_port=port, cfn_port=port)
    argv = cli_up.procfile(s, sandbox=False)[which].argv
    argv[argv.index("--workers") + 1] = "1"
    proc = subprocess.Popen(argv, env=cli_up.child_env(s), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90  # an API process's boot on a loaded 2-core host
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        if proc.stderr:
            proc.stderr.close()


def test_real_gunicorn_serves_long_urls_and_answers_longer_ones_in_json(tmp_path):
    """The api process as ``stoker up`` starts it: a 5,000-character query string reaches the
    app (gunicorn's default turned it away with an HTML 414); 9,000 is Heat's JSON 414."""
    with _serving(tmp_path, 0) as port:
        status, kind, _ = _get(port, "/?q=" + "a" * 5000)
        assert status == 300 and kind == "application/json"  # heat-api's versions document
        status, kind, body = _get(port, "/?q=" + "a" * 9000)
        assert status == 414 and kind == "application/json"
        assert json.loads(body)["error"]["type"] == "HTTPRequestURITooLong"
        # a persistent connection idle for longer than gunicorn's default keep-alive (2 s) is
        # still served, as a keystoneauth session polling a stack reuses it
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            for _ in range(2):
                conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                head = conn.recv(65536)
                assert head.startswith(b"HTTP/1.1 300 "), head
                length = int(head.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
                body = head.split(b"\r\n\r\n", 1)[1]
                while len(body) < length:
                    body += conn.recv(65536)
                time.sleep(2.5)
        _a_lingering_close_holds_no_other_connection(port)
        _idle_new_connections_hold_no_thread(port)
        head, body = _malformed_chunk(port, b"/v1/admin/stacks")
        assert head.startswith(b"HTTP/1.1 400 "), head  # Heat's fault, not a 500
        fault = json.loads(body)
        assert (fault["code"], fault["error"]["type"], fault["error"]["message"]) == (
            400, "HTTPBadRequest", api_init.UNREADABLE_BODY)


def test_the_cfn_process_answers_a_malformed_chunk_in_aws_xml(tmp_path):
    with _serving(tmp_path, 1) as port:
        head, body = _malformed_chunk(port, b"/v1/")
    assert head.startswith(b"HTTP/1.1 400 "), head
    error = ElementTree.fromstring(body).find("Error")
    assert error is not None
    assert (error.findtext("Code"), error.findtext("Message")) == (
        "InvalidQueryParameter",
        cfn_faults.InvalidQueryParameter(cfn_faults.UNREADABLE_BODY).message)


def _answer(conn: socket.socket, close: bool = False) -> bytes:
    """One ``GET /`` on ``conn`` (with ``Connection: close`` when ``close``), read whole."""
    conn.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                 (b"Connection: close\r\n" if close else b"") + b"\r\n")
    raw = b""
    while b"\r\n\r\n" not in raw:
        raw += conn.recv(65536)
    head, body = raw.split(b"\r\n\r\n", 1)
    length = int(head.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
    while len(body) < length:
        body += conn.recv(65536)
    return head


def _a_lingering_close_holds_no_other_connection(port: int) -> None:
    """A client answered with ``Connection: close`` that keeps its socket open: gunicorn waits
    for it to close, up to 2 s; the process's other connections are served meanwhile."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as poller, \
            socket.create_connection(("127.0.0.1", port), timeout=10) as lingering:
        assert _answer(poller).startswith(b"HTTP/1.1 300 ")
        assert b"Connection: close" in _answer(lingering, close=True)
        worst = 0.0
        for _ in range(5):
            t0 = time.monotonic()
            assert _answer(poller).startswith(b"HTTP/1.1 300 ")
            worst = max(worst, time.monotonic() - t0)
        assert worst < 1.0, worst  # gunicorn's gthread: ~2 s, its graceful close's wait


def test_the_cfn_process_runs_the_same_worker(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["gunicorn", "-c", "python:app.cfn.gunicorn_conf",
                                      "app.cli.wsgi:create_cfn_app()"])
    cfg = WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg
    assert cfg.worker_class_str == cfn_conf.worker_class == "app.http_worker.Worker"


def _malformed_chunk(port: int, path: bytes) -> tuple[bytes, bytes]:
    """POST to ``path`` a chunked body whose chunk size is not hexadecimal (gunicorn raises
    while the app reads the body): the answer's ``(head, body)``."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"POST " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                  b"Connection: close\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
        raw = b""
        while chunk := s.recv(65536):
            raw += chunk
    head, body = raw.split(b"\r\n\r\n", 1)
    return head, body


def _idle_new_connections_hold_no_thread(port: int) -> None:
    """Twice as many new connections as the process has threads, none sending anything (a
    browser's preconnects): another client's request is answered at once. gunicorn's gthread
    gave each a thread for up to 5 s, waiting for its request."""
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(8)]
    try:
        time.sleep(0.2)  # accepted by the worker
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            assert _answer(conn).startswith(b"HTTP/1.1 300 ")
        assert time.monotonic() - t0 < 1.0
    finally:
        for sock in idle:
            sock.close()
