"""Version negotiation in front of the API, as heat-api's ``VersionNegotiationFilter``
(heat/api/middleware/version_negotiation.py), outside authentication as in Heat's pipeline.

More in docs/code/api.md (app.api.version_negotiation).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

_VERSION = re.compile(r"^v(\d+)\.?(\d+)?")
_MEDIA = "application/vnd.openstack.orchestration-"


def versions_body(host_url: str) -> dict[str, Any]:
    """Heat's versions document for a server at ``host_url`` (``http://host:port/``)."""
    href = host_url.rstrip("/") + "/v1/"
    return {"versions": [{"id": "v1.0", "status": "CURRENT",
                          "links": [{"rel": "self", "href": href}]}]}


def _version(subject: str) -> tuple[int, int] | None:
    match = _VERSION.match(subject)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def decide(path: str, accept: str) -> str | None:
    """What to do with a request for ``path`` with header ``Accept: accept``.

    :returns: ``"versions"`` (answer the versions document with 300), the path to serve instead
        (``/v1/...``), or None (serve ``path`` unchanged).
    """
    first, _, rest = path.lstrip("/").partition("/")
    if first == "versions":
        return "versions"
    if not first:
        return None  # ``GET /`` is the versions route itself
    version = _version(first)
    if version is not None:
        if version != (1, 0):
            return "versions"
        return None if first == "v1" else "/v1/" + rest
    if accept.startswith(_MEDIA):
        version = _version(accept[len(_MEDIA):])
        if version is not None:
            return "/v1" + path if version == (1, 0) else "versions"
    return None


def wrap(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """The WSGI callable ``app`` behind version negotiation (see the module docstring)."""
    def negotiate(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = environ.get("PATH_INFO") or "/"
        action = decide(path, environ.get("HTTP_ACCEPT", ""))
        if action == "versions":
            from werkzeug.wrappers import Request
            body = json.dumps(versions_body(Request(environ).host_url)).encode()
            start_response("300 Multiple Choices", [("Content-Type", "application/json"),
                                                    ("Content-Length", str(len(body)))])
            return [body]
        if action is not None:
            environ["PATH_INFO"] = action
        return app(environ, start_response)
    return negotiate
