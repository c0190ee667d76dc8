"""The guarded connection plugins use: every SDK call retried on transient errors, translated.

    cloud = Cloud(conn, retry_limit=2, backoff=0.1)
    net = cloud.network.create_network(name="n")        # an openstack.network.v2.network.Network
    ports = cloud.network.ports(device_id=server_id)      # generators come back as lists

A call is tried ``1 + retry_limit`` times (Heat's ``client_retry_limit``) while it fails with a
transient :class:`app.errors.CloudError` (5xx, connection error, timeout), waiting ``backoff``,
``2*backoff``... seconds in between (capped at :data:`MAX_BACKOFF`): a short back-off inside one
HTTP exchange, as Heat's client plugins do, never a wait for a cloud *action* (those are polled
by the engine). Permanent errors (4xx) are raised at once. Whatever is raised is a ``CloudError``.
"""
from __future__ import annotations

import logging
import time
import types
from collections.abc import Callable
from typing import Any

import orjson

from app.clients import direct
from app.clients.errors import translate

log = logging.getLogger(__name__)
MAX_BACKOFF = 2.0


class Cloud:
    """Wraps an ``openstack.connection.Connection``: ``cloud.<service>.<method>(...)`` calls the
    SDK proxy's method through :meth:`call`. ``cloud.raw`` is the unwrapped connection."""

    def __init__(self, conn: Any, *, retry_limit: int = 2, backoff: float = 0.1,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.raw = conn
        self.retry_limit = max(0, int(retry_limit))
        self.backoff = max(0.0, float(backoff))
        self._sleep = sleep

    def __getattr__(self, service: str) -> _Service:
        if service.startswith("_"):
            raise AttributeError(service)
        return _Service(self, service)

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)`` with retries; a generator result is drained into a list inside
        the retry loop (listing is paginated: a page may fail too).

        :raises app.errors.CloudError: the last error, translated.
        """
        attempt = 0
        while True:
            try:
                result = fn(*args, **kwargs)
                if isinstance(result, types.GeneratorType):
                    result = list(result)
                return result
            except Exception as exc:  # translated here, once
                err = translate(exc)
                if not err.transient or attempt >= self.retry_limit:
                    raise err from exc
                delay = min(MAX_BACKOFF, self.backoff * (2 ** attempt))
                log.info("cloud: %s failed (%s), retry %d/%d in %.2fs", getattr(fn, "__name__", fn),
                         err.message, attempt + 1, self.retry_limit, delay)
                attempt += 1
                if delay:
                    self._sleep(delay)

    def request(self, service: str, method: str, path: str, **kwargs: Any) -> Any:
        """A raw REST call on ``service``'s endpoint (for APIs the SDK has no proxy for, e.g.
        Aodh): the decoded JSON body (``None`` for an empty one).

        :raises app.errors.CloudError: a status >= 400 (message from the error body).
        """
        adapter = getattr(self.raw, service)
        lean = method in ("GET", "DELETE") and set(kwargs) <= {"params"}

        def go() -> Any:
            fast = direct.for_adapter(adapter) if lean else None
            resp = fast.request(method, path, kwargs.get("params")) if fast else None
            if resp is None:  # the usual path (or a 401 there: authenticated anew here)
                resp = adapter.request(path, method, raise_exc=True, **kwargs)
            if not resp.content:
                return None
            try:  # orjson: a listing's JSON was the largest single cost of a polling worker
                return orjson.loads(resp.content)
            except orjson.JSONDecodeError:
                return resp.text
        return self.call(go)


class _Service:
    def __init__(self, cloud: Cloud, name: str) -> None:
        self._cloud = cloud
        self._name = name

    def __getattr__(self, name: str) -> Any:
        target = getattr(getattr(self._cloud.raw, self._name), name)
        if not callable(target):
            return target

        def guarded(*args: Any, **kwargs: Any) -> Any:
            return self._cloud.call(target, *args, **kwargs)
        guarded.__name__ = f"{self._name}.{name}"
        return guarded
