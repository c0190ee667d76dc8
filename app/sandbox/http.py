"""HTTP helpers shared by the sandbox services: the error type and each service's error body,
JSON request bodies, timestamps, list filtering and pagination.

More in docs/code/sandbox.md (app.sandbox.http).
"""
from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable
from typing import Any

from flask import Response, g, jsonify, request

from app.errors import HTTP_TITLES, StokerError

Obj = dict[str, Any]

NOVA_KEYS = {400: "badRequest", 401: "unauthorized", 403: "forbidden", 404: "itemNotFound",
             405: "badMethod", 409: "conflictingRequest", 413: "overLimit", 429: "overLimit",
             500: "computeFault", 501: "notImplemented", 503: "serviceUnavailable"}
DESIGNATE_TYPES = {400: "bad_request", 403: "forbidden", 404: "not_found",
                   405: "method_not_allowed", 409: "duplicate", 413: "over_quota"}
NEUTRON_TYPES = {400: "BadRequest", 401: "NotAuthorized", 403: "Forbidden", 404: "NotFound",
                 409: "Conflict", 500: "InternalServerError", 503: "ServiceUnavailable"}


class SandboxError(StokerError):
    """An API error; rendered in the dialect of the service that raised it.

    :param status: HTTP status.
    :param message: the service's wording.
    :param kind: Neutron's ``type`` (e.g. ``"IpAddressAlreadyAllocated"``); other dialects ignore it.
    """

    def __init__(self, status: int, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.status = self.http_status = status
        self.kind = kind


def not_found(what: str, ident: Any, kind: str | None = None) -> SandboxError:
    return SandboxError(404, f"{what} {ident} could not be found.", kind or f"{what.replace(' ', '')}NotFound")


def error_body(dialect: str, err: SandboxError) -> Obj:
    """The JSON error body ``dialect`` (a blueprint name) gives for ``err``."""
    status = err.status
    title = HTTP_TITLES.get(status, ("Error", ""))[0]
    if dialect == "identity":
        return {"error": {"code": status, "title": title, "message": err.message}}
    if dialect in ("compute", "volume"):
        return {NOVA_KEYS.get(status, "computeFault"): {"code": status, "message": err.message}}
    if dialect == "network":
        return {"NeutronError": {"type": err.kind or NEUTRON_TYPES.get(status, "Error"),
                                 "message": err.message, "detail": ""}}
    if dialect == "image":
        return {"code": f"{status} {title}", "title": title, "message": err.message}
    if dialect == "loadbalancer":
        return {"faultcode": "Client" if status < 500 else "Server", "faultstring": err.message,
                "debuginfo": None}
    if dialect == "alarming":
        return {"error_message": {"faultcode": "Client" if status < 500 else "Server",
                                  "faultstring": err.message, "debuginfo": None}}
    if dialect == "keymanager":
        return {"code": status, "title": title, "description": err.message}
    if dialect == "dns":  # ``kind``: Designate's snake_case error type
        kind = err.kind if err.kind and err.kind.islower() else \
            DESIGNATE_TYPES.get(status, "unknown_failure")
        return {"code": status, "type": kind, "message": err.message,
                "request_id": g.get("request_id", "")}
    if dialect == "workflow":
        return {"faultstring": err.message, "debuginfo": None, "error_data": {}}
    if dialect == "container":
        return {"errors": [{"request_id": "", "code": err.kind or "", "status": status,
                            "title": title, "detail": err.message, "links": []}]}
    if dialect == "reservation":
        return {"error_code": status, "error_message": err.message,
                "error_name": err.kind or title.replace(" ", "")}
    if dialect == "baremetal":
        return {"error_message": json.dumps({
            "faultstring": err.message, "faultcode": "Client" if status < 500 else "Server",
            "debuginfo": None})}
    return {"error": {"code": status, "title": title, "message": err.message}}


def render_error(dialect: str, err: SandboxError) -> Response:
    resp = jsonify(error_body(dialect, err))
    resp.status_code = err.status
    return resp


def body(key: str | None = None, *, required: bool = True) -> Obj:
    """The request's JSON object, or its ``key`` member.

    :raises SandboxError: 400 when the body is not JSON or ``key`` is missing.
    """
    data = request.get_json(silent=True, force=True)
    if data is None:
        if not required:
            return {}
        raise SandboxError(400, "Malformed request body", "MalformedRequestBody")
    if not isinstance(data, dict):
        raise SandboxError(400, "Malformed request body: expected an object", "MalformedRequestBody")
    if key is None:
        return data
    if key not in data or not isinstance(data[key], dict):
        if not required:
            return {}
        raise SandboxError(400, f"Invalid input: the request body must contain '{key}'",
                           "InvalidInput")
    return data[key]


def reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    resp = jsonify(payload)
    resp.status_code = status
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def no_content(status: int = 204) -> Response:
    return Response(status=status)


def iso(ts: float, style: str = "nova") -> str:
    """Format epoch seconds: ``nova``/``neutron`` ``2026-11-29T10:00:00Z``; ``cinder``
    ``2026-11-29T10:00:00.000000``; ``keystone`` ``2026-11-29T10:00:00.000000Z``."""
    d = _dt.datetime.fromtimestamp(ts, _dt.UTC)
    if style == "cinder":
        return d.strftime("%Y-%m-%dT%H:%M:%S.%f")
    if style == "keystone":
        return d.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str | None) -> float | None:
    if not text:
        return None
    text = text.strip().replace("Z", "+00:00")
    try:
        d = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=_dt.UTC)
    return d.timestamp()


