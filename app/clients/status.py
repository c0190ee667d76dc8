"""Status reads for polls: one object's JSON, no SDK resource built, concurrent reads batched.

:raises app.errors.CloudError: as the single GET would: 404 when the object is gone (a read
    never answers for an object the cloud did not list or show).

More in docs/code/clients.md (app.clients.status).
"""
from __future__ import annotations

import copy
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

from app import errors
from app.clients.errors import cloud_error
from app.clients.retry import Cloud

__all__ = ["BY_ID_MAX", "LIST_SHARE", "NETWORK", "PORT", "SERVER", "SUBNET", "VOLUME", "Batcher", "Kind",
           "batcher", "delete", "find_named", "poll", "read", "server", "volume"]


@dataclass(frozen=True)
class Kind:
    """One API's object reads: ``service`` (the connection's adapter), the single GET's
    ``show`` path (``{id}`` in it) and body key ``one``, the list's path (``listing``, which
    takes a ``name`` filter) and key ``many``, and the detailed list that serves a batch
    (``detail``; ``None``: no batching, every read is its single GET); ``by_id``: the list
    takes the batch's ids (Neutron's repeated ``id`` filter), so it holds only them."""

    service: str
    show: str
    one: str
    listing: str
    many: str
    detail: str | None = None
    by_id: bool = False


SERVER = Kind("compute", "/servers/{id}", "server", "/servers", "servers", "/servers/detail")
VOLUME = Kind("block_storage", "/volumes/{id}", "volume", "/volumes", "volumes",
              "/volumes/detail")
NETWORK = Kind("network", "/networks/{id}", "network", "/networks", "networks", "/networks",
               by_id=True)
SUBNET = Kind("network", "/subnets/{id}", "subnet", "/subnets", "subnets", "/subnets", by_id=True)
PORT = Kind("network", "/ports/{id}", "port", "/ports", "ports", "/ports", by_id=True)


#: A batch is read by one detailed list only when it holds at least 1 / LIST_SHARE of the
#: objects the last list returned (and at least two): otherwise each read's own single GET
LIST_SHARE = 16
#: At most this many ids in one list filtered by id (``?id=..&id=..``: 40 bytes an id, so
#: about 2 KB of query): a longer request line is refused by the cloud's HTTP server
#: (gunicorn's and uWSGI's default limit is 4 KB, eventlet's 8 KB) with a 400 or 414
BY_ID_MAX = 50


@dataclass(eq=False)
class _Batch:
    ids: set[str] = field(default_factory=set)
    done: bool = False
    found: dict[str, dict[str, Any]] = field(default_factory=dict)
    error: BaseException | None = None


