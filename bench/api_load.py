"""The API bench's load generator and its CPU accounting.

Each client is a process of its own (no GIL shared between clients) running a closed loop over
one keep-alive HTTP/1.1 connection: a request is sent as soon as the previous answer is read
whole, no think time. The client is a plain socket (request bytes built once, the answer's status
line and ``Content-Length`` parsed, the body read to its end), so its own CPU per request is a
few tens of microseconds and does not inflate the latencies it measures.

:func:`cpu_seconds` reads the CPU time (user + system, from ``/proc``) of every process of a
``stoker up`` process tree, by role (api, cfn, worker, beat, redis), of the PostgreSQL
backends serving one database, and of the clients: divided by the requests served, the CPU
each process kind spends per request — the figure to compare on a shared machine.
"""
from __future__ import annotations

import json
import multiprocessing
import os
import random
import socket
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

TICK = os.sysconf("SC_CLK_TCK")


class HttpError(RuntimeError):
    """An answer the bench did not expect (status, or no ``Content-Length``)."""


class Conn:
    """One keep-alive HTTP/1.1 connection to ``http://host:port``; reconnects when closed."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.addr = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.host = f"{self.addr[0]}:{self.addr[1]}".encode()
        self.sock: socket.socket | None = None
        self.buf = b""
        self.resent = False  # the last request was sent again on a new connection

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self.addr, timeout=60)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.buf = sock, b""
        return sock

    def request(self, method: str, path: str, body: bytes = b"", project: str = ""
                ) -> tuple[int, bytes]:
        """``(status, body)`` of one request, as a member of ``project`` when given
        (:func:`identity`); the connection is reopened once if the server closed it between
        requests. :raises HttpError: no ``Content-Length`` in the answer."""
        head = (f"{method} {path} HTTP/1.1\r\n".encode() + b"Host: " + self.host +
                b"\r\nAccept: application/json\r\n")
        for name, value in identity(project).items():
            head += f"{name}: {value}\r\n".encode()
        if body:
            head += b"Content-Type: application/json\r\nContent-Length: " + \
                str(len(body)).encode() + b"\r\n"
        data = head + b"\r\n" + body
        self.resent = False
        for attempt in (0, 1):
            sock = self.sock or self._connect()
            try:
                sock.sendall(data)
                return self._answer(sock)
            except (ConnectionError, _Closed):
                sock.close()
                self.sock = None
                if attempt:
                    raise
                self.resent = True
        raise AssertionError("unreachable")

    def _answer(self, sock: socket.socket) -> tuple[int, bytes]:
        buf = self.buf
        while (end := buf.find(b"\r\n\r\n")) < 0:
            chunk = sock.recv(65536)
            if not chunk:
                raise _Closed
            buf += chunk
        lines = buf[:end].split(b"\r\n")
        status, length, close = int(lines[0].split(b" ", 2)[1]), -1, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
        if length < 0:
            raise HttpError(f"answer without Content-Length: {lines[0]!r}")
        buf = buf[end + 4:]
        while len(buf) < length:
            chunk = sock.recv(65536)
            if not chunk:
                raise _Closed
            buf += chunk
        body, self.buf = buf[:length], buf[length:]
        if close:
            sock.close()
            self.sock = None
        return status, body


def identity(project: str) -> dict[str, str]:
    """The headers of a request made as a member (no admin role) of ``project`` under the
    API's noauth strategy, so that each project's user sees its own stacks only; none when
    ``project`` is empty (noauth's default: an admin of its default project)."""
    return {"X-Project-Id": project, "X-Roles": "member"} if project else {}


class _Closed(Exception):
    """The server closed the connection before a whole answer."""


def create(conn: Conn, prefix: str, project: str, name: str, template: dict[str, Any]) -> str:
    """POST /stacks; the new stack's id. A POST sent again after its connection dropped may
    find the stack its first try made (409): that stack's id, looked up by name.
    :raises HttpError: not 201."""
    body = json.dumps({"stack_name": name, "template": template}).encode()
    status, answer = conn.request("POST", f"{prefix}/{project}/stacks", body, project)
    if status == 409 and conn.resent:
        status, found = conn.request("GET", f"{prefix}/{project}/stacks?name={name}",
                                     project=project)
        stacks = json.loads(found)["stacks"] if status == 200 else []
        if stacks:
            return str(stacks[0]["id"])
    if status != 201:
        raise HttpError(f"POST /stacks {project}/{name}: {status} {answer[:300]!r}")
    return str(json.loads(answer)["stack"]["id"])


def creator_names(tag: str, k: int) -> Iterator[str]:
    """The stack names creator ``k`` of a load tagged ``tag`` gives its stacks, in order:
    ``<tag>-<k>-<i>``, with a token of the run in ``tag`` (:func:`run`), so that no two
    creators, and no two runs against one server, ever ask for the same name."""
    i = 0
    while True:
        yield f"{tag}-{k}-{i}"
        i += 1


def read_paths(project: str, name: str, sid: str) -> tuple[tuple[str, str], ...]:
    """The four read routes of one stack: ``((route, path), ...)`` under ``/v1``."""
    base = f"/{project}/stacks"
    return (("list", f"{base}?limit=20&sort_dir=desc&sort_keys=creation_time"),
            ("show", f"{base}/{name}/{sid}"), ("resources", f"{base}/{name}/{sid}/resources"),
            ("events", f"{base}/{name}/{sid}/events"))


def _reader(url: str, made: list[tuple[str, str, str]], seed: int, start: float, stop: float,
            out: Any) -> None:
    conn, rnd, prefix = Conn(url), random.Random(seed), urlsplit(url).path
    by_project: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for m in made:
        by_project[m[0]].append(m)
    projects = sorted(by_project)
    lat: dict[str, list[float]] = defaultdict(list)
    _until(start)
    while time.time() < stop:
        made_one = rnd.choice(by_project[rnd.choice(projects)])
        for route, path in read_paths(*made_one):
            t0 = time.perf_counter()
            status, body = conn.request("GET", prefix + path, project=made_one[0])
            lat[route].append(time.perf_counter() - t0)
            if status != 200:
                raise HttpError(f"GET {path}: {status} {body[:300]!r}")
    out.put(("read", dict(lat), os.times()))


def _creator(url: str, tag: str, k: int, projects: list[str], each: int,
             template: dict[str, Any], start: float, stop: float, out: Any) -> None:
    conn, prefix, lat, i = Conn(url), urlsplit(url).path, [], 0
    names = creator_names(tag, k)
    _until(start)
    while (i < each) if each else (time.time() < stop):
        t0 = time.perf_counter()
        create(conn, prefix, projects[i % len(projects)], next(names), template)
        lat.append(time.perf_counter() - t0)
        i += 1
    out.put(("create", {"post": lat}, os.times()))


def _until(when: float) -> None:
    time.sleep(max(0.0, when - time.time()))


def run(url: str, made: list[tuple[str, str, str]], *, readers: int, creators: int,
        seconds: float, template: dict[str, Any], creates_each: int = 0, tag: str = "load",
        on_start: Callable[[], None] | None = None
        ) -> tuple[dict[str, list[float]], list[float], float]:
    """``readers`` reader processes and ``creators`` creator processes, started together
    (``creates_each`` stacks each, or for ``seconds`` when 0); ``on_start`` runs just before they
    start. ``({route: [s]}, [POST s], client CPU s)``. :raises HttpError: a client failed."""
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    start = time.time() + 0.5 + 0.02 * (readers + creators)
    stop = start + seconds
    projects = sorted({m[0] for m in made}) or [f"{tag}{k}" for k in range(10)]
    procs = [ctx.Process(target=_reader, args=(url, made, seed, start, stop, out))
             for seed in range(readers)]
    tag = f"{tag}-{uuid.uuid4().hex[:8]}"  # this run's: no name of an earlier run again
    procs += [ctx.Process(target=_creator, args=(url, tag, k, projects[k % len(projects):] +
                                                 projects[:k % len(projects)], creates_each,
                                                 template, start, stop, out))
              for k in range(creators)]
    for p in procs:
        p.start()
    if on_start is not None:
        _until(start)
        on_start()
    lat: dict[str, list[float]] = defaultdict(list)
    cpu = 0.0
    for _ in procs:
        _kind, got, times = out.get(timeout=seconds + 600)
        cpu += times.user + times.system
        for route, values in got.items():
            lat[route].extend(values)
    for p in procs:
        p.join(30)
        if p.exitcode:
            raise HttpError(f"a client ended with exit code {p.exitcode}")
    return dict(lat), lat.pop("post", []), cpu


def _role(cmdline: str) -> str:
    if "create_cfn_app" in cmdline:
        return "cfn (gunicorn)"
    if "gunicorn" in cmdline:
        return "api (gunicorn)"
    if "celery" in cmdline and " beat" in cmdline:
        return "beat"
    if "celery" in cmdline:
        return "workers (celery)"
    if "redis-server" in cmdline:
        return "redis"
    return "stoker up"


def _stat(pid: int) -> list[str]:
    """``/proc/<pid>/stat``'s fields after the command name (field 3 onwards)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children[int(_stat(int(entry))[1])].append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    found, todo = {root}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def cpu_seconds(root: int, pg_pids: list[int]) -> dict[str, dict[int, float]]:
    """CPU s so far (user + system) of process ``root`` and its descendants by role, and of
    ``pg_pids`` (PostgreSQL backends): ``{role: {pid: s}}``; processes gone meanwhile are
    skipped."""
    out: dict[str, dict[int, float]] = defaultdict(dict)
    for pid in _descendants(root) | set(pg_pids):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            fields = _stat(pid)
            role = "postgres (backends)" if pid in pg_pids else _role(cmdline)
            out[role][pid] = (int(fields[11]) + int(fields[12])) / TICK
        except (OSError, ValueError, IndexError):
            continue
    return dict(out)


def cpu_delta(before: dict[str, dict[int, float]],
              after: dict[str, dict[int, float]]) -> dict[str, float]:
    """CPU s spent between two :func:`cpu_seconds` snapshots, by role (a process that
    started meanwhile counts whole)."""
    return {role: sum(s - before.get(role, {}).get(pid, 0.0) for pid, s in pids.items())
            for role, pids in after.items()}
