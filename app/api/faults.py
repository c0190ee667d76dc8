"""One error path: everything the API raises becomes Heat's fault body.

More in docs/code/api.md (app.api.faults).
"""
from __future__ import annotations

import json
import logging
from typing import Any

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from app import errors, models
from app.api.views_common import json_response

LOG = logging.getLogger(__name__)

# webob's class names, as heat-api reports disguised HTTP exceptions in ``error.type``.
WEBOB_NAMES = {
    400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden", 404: "HTTPNotFound",
    405: "HTTPMethodNotAllowed", 406: "HTTPNotAcceptable", 409: "HTTPConflict",
    413: "HTTPRequestEntityTooLarge", 414: "HTTPRequestURITooLong",
    415: "HTTPUnsupportedMediaType", 417: "HTTPExpectationFailed",
    500: "HTTPInternalServerError", 501: "HTTPNotImplemented",
}

# webob's titles for statuses that only the HTTP server answers (errors.HTTP_TITLES: the app's).
SERVER_TITLES = {
    414: ("Request-URI Too Long", "The request URI was too long for this server."),
    417: ("Expectation Failed", "Expectation failed."),
    501: ("Not Implemented", "The request method is not implemented for this server."),
}


def _body(status: int, heat_type: str, message: str) -> dict[str, Any]:
    body = errors.fault_body(status, heat_type, message)
    if status in SERVER_TITLES and status not in errors.HTTP_TITLES:
        body["title"], body["explanation"] = SERVER_TITLES[status]
    return body


def fault(status: int, heat_type: str, message: str) -> Response:
    return json_response(_body(status, heat_type, message), status)


#: s a client is asked to wait before sending a request again after a 503
RETRY_AFTER_SECONDS = 1


def stoker_error(exc: errors.StokerError) -> Response:
    """A :class:`StokerError` → its status and Heat type; server errors are logged (a 503
    without its traceback: the service is down, the code is not at fault)."""
    if exc.http_status == 503:
        LOG.warning("%s: %s", type(exc).__name__, exc)
        resp = fault(503, exc.heat_type, exc.message)
        resp.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return resp
    if exc.http_status >= 500:
        LOG.error("%s: %s", type(exc).__name__, exc, exc_info=exc)
    if exc.data.get("all_errors") is not None:   # asked with ?show_all_errors=true
        body = _body(exc.http_status, exc.heat_type, exc.message)
        body["error"]["errors"] = exc.data["all_errors"]
        return json_response(body, exc.http_status)
    return fault(exc.http_status, exc.heat_type, exc.message)


def http_exception(exc: HTTPException) -> Response:
    """A werkzeug HTTP exception (routing 404/405, 413...) in Heat's fault shape.

    A request-schema validation failure (webargs, 400 or 422) is heat-api's 400 with the
    fields' problems as the message."""
    status = exc.code or 500
    message = exc.description or ""
    if getattr(exc, "data", None) and exc.data.get("messages"):  # type: ignore[attr-defined]
        status, message = 400, _validation_message(exc)
    if status >= 500:
        LOG.error("HTTP %s: %s", status, message, exc_info=exc)
    resp = fault(status, WEBOB_NAMES.get(status, "HTTPError"), message)
    for key, value in exc.get_headers():
        if key.lower() == "allow":
            resp.headers[key] = value
    return resp


def _validation_message(exc: HTTPException) -> str:
    messages = getattr(exc, "data", {}).get("messages") or {}
    parts = []
    for location in messages.values():
        for field, problems in (location or {}).items():
            text = "; ".join(str(p) for p in problems) if isinstance(problems, list) else problems
            parts.append(f"{field}: {text}")
    return "Invalid request body: " + ", ".join(parts) if parts else "Invalid request"


NUL_IN_BODY = "Invalid request: a NUL character (\\x00) is not allowed in a stored value."
SURROGATE_IN_BODY = ("Invalid request: a text holds a lone surrogate (\\ud800-\\udfff), "
                     "which is not valid Unicode.")


def unexpected(exc: Exception) -> Response:
    """Any other exception: logged with its traceback, answered as a bare 500 fault; but the
    database unreachable is a 503, and a NUL character or a lone surrogate the database refused
    to store a 400."""
    if isinstance(exc, HTTPException):
        return http_exception(exc)
    if models.unavailable(exc):
        return stoker_error(errors.ServiceUnavailable(
            "The database is unavailable; try again later."))
    if models.nul_refused(exc):  # a NUL in the body's text: the database cannot store it
        return stoker_error(errors.BadRequest(NUL_IN_BODY))
    if models.surrogate_refused(exc):  # text that is not valid Unicode: no driver encodes it
        return stoker_error(errors.BadRequest(SURROGATE_IN_BODY))
    if isinstance(exc, RecursionError):  # a body nested deeper than any template can be
        return fault(400, "HTTPBadRequest", "The request body is nested too deeply.")
    LOG.exception("Unhandled error serving the request")
    return fault(500, "HTTPInternalServerError", "An unexpected error occurred.")


def server_fault(status: int, message: str) -> tuple[int, bytes]:
    """``(status, JSON body)`` for a request the HTTP server turns down before the app sees it
    (gunicorn's request-line, header and framing checks), in Heat's fault shape.

    A header section too large (gunicorn's 431) is a 400, as heat-api's eventlet server answers
    a header line over ``max_header_line``; an empty message (gunicorn's own 500) reads as the
    app's unexpected-error message."""
    if status == 431:
        status = 400
    body = _body(status, WEBOB_NAMES.get(status, "HTTPError"),
                 message or "An unexpected error occurred.")
    return status, json.dumps(body).encode()


def register(app: Flask) -> None:
    """Install the handlers (the HTTPException one is flask-smorest's hook, see ``StokerApi``)."""
    app.register_error_handler(errors.StokerError, stoker_error)
    app.register_error_handler(HTTPException, http_exception)
    app.register_error_handler(Exception, unexpected)
