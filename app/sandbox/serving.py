"""Serving the sandbox cloud over HTTP with keep-alive connections, as a real cloud's API
endpoints do (behind haproxy or Apache).

werkzeug's development server answers every request with ``Connection: close``: each call of a
client (an engine worker's openstacksdk session, which keeps its connections for reuse) paid a
new TCP connection, and under the gevent pool a trip through the resolver's thread pool — 14 %
of a gevent worker's CPU in the cloud benchmark, a cost no real cloud puts on its clients.
gunicorn's ``gthread`` worker keeps connections open between requests and serves each request
on a thread of its pool, so a request sleeping out its injected latency holds a thread, never
the process (the werkzeug server's thread-per-request concurrency, kept).

One worker process: the sandbox's state lives in memory (and its state file), so it is built in
that process (:meth:`SandboxServer.load`), never restarted (no ``max_requests``), and saved when
the worker exits (SIGTERM from ``stoker up`` / honcho: gunicorn's graceful stop).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication

#: Requests served at once (each holds a thread while it sleeps out its latency)
THREADS = 512
#: Seconds an idle client connection stays open (Apache's KeepAliveTimeout is 5, haproxy's
#: http-keep-alive often tens of seconds: a poll a few seconds later reuses its connection)
KEEPALIVE_SECONDS = 30


class SandboxServer(BaseApplication):  # type: ignore[misc]
    """gunicorn, programmatically: one ``gthread`` worker serving ``make_app()`` on
    ``host:port``; ``on_exit(app)`` runs in the worker when it stops (flush the state)."""

    def __init__(self, make_app: Callable[[], Any], host: str, port: int,
                 on_exit: Callable[[Any], None]) -> None:
        self.make_app, self.bind = make_app, f"{host}:{port}"
        self.on_exit = on_exit
        self.app: Any = None
        super().__init__()

    def load_config(self) -> None:
        def worker_exit(server: Any, worker: Any) -> None:
            if self.app is not None:
                self.on_exit(self.app)

        for key, value in {"bind": self.bind, "workers": 1, "worker_class": "gthread",
                           "threads": THREADS, "keepalive": KEEPALIVE_SECONDS,
                           "graceful_timeout": 10, "max_requests": 0,
                           "worker_exit": worker_exit,
                           # gunicorn 23+: no control socket in $HOME, shared by every sandbox
                           # and API process of the machine
                           "control_socket_disable": True}.items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self) -> Any:
        self.app = self.make_app()
        return self.app
