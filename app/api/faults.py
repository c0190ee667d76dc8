"""One error path: everything the API raises becomes Heat's fault body.

heat-api's ``FaultWrapper`` (``heat/api/middleware/fault.py``) renders every error as::

    {"code": 404, "title": "Not Found", "explanation": "...",
     "error": {"type": "EntityNotFound", "traceback": null, "message": "..."}}

- :class:`app.errors.StokerError` → its ``http_status`` and ``heat_type``;
- werkzeug HTTP exceptions (unknown route, wrong method, body too large) → the same shape with
  heat-api's webob names (``HTTPNotFound``, ``HTTPMethodNotAllowed``...), keeping ``Allow``;
- anything else → 500 with the traceback logged, never sent.
"""
from __future__ import annotations

import logging

from flask import Flask, Response
from werkzeug.exceptions import HTTPException

from app import errors
from app.api.views_common import json_response

LOG = logging.getLogger(__name__)

# webob's class names, as heat-api reports disguised HTTP exceptions in ``error.type``.
WEBOB_NAMES = {
    400: "HTTPBadRequest", 401: "HTTPUnauthorized", 403: "HTTPForbidden", 404: "HTTPNotFound",
    405: "HTTPMethodNotAllowed", 406: "HTTPNotAcceptable", 409: "HTTPConflict",
    413: "HTTPRequestEntityTooLarge", 415: "HTTPUnsupportedMediaType",
    500: "HTTPInternalServerError", 501: "HTTPNotImplemented",
}


def fault(status: int, heat_type: str, message: str) -> Response:
    return json_response(errors.fault_body(status, heat_type, message), status)


def stoker_error(exc: errors.StokerError) -> Response:
    """A :class:`StokerError` → its status and Heat type; server errors are logged."""
    if exc.http_status >= 500:
        LOG.error("%s: %s", type(exc).__name__, exc, exc_info=exc)
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


def unexpected(exc: Exception) -> Response:
    """Any other exception: logged with its traceback, answered as a bare 500 fault."""
    if isinstance(exc, HTTPException):
        return http_exception(exc)
    if isinstance(exc, RecursionError):  # a body nested deeper than any template can be
        return fault(400, "HTTPBadRequest", "The request body is nested too deeply.")
    LOG.exception("Unhandled error serving the request")
    return fault(500, "HTTPInternalServerError", "An unexpected error occurred.")


def register(app: Flask) -> None:
    """Install the handlers (the HTTPException one is flask-smorest's hook, see ``StokerApi``)."""
    app.register_error_handler(errors.StokerError, stoker_error)
    app.register_error_handler(HTTPException, http_exception)
    app.register_error_handler(Exception, unexpected)
