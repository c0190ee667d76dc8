"""Endpoint lookups of a cached connection answered once per token, not once per request;
its HTTP session's reading of the process environment (proxies, CA bundle) once per host.

More in docs/code/clients.md (app.clients.endpoints).
"""
from __future__ import annotations

import copy
from typing import Any
from urllib.parse import urlsplit

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


def memoize_environment(http: Any) -> Any:
    """Wrap ``http.merge_environment_settings`` (a ``requests.Session``'s) so the process
    environment is read once per (scheme, host) and arguments, not once per request: with
    ``trust_env`` requests scans every environment variable for proxies on each request (and
    ``no_proxy`` per host). A worker's environment is
    fixed once it runs, so the answer is the same; it is copied out. ``http`` is returned."""
    original = getattr(http, "merge_environment_settings", None)
    if original is None or getattr(original, "_stoker_memo", False):
        return http
    kept: dict[Any, dict[str, Any]] = {}

    def merge_environment_settings(url: str, proxies: Any, stream: Any, verify: Any,
                                   cert: Any) -> dict[str, Any]:
        try:
            parts = urlsplit(url)
            key = (parts.scheme, parts.netloc, repr(sorted((proxies or {}).items())),
                   stream, repr(verify), repr(cert), http.trust_env)
        except (TypeError, ValueError):
            return dict(original(url, proxies, stream, verify, cert))
        hit = kept.get(key)
        if hit is None:
            hit = dict(original(url, proxies, stream, verify, cert))
            if len(kept) >= MAX_KEPT:
                kept.clear()
            kept[key] = hit
        out = dict(hit)
        if isinstance(out.get("proxies"), dict):
            out["proxies"] = dict(out["proxies"])
        return out

    merge_environment_settings._stoker_memo = True  # type: ignore[attr-defined]
    http.merge_environment_settings = merge_environment_settings
    return http
