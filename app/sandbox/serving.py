"""Serving the sandbox cloud over HTTP with keep-alive connections, as a real cloud's API
endpoints do (behind haproxy or Apache).

More in docs/code/sandbox.md (app.sandbox.serving).
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
