"""The guarded connection plugins use: every SDK call retried on transient errors, translated.

    cloud = Cloud(conn, retry_limit=2, backoff=0.1)
    net = cloud.network.create_network(name="n")        # an openstack.network.v2.network.Network

A call is tried ``1 + retry_limit`` times (Heat's ``client_retry_limit``) while it fails with a
transient :class:`app.errors.CloudError`; a create is retried blindly only after a 503, else
only through :meth:`Cloud.create`, which first looks for what the earlier try made.

More in docs/code/clients.md (app.clients.retry).
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
#: SDK proxy methods that read, delete or set state (sent again, the same result)
IDEMPOTENT_PREFIXES = ("get_", "find_", "delete_", "update_", "set_")


def idempotent(name: str) -> bool:
    """Whether a call may be sent again as it is: an HTTP ``GET``, ``HEAD``, ``PUT`` or
    ``DELETE``, or an SDK proxy method that reads, deletes or sets (:data:`IDEMPOTENT_PREFIXES`);
    not a create or an action (``resize_server``...)."""
    return name in ("GET", "HEAD", "PUT", "DELETE") or name.startswith(IDEMPOTENT_PREFIXES)


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
        return self._retried(fn, args, kwargs, None)

    def call_idempotent(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """:meth:`call` of a call that may be sent again as it is: its transient error says
        so (``err.data["idempotent"]``)."""
        return self._retried(fn, args, kwargs, None, repeatable=True)

    def create(self, fn: Callable[..., Any], *args: Any,
               find: Callable[[], Any] | None = None, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``, a create. A transient error is retried (``retry_limit``
        times, with the back-off) only after ``find()`` (idempotent reads, retried as
        :meth:`call`) found nothing: what it finds, the earlier try's object, is returned
        instead of POSTing again. Without ``find`` only a 503 is retried.

        :raises app.errors.CloudError: the last error, translated.
        """
        return self._retried(fn, args, kwargs, find or _NOT_LOOKED)

    def _retried(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                 find: Callable[[], Any] | None, *, repeatable: bool = False) -> Any:
        attempt = 0
        while True:
            try:
                result = fn(*args, **kwargs)
                if isinstance(result, types.GeneratorType):
                    result = list(result)
                return result
            except Exception as exc:  # translated here, once
                err = translate(exc)
                if not err.transient or attempt >= self.retry_limit \
                        or (find is _NOT_LOOKED and err.status != 503):
                    if err.transient:   # (what an inner read said is not this call's)
                        err.data["idempotent"] = repeatable
                    raise err from exc
                delay = min(MAX_BACKOFF, self.backoff * (2 ** attempt))
                log.info("cloud: %s failed (%s), retry %d/%d in %.2fs", getattr(fn, "__name__", fn),
                         err.message, attempt + 1, self.retry_limit, delay)
                attempt += 1
                if delay:
                    self._sleep(delay)
                if find is not None and find is not _NOT_LOOKED:
                    found = self.call(find)
                    if found is not None:
                        log.info("cloud: %s: adopted what the failed try made",
                                 getattr(fn, "__name__", fn))
                        return found

    def request(self, service: str, method: str, path: str, **kwargs: Any) -> Any:
        """A raw REST call on ``service``'s endpoint (for APIs the SDK has no proxy for, e.g.
        Aodh): the decoded JSON body (``None`` for an empty one). A ``POST`` is a create
        (:meth:`create`; ``find=``: its lookup).

        :raises app.errors.CloudError: a status >= 400 (message from the error body).
        """
        adapter = getattr(self.raw, service)
        find = kwargs.pop("find", None)
        lean = method in ("GET", "DELETE") and set(kwargs) <= {"params"}

        def go() -> Any:
            fast = direct.for_adapter(adapter) if lean else None
            resp = fast.request(method, path, kwargs.get("params")) if fast else None
            if resp is None:  # the usual path (or a 401 there: authenticated anew here)
                resp = adapter.request(path, method, raise_exc=True, **kwargs)
            if not resp.content:
                return None
            try:  # orjson: a listing's JSON is the largest single cost of a polling worker
                return orjson.loads(resp.content)
            except orjson.JSONDecodeError:
                return resp.text
        if method == "POST":
            return self.create(go, find=find)
        if idempotent(method):
            return self.call_idempotent(go)
        return self.call(go)


def _NOT_LOOKED() -> None:
    """The ``find`` of a create that has no lookup (only a 503 is retried)."""


class _Service:
    def __init__(self, cloud: Cloud, name: str) -> None:
        self._cloud = cloud
        self._name = name

    def __getattr__(self, name: str) -> Any:
        target = getattr(getattr(self._cloud.raw, self._name), name)
        if not callable(target):
            return target

        if name.startswith("create_"):
            def guarded(*args: Any, **kwargs: Any) -> Any:
                return self._cloud.create(target, *args, **kwargs)
        elif idempotent(name) or not name.count("_"):   # (a listing: ``ports``)
            def guarded(*args: Any, **kwargs: Any) -> Any:
                return self._cloud.call_idempotent(target, *args, **kwargs)
        else:
            def guarded(*args: Any, **kwargs: Any) -> Any:
                return self._cloud.call(target, *args, **kwargs)
        guarded.__name__ = f"{self._name}.{name}"
        return guarded
