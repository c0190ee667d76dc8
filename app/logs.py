"""One logging setup for the API, the workers and beat: text, or JSON lines on request.

More in docs/code/app.md (app.logs).
"""
from __future__ import annotations

import contextvars
import json
import logging
import os
import sys
import time
from typing import Any

from app import config

#: the ids a log record can carry, in the order text lines show them
FIELDS = ("request_id", "stack_id", "traversal", "resource")
_ids: dict[str, contextvars.ContextVar[Any]] = {
    name: contextvars.ContextVar(f"stoker_{name}", default=None) for name in FIELDS}
_HANDLER_MARK = "_stoker_handler"


def bind(**ids: Any) -> None:
    """Set the ids of the current context (unknown names are ignored; None clears one)."""
    for name, value in ids.items():
        if name in _ids:
            _ids[name].set(value)


def clear() -> None:
    """Forget every id of the current context."""
    for var in _ids.values():
        var.set(None)


def current() -> dict[str, Any]:
    """The ids set in the current context, ``{name: value}`` (unset ones left out)."""
    return {name: var.get() for name, var in _ids.items() if var.get() is not None}


def request_id() -> str | None:
    """The request id of the current context, or None."""
    return _ids["request_id"].get()


class ContextFilter(logging.Filter):
    """Adds the context's ids (None when unknown) to every record passing through."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _ids.items():
            if getattr(record, name, None) is None:
                setattr(record, name, var.get())
        return True


class TextFormatter(logging.Formatter):
    """``time LEVEL logger [ids] message``; ids that are unknown are left out."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(ids)s%(message)s")
        self._second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        """logging's ``2026-12-06 21:52:06,851``, its seconds formatted once a second (an API
        logs a line a request)."""
        if datefmt:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        cached = self._second
        if cached[0] != second:
            cached = self._second = (second, time.strftime(self.default_time_format,
                                                           self.converter(record.created)))
        return f"{cached[1]},{int(record.msecs):03d}"

    def format(self, record: logging.LogRecord) -> str:
        parts = [str(record.request_id)] if getattr(record, "request_id", None) else []
        parts += [f"{n.replace('_id', '')}={getattr(record, n)}" for n in FIELDS[1:]
                  if getattr(record, n, None) is not None]
        record.ids = f"[{' '.join(parts)}] " if parts else ""
        return super().format(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (ISO 8601, UTC), level, logger, message, process, the ids
    (when known), and ``exception`` (the formatted traceback) when there is one."""

    def __init__(self, process: str = "") -> None:
        super().__init__()
        self.process_name = process

    def format(self, record: logging.LogRecord) -> str:
        import datetime as dt
        out: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "message": record.getMessage(),
            "process": self.process_name, "pid": record.process}
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def process_name() -> str:
    """``api``, ``worker``, ``beat`` or ``flower`` from the command line (``flower`` also for
    ``python -m app.tasks.flower``), else the program name."""
    args, program = sys.argv[1:], " ".join(sys.argv[:1])
    if "app.tasks.flower" in sys.orig_argv[1:3]:   # [python, -m, module]: known while importing
        return "flower"
    if "celery" in program:
        for name in ("worker", "beat", "flower"):
            if name in args:
                return name
    if "gunicorn" in program:
        return "api"
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"


def setup(settings: config.Settings | None = None, level: Any = None, stream: Any = None) -> None:
    """Install Stoker's handler on the root logger (once per process; a second call only
    changes the level and format). Format from ``settings.log_format`` (``text`` | ``json``),
    level from ``level`` (a name or number) else ``settings.log_level``.

    :raises ValueError: an unknown ``log_format``.
    """
    settings = settings or config.get()
    if settings.log_format not in ("text", "json"):
        raise ValueError(f"STOKER_LOG_FORMAT must be text or json, not {settings.log_format!r}")
    root = logging.getLogger()
    handler = next((h for h in root.handlers if getattr(h, _HANDLER_MARK, False)), None)
    if handler is None:
        handler = logging.StreamHandler(stream or sys.stderr)
        setattr(handler, _HANDLER_MARK, True)
        handler.addFilter(ContextFilter())
        root.addHandler(handler)
    handler.setFormatter(JsonFormatter(process_name()) if settings.log_format == "json"
                         else TextFormatter())
    chosen = level if level not in (None, "") else settings.log_level
    root.setLevel(chosen.upper() if isinstance(chosen, str) else chosen)


def install_flask(app: Any, request_id: Any) -> None:
    """Bind each request's id (``request_id()``: the API's ``x-openstack-request-id``) for
    the request's log lines, log one access line per answer (``METHOD path status``, as
    heat-api's eventlet.wsgi log) and forget the id afterwards."""
    from flask import request

    access = logging.getLogger("stoker.api.access")
    # no format of Stoker's shows a record's source line: logging's frame walk for it (a few
    # percent of a read request) is left out of the API process
    logging._srcfile = None  # type: ignore[attr-defined]

    def before() -> None:
        bind(request_id=request_id())

    def after(response: Any) -> Any:
        access.info("%s %s %s", request.method, request.full_path.rstrip("?"), response.status_code)
        return response

    app.before_request(before)
    app.after_request(after)
    app.teardown_request(lambda _exc: clear())
