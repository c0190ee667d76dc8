"""Formatting helpers shared by every view: times, URLs and links, redirects, empty responses.

Heat prints times as ``2026-11-29T08:06:07Z`` (``heat.common.timeutils.isotime``) and builds every
link as an absolute URL from the request's own host (``heat.api.openstack.v1.util.make_url``:
``http://<host>/v1/<tenant>/stacks/<name>/<id>``), with names percent-quoted.
"""
from __future__ import annotations

import functools
import html
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus, urlencode

from flask import Response, current_app, g, json, request

# The use cases the views call, as ``services.<module>.<function>`` (resolved at call time, so
# tests patch a function with ``monkeypatch.setattr``).
from app import services  # noqa: F401  (re-exported: the views' one name for the use cases)
from app.models import isotime  # noqa: F401  (re-exported: the views' one time format)
from app.services import (  # noqa: F401  (imported for services.<module>)
    environments,
    resource_attrs,
    resources,
    stack_policy,
    stack_reads,
    stacks,
    update_preview,
    updates,
    validation,
)


@functools.lru_cache(maxsize=8192)
def quoted(part: str) -> str:
    """``part`` percent-quoted for a URL path segment; a listing quotes the same tenant, stack
    and resource names on every row, so the answers are kept (bounded)."""
    return quote(str(part), safe="")


#: ``api_root`` by what it is made of in the WSGI environ (a few hosts; bounded)
_ROOTS: dict[tuple[Any, ...], str] = {}
_ROOT_KEYS = ("wsgi.url_scheme", "HTTP_HOST", "SERVER_NAME", "SERVER_PORT", "SCRIPT_NAME")


def api_root() -> str:
    """``http://<host>/v1`` of the current request (honours a WSGI script root): werkzeug's
    ``url_root`` worked out once for each scheme, host and script root seen."""
    environ = request.environ
    key = tuple(environ.get(k) for k in _ROOT_KEYS)
    root = _ROOTS.get(key)
    if root is None:
        if len(_ROOTS) >= 256:
            _ROOTS.clear()
        root = _ROOTS[key] = request.url_root.rstrip("/") + "/v1"
    return root


def stack_url(tenant: str, stack_name: str, stack_id: str) -> str:
    """Absolute URL of a stack: ``.../v1/<tenant>/stacks/<name>/<id>``."""
    return f"{api_root()}/{quoted(tenant)}/stacks/{quoted(stack_name)}/{quoted(stack_id)}"


def resource_url(stack_href: str, resource_name: str) -> str:
    return f"{stack_href}/resources/{quoted(resource_name)}"


def event_url(stack_href: str, resource_name: str, event_id: str) -> str:
    return f"{resource_url(stack_href, resource_name)}/events/{quoted(event_id)}"


def link(href: str, rel: str = "self") -> dict[str, str]:
    """Heat's link object ``{"href": ..., "rel": ...}``."""
    return {"href": href, "rel": rel}


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response with ``Content-Type: application/json``."""
    resp = current_app.response_class(json.dumps(body), status=status,
                                      mimetype="application/json")
    for key, value in (headers or {}).items():
        resp.headers[key] = value
    return resp


def no_content() -> Response:
    """``204 No Content`` with an empty body and no Content-Type (Heat's delete answer)."""
    resp = current_app.response_class(status=204)
    resp.headers.pop("Content-Type", None)
    return resp


def redirect_found(location: str) -> Response:
    """``302 Found`` to ``location`` with the JSON body heat-api sends (webob's HTTPFound)::

        {"message": "The resource was found at <a href=...>...</a>;\\nyou should be redirected
         automatically.\\n\\n", "code": "302 Found", "title": "Found"}
    """
    shown = html.escape(location, quote=True)
    body = {"message": f"The resource was found at <a href=\"{shown}\">{shown}</a>;\n"
                       "you should be redirected automatically.\n\n",
            "code": "302 Found", "title": "Found"}
    return json_response(body, 302, {"Location": location})


def with_query(url: str) -> str:
    """``url`` plus the current request's query string (a lookup redirect keeps the parameters,
    which clients drop when they follow it)."""
    params = list(request.args.items(multi=True))
    return f"{url}?{urlencode(params)}" if params else url


def collection_links(items: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    """Heat's ``next`` link (``views_common.get_collection_links``): present when ``limit`` was
    given and the page is full; its href repeats the query with ``marker`` = the last item's id."""
    items = list(items)
    try:
        limit = int(request.args.get("limit") or 0)
    except ValueError:
        limit = 0
    if not (limit > 0 and len(items) == limit):
        return []
    return [{"rel": "next", "href": _next_prefix(request.environ) + quote_plus(items[-1]["id"])}]


#: the next link's text up to the marker's value, by what it is made of in the WSGI environ
_NEXT: dict[tuple[Any, ...], str] = {}
_NEXT_KEYS = (*_ROOT_KEYS, "PATH_INFO", "QUERY_STRING")


def _next_prefix(environ: dict[str, Any]) -> str:
    """``<base url>?<the query without marker>&marker=`` of the current request (a client
    pages a listing with the same query: worked out once for each; bounded)."""
    key = tuple(environ.get(k) for k in _NEXT_KEYS)
    prefix = _NEXT.get(key)
    if prefix is None:
        params = [(k, v) for k, v in request.args.items(multi=True) if k != "marker"]
        query = urlencode(params)
        if len(_NEXT) >= 1024:
            _NEXT.clear()
        prefix = _NEXT[key] = f"{request.base_url}?{query}{'&' if query else ''}marker="
    return prefix


def ctx() -> Any:
    """The :class:`app.context.RequestContext` of the current ``/v1/{tenant_id}`` request."""
    return g.context