def public(obj: Obj) -> Obj:
    """``obj`` without the sandbox's private ``_`` keys."""
    return {k: v for k, v in obj.items() if not k.startswith("_")}


def arg_bool(name: str, default: bool = False) -> bool:
    value = request.args.get(name)
    if value is None:
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def filter_by_args(items: Iterable[Obj], fields: Iterable[str]) -> list[Obj]:
    """Keep the items whose ``fields`` equal the query string's values (Neutron/Cinder style
    exact-match filters; a repeated argument matches any of its values), and Neutron's ``tags``
    (all of) and ``tags-any`` (any of) filters."""
    out = list(items)
    for name in fields:
        values = request.args.getlist(name)
        if not values:
            continue
        def match(o: Obj, name: str = name, values: list[str] = values) -> bool:
            v = o.get(name)
            if isinstance(v, bool):
                v = "true" if v else "false"
                return v in [x.lower() for x in values]
            return str(v) in values
        out = [o for o in out if match(o)]
    wanted = {t for v in request.args.getlist("tags") for t in v.split(",") if t}
    if wanted:
        out = [o for o in out if wanted <= set(o.get("tags") or [])]
    anyof = {t for v in request.args.getlist("tags-any") for t in v.split(",") if t}
    if anyof:
        out = [o for o in out if anyof & set(o.get("tags") or [])]
    return out


def paginate(items: list[Obj], key: str = "id") -> list[Obj]:
    """Apply ``marker`` and ``limit`` from the query string (as Nova/Neutron/Cinder/Glance).

    :raises SandboxError: 400 when the marker is not in the list.
    """
    marker = request.args.get("marker")
    if marker:
        ids = [str(o.get(key)) for o in items]
        if marker not in ids:
            raise SandboxError(400, f"marker [{marker}] not found", "BadRequest")
        items = items[ids.index(marker) + 1:]
    limit = request.args.get("limit")
    if limit:
        try:
            n = int(limit)
        except ValueError:
            raise SandboxError(400, "limit must be an integer", "BadRequest") from None
        items = items[:n]
    return items


def microversion(service: str) -> tuple[int, int]:
    """The microversion the request asked for (``OpenStack-API-Version: compute 2.10`` or the
    legacy ``X-OpenStack-Nova-API-Version``) as ``(major, minor)``; ``(0, 0)`` when absent."""
    header = request.headers.get("OpenStack-API-Version", "")
    text = ""
    for part in header.split(","):
        words = part.split()
        if len(words) == 2 and words[0] == service:
            text = words[1]
    if not text and service == "compute":
        text = request.headers.get("X-OpenStack-Nova-API-Version", "")
    if text == "latest":
        return (99, 999)
    try:
        major, minor = text.split(".")
        return int(major), int(minor)
    except ValueError:
        return (0, 0)