class Batcher:
    """The reads of one kind on one connection (see the module docstring)."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind
        self._cond = threading.Condition(threading.Lock())
        self._pending: _Batch | None = None
        self._running = False
        #: requests sent (single GETs and lists), for tests and benches
        self.requests = 0
        #: how many objects the last detailed list returned (None: no list yet)
        self.population: int | None = None

    def read(self, cloud: Cloud, object_id: str) -> dict[str, Any]:
        """The object's JSON. :raises app.errors.CloudError: as the single GET would."""
        object_id = str(object_id)
        if self.kind.detail is None:
            return self._show(cloud, object_id)
        with self._cond:
            batch = self._pending
            if batch is None:
                batch = self._pending = _Batch()
            batch.ids.add(object_id)
            while not batch.done and (self._running or self._pending is not batch):
                self._cond.wait()
            lead = not batch.done
            if lead:
                self._running = True
                self._pending = None
        if lead:
            self._send(cloud, batch)
        if batch.error is not None:
            raise copy.copy(batch.error) from batch.error
        found = batch.found.get(object_id)
        if found is None:   # not in the list: the cloud's own answer for this one id
            found = self._show(cloud, object_id)
        return found

    def _send(self, cloud: Cloud, batch: _Batch) -> None:
        try:
            if len(batch.ids) == 1:
                (only,) = batch.ids
                batch.found[only] = self._show(cloud, only)
            elif self._listed(len(batch.ids)):
                listed = self._list(cloud, batch.ids)
                if not self.kind.by_id:
                    self.population = len(listed)
                batch.found = {str(o.get("id")): o for o in listed
                               if str(o.get("id")) in batch.ids}
            # else: nothing found here, and each read sends its own single GET
        except Exception as exc:  # every read of the batch raises it
            batch.error = exc
        finally:
            with self._cond:
                batch.done = True
                self._running = False
                self._cond.notify_all()

    def _listed(self, size: int) -> bool:
        """Whether a batch of ``size`` reads is served by one list (see :data:`LIST_SHARE`):
        always where the list holds only the batch's ids (Neutron); for a detailed list, when
        no list was sent yet or the batch is at least a share of the last one's length."""
        return (self.kind.by_id or self.population is None
                or size * LIST_SHARE >= self.population)

    def _count(self) -> None:
        with self._cond:
            self.requests += 1

    def _show(self, cloud: Cloud, object_id: str) -> dict[str, Any]:
        self._count()
        body = cloud.request(self.kind.service, "GET", self.kind.show.format(id=object_id))
        return dict((body or {})[self.kind.one])

    def _list(self, cloud: Cloud, ids: set[str]) -> list[dict[str, Any]]:
        if not self.kind.by_id:
            return self._pages(cloud, {})
        ordered = sorted(ids)
        return [o for i in range(0, len(ordered), BY_ID_MAX)
                for o in self._pages(cloud, {"id": ordered[i:i + BY_ID_MAX]})]

    def _pages(self, cloud: Cloud, params: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        url: str | None = self.kind.detail or self.kind.listing
        while url:
            self._count()
            body = cloud.request(self.kind.service, "GET", url, **(
                {"params": params} if params else {})) or {}
            params = {}     # a next link carries the query
            page = list(body.get(self.kind.many) or [])
            out.extend(page)
            url = _next(body.get(f"{self.kind.many}_links")) if page else None
        return out


def _next(links: Any) -> str | None:
    for link in links or ():
        if isinstance(link, dict) and link.get("rel") == "next" and link.get("href"):
            return str(link["href"])
    return None


_batchers: weakref.WeakKeyDictionary[Any, dict[Kind, Batcher]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def batcher(cloud: Cloud, kind: Kind) -> Batcher:
    """The process's batcher of ``kind`` for ``cloud``'s connection (``cloud.raw``; it lives as
    long as the connection, which :mod:`app.clients` caches per worker and project)."""
    with _lock:
        per = _batchers.get(cloud.raw)
        if per is None:
            per = _batchers[cloud.raw] = {}
        found = per.get(kind)
        if found is None:
            found = per[kind] = Batcher(kind)
        return found


def read(cloud: Cloud, kind: Kind, object_id: str) -> dict[str, Any]:
    """``kind``'s object ``object_id`` as the API's JSON, batched with concurrent reads.

    :raises app.errors.CloudError: 404 when it is gone; the shared request's error.
    """
    return batcher(cloud, kind).read(cloud, object_id)


def poll(cloud: Cloud, kind: Kind, object_id: str | None) -> dict[str, Any] | None:
    """:func:`read`, with ``None`` for an object that is gone (404) or no id at all."""
    if not object_id:
        return None
    try:
        return read(cloud, kind, str(object_id))
    except errors.CloudError as exc:
        if exc.status != 404:
            raise
    return None


def delete(cloud: Cloud, kind: Kind, object_id: str) -> None:
    """``DELETE`` ``kind``'s object by its REST path, a 404 ignored: the SDK's
    ``delete_*(id)`` (``ignore_missing=True``) without the SDK object it builds for it.

    :raises app.errors.CloudError: any other error.
    """
    try:
        cloud.request(kind.service, "DELETE", kind.show.format(id=object_id))
    except errors.CloudError as exc:
        if exc.status != 404:
            raise


def server(cloud: Cloud, server_id: str) -> dict[str, Any]:
    """Nova's ``server`` object (``status``, ``fault``, ``flavor``...). See :func:`read`."""
    return read(cloud, SERVER, server_id)


def volume(cloud: Cloud, volume_id: str) -> dict[str, Any]:
    """Cinder's ``volume`` object (``status``, ``attachments``...). See :func:`read`."""
    return read(cloud, VOLUME, volume_id)


def find_named(cloud: Cloud, kind: Kind, name: str) -> dict[str, Any] | None:
    """The one object of ``kind`` whose name (or id) is ``name``, as the list's JSON (``id``,
    ``name``...), ``None`` when there is none: the SDK's ``find_*(name, ignore_missing=True)``
    for a name that is not an id (its list ``?name=`` and exact match), without building an
    SDK resource per listed object.

    :raises app.errors.CloudError: the list failed; several objects have that name
        (permanent, as the SDK's ``DuplicateResource``).
    """
    body = cloud.request(kind.service, "GET", kind.listing, params={"name": name}) or {}
    found = [o for o in body.get(kind.many) or ()
             if isinstance(o, dict) and (o.get("name") == name or o.get("id") == name)]
    if len(found) > 1:
        raise cloud_error(f"More than one {kind.one} exists with the name '{name}'.", None,
                          transient=False)
    return dict(found[0]) if found else None

