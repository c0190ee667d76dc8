"""Endpoint lookups of a cached connection answered once per token, not once per request.

keystoneauth finds a request's endpoint by asking its auth plugin (``get_endpoint_data``) on
every request, and each lookup normalises the whole service catalogue — a deep copy of the
token's catalogue (8 % of a worker's CPU in the cloud bench, issue 18). The answer depends only
on the lookup's arguments and the token (``auth.auth_ref``) that holds the catalogue, so
:func:`memoize` keeps each answer until the plugin's token changes (re-authentication, a trust's
new token, ``invalidate()``), then asks again::

    memoize(conn.session.auth)       # once, when the connection is built

Version discovery is still keystoneauth's (it caches it per plugin already). Lookups for the
auth URL itself (``interface=AUTH_INTERFACE``) and any made before there is a token are not
kept. Answers are copied out (callers may refine an ``EndpointData``). Thread-safe: a race
computes twice and keeps one.
"""
from __future__ import annotations

import copy
from typing import Any

#: Distinct lookups kept per plugin (services x interfaces x versions asked: a handful).
MAX_KEPT = 256


def memoize(auth: Any) -> Any:
    """Wrap ``auth.get_endpoint_data`` (a keystoneauth identity plugin) as the module says;
    ``auth`` is returned. A plugin without one, or already wrapped, is left alone."""
    original = getattr(auth, "get_endpoint_data", None)
    if original is None or getattr(original, "_stoker_memo", False):
        return auth
    from keystoneauth1 import plugin

    kept: dict[tuple[int, str], tuple[Any, Any]] = {}

    def get_endpoint_data(session: Any, *args: Any, **kwargs: Any) -> Any:
        ref = getattr(auth, "auth_ref", None)
        if args or ref is None or kwargs.get("interface") is plugin.AUTH_INTERFACE:
            return original(session, *args, **kwargs)
        key = (id(session), repr(sorted(kwargs.items())))
        hit = kept.get(key)
        if hit is not None and hit[0] is ref:
            return copy.copy(hit[1])
        found = original(session, **kwargs)
        now = getattr(auth, "auth_ref", None)
        if found is not None and now is not None:
            if len(kept) >= MAX_KEPT:
                kept.clear()
            kept[key] = (now, copy.copy(found))
        return found

    get_endpoint_data._stoker_memo = True  # type: ignore[attr-defined]
    auth.get_endpoint_data = get_endpoint_data
    return auth
