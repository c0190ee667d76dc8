"""Cloud faults ridden out by polling: a transient cloud error (5xx, timeout, refused
connection, left after the client's own retries, :mod:`app.clients.retry`) of a call that
may be sent again as it is (a read, a delete, an update: ``err.data["idempotent"]``) met by a
cloud type's handler is looked at again at the next poll, with the engine's back-off, until
the action ends or the stack's timeout fails it, never a failure at once; a permanent refusal
(4xx), and a create's or an action's error (sent again, it could act twice), fail as before. :func:`ride_out` wraps a class's own handlers (``CloudResource`` and
each subclass, at class creation).
"""
from __future__ import annotations

import logging
from typing import Any, TypeVar

from app import errors

log = logging.getLogger(__name__)


def _again(exc: errors.CloudError) -> bool:
    return exc.transient and bool(exc.data.get("idempotent"))

#: Handle key of an action that met a transient cloud error before it started: started again
#: at the next poll (the count of tries so far); ``"h"``: the started action's own handle
AGAIN = "_again"


_C = TypeVar("_C", bound=type)


def ride_out(cls: _C) -> _C:
    """Wrap ``cls``'s own handlers so that a transient cloud error (5xx, timeout, refused
    connection, after the client's retries) is polled again with the engine's back-off,
    not a failure (the stack's timeout bounds it):

    * ``check_create_complete`` / ``check_update_complete`` / ``check_delete_complete``:
      the look is tried again at the next poll;
    * ``handle_delete``: the delete is started again at the next poll (a delete is
      idempotent: a 404 then is "gone");

    A create's start is not wrapped: its POST is tried ``1 + client_retry_limit`` times, each
    retry after looking for what the failed try made (:meth:`app.clients.retry.Cloud.create`),
    then the resource fails, as Heat's.
    """
    def again(start: Any) -> Any:
        def handler(self: Any) -> Any:
            try:
                return start(self)
            except errors.CloudError as exc:
                if not _again(exc):
                    raise
                log.info("%s: %s met %s; started again at the next poll", self.name,
                         start.__name__, exc.message)
                return {AGAIN: 0}
        handler._rides_out = True  # type: ignore[attr-defined]
        handler.__doc__ = start.__doc__
        handler.__name__ = start.__name__
        return handler

    def looks(check: Any, start_name: str) -> Any:
        def handler(self: Any, handle: Any) -> Any:
            if isinstance(handle, dict) and AGAIN in handle:
                if not handle[AGAIN]:   # the failed start itself: the poll's back-off first
                    handle[AGAIN] = 1
                    return False
                if "h" not in handle:
                    started = getattr(self, start_name)()
                    if isinstance(started, dict) and AGAIN in started:
                        handle[AGAIN] = int(handle[AGAIN]) + 1
                        return False
                    handle["h"] = started
                inner = handle["h"]
            else:
                inner = handle
            try:
                return check(self, inner)
            except errors.CloudError as exc:
                if not _again(exc):
                    raise
                log.info("%s: %s met %s; looked at again at the next poll", self.name,
                         check.__name__, exc.message)
                return False
        handler._rides_out = True  # type: ignore[attr-defined]
        handler.__doc__ = check.__doc__
        handler.__name__ = check.__name__
        return handler

    own = cls.__dict__.get("handle_delete")
    if own is not None and not getattr(own, "_rides_out", False):
        cls.handle_delete = again(own)  # type: ignore[attr-defined]
    for name, start_name in (("check_create_complete", "handle_create"),
                             ("check_update_complete", "handle_update"),
                             ("check_delete_complete", "handle_delete")):
        own = cls.__dict__.get(name)
        if own is not None and not getattr(own, "_rides_out", False):
            setattr(cls, name, looks(own, start_name))
    return cls
