"""One exception hierarchy for Stoker.

Every error carries data (a path into the template, names) and knows its outward shape: an HTTP
status and the Heat fault ``type`` that heat-api would put in ``error.type``. The API renders any
``StokerError`` as Heat's fault body::

    {"code": 400, "title": "Bad Request", "explanation": "...",
     "error": {"type": "StackValidationFailed", "traceback": null, "message": "..."}}

Names follow ``heat/common/exception.py`` and heat-api's fault map (``heat/api/middleware/fault.py``).
This module is pure: the standard library only.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class StokerError(Exception):
    """Root of all Stoker errors.

    :param message: human readable text (Heat's wording where Heat has one).
    :param path: location in the template as a sequence of keys, e.g.
        ``("resources", "srv", "properties", "flavor")``; rendered dotted by :attr:`path_str`.
    Class attributes ``http_status`` and ``heat_type`` give the fault code and ``error.type``.
    """

    http_status: int = 500
    heat_type: str = "StokerError"

    def __init__(self, message: str = "", *, path: Sequence[Any] | None = None,
                 heat_type: str | None = None, **data: Any) -> None:
        super().__init__(message)
        self.message = message
        self.path = tuple(path) if path else ()
        self.data = data
        if heat_type:
            self.heat_type = heat_type

    @property
    def path_str(self) -> str:
        return format_path(self.path)

    def __str__(self) -> str:
        return self.message


def format_path(path: Sequence[Any]) -> str:
    """Heat's ``HeatExceptionWithPath`` path text: names joined by ``.``, an int or all-digit
    item as ``[n]``: ``("resources", "g", "resources", "0")`` -> ``"resources.g.resources[0]"``,
    ``("resources", "0", "properties")`` -> ``"resources[0].properties"``."""
    out = ""
    for item in path:
        if isinstance(item, int) or str(item).isdigit():
            out += f"[{item}]"
        elif out:
            out += f".{item}"
        else:
            out = str(item)
    return out


# ---- 400 family -----------------------------------------------------------------------------
class BadRequest(StokerError):
    """Malformed request or template body (heat-api's ``HTTPBadRequest``)."""
    http_status = 400
    heat_type = "HTTPBadRequest"


class TemplateError(StokerError):
    """An invalid template; ``path`` locates the offending element.

    Heat's ``error.type`` varies by cause (``StackValidationFailed``, ``InvalidTemplateVersion``,
    ``InvalidTemplateSection``, ``InvalidTemplateReference``...), passed as ``heat_type``.
    """
    http_status = 400
    heat_type = "StackValidationFailed"

    def __init__(self, message: str = "", *, path: Sequence[Any] | None = None,
                 heat_type: str | None = None, line: int | None = None,
                 column: int | None = None, **data: Any) -> None:
        super().__init__(message, path=path, heat_type=heat_type, **data)
        self.line = line
        self.column = column


class ValidationError(TemplateError):
    """A value fails validation (``StackValidationFailed``)."""


class ParameterError(TemplateError):
    """A user parameter is missing, unknown or invalid (``UserParameterMissing``,
    ``UnknownUserParameter``, ``StackValidationFailed``)."""


class RequestLimitExceeded(StokerError):
    """A Heat limit was exceeded (template size, resources per stack, stacks per tenant)."""
    http_status = 400
    heat_type = "RequestLimitExceeded"

    def __init__(self, message: str = "", **data: Any) -> None:
        super().__init__(f"Request limit exceeded: {message}", **data)


# ---- 404 / 409 ----------------------------------------------------------------------------------
class NotFound(StokerError):
    """An entity does not exist or belongs to another tenant (``EntityNotFound``).

    :param entity: Heat's entity word, e.g. ``"Stack"``, ``"Resource"``, ``"Event"``.
    :param name: the name or id asked for.
    """
    http_status = 404
    heat_type = "EntityNotFound"

    def __init__(self, entity: str, name: str, message: str | None = None, **data: Any) -> None:
        super().__init__(message or f"The {entity} ({name}) could not be found.",
                         entity=entity, name=name, **data)


class Conflict(StokerError):
    """The request conflicts with the current state (e.g. ``StackExists``, an action in progress)."""
    http_status = 409
    heat_type = "Conflict"


class StackExists(Conflict):
    heat_type = "StackExists"

    def __init__(self, stack_name: str) -> None:
        super().__init__(f"The Stack ({stack_name}) already exists.", stack_name=stack_name)


# ---- auth ---------------------------------------------------------------------------------------
class AuthError(StokerError):
    http_status = 401
    heat_type = "NotAuthenticated"


class Forbidden(StokerError):
    http_status = 403
    heat_type = "Forbidden"


# ---- engine / cloud -----------------------------------------------------------------------------
class ResourceFailure(StokerError):
    """A resource action failed; ``message`` is the reason stored on the resource and event,
    in Heat's form ``"<ExceptionType>: resources.<name>: <detail>"``."""
    http_status = 500
    heat_type = "ResourceFailure"


class NoActionRequired(StokerError):
    """Heat's ``resource.NoActionRequired``: a signal that changes nothing (a scaling signal in
    cooldown or with no change, a wait-condition signal repeated with the same id and content);
    the signal is answered normally and no event is written. Message as Heat's:
    ``"The resource <res_name> could not perform scaling action: <reason>"``."""
    heat_type = "NoActionRequired"

    def __init__(self, res_name: str = "Unknown", reason: str = "") -> None:
        super().__init__(f"The resource {res_name} could not perform scaling action: {reason}",
                         res_name=res_name, reason=reason)
        self.res_name, self.reason = res_name, reason


class CloudError(StokerError):
    """A cloud call failed. ``transient`` errors (5xx, timeouts, 409 conflicts that clear) are
    retried with backoff up to ``client_retry_limit``; permanent ones fail the resource."""
    http_status = 502
    heat_type = "CloudError"

    def __init__(self, message: str = "", *, transient: bool = False, status: int | None = None,
                 **data: Any) -> None:
        super().__init__(message, **data)
        self.transient = transient
        self.status = status


class LeaseLost(StokerError):
    """A step's resource lock is no longer this engine's at the fencing token it took
    (``engine_id``, ``atomic_key``): its lease ran out and another engine took the node over.
    The step writes nothing more and stops (:mod:`app.convergence.store.lease`)."""
    http_status = 409
    heat_type = "LeaseLost"


class ServiceUnavailable(StokerError):
    """A service the API needs cannot be reached now (the database): webob's 503, with the
    name of the failure in ``error.type`` as Heat's FaultWrapper gives an unmapped error's
    class name (oslo.db's ``DBConnectionError`` for the database). Nothing was done: the
    request may be sent again."""
    http_status = 503
    heat_type = "DBConnectionError"


class BrokerUnavailable(StokerError):
    """The message broker could not take a message (Redis down): what was to be sent is not
    known to have gone out. Work the database holds is driven again once the broker is back
    (:func:`app.convergence.reconciler.redrive`)."""
    http_status = 503
    heat_type = "MessagingTimeout"


#: what both APIs say of a body the WSGI server could not read to its end
UNREADABLE_BODY = ("The request body could not be read to its end: its chunked encoding "
                   "is malformed, or the connection closed early.")

HTTP_TITLES = {
    400: ("Bad Request", "The server could not comply with the request since it is either "
          "malformed or otherwise incorrect."),
    401: ("Unauthorized", "This server could not verify that you are authorized to access the "
          "document you requested."),
    403: ("Forbidden", "Access was denied to this resource."),
    404: ("Not Found", "The resource could not be found."),
    405: ("Method Not Allowed", "The method is not allowed for this resource."),
    409: ("Conflict", "There was a conflict when trying to complete your request."),
    413: ("Request Entity Too Large", "The request is larger than the server is willing or able "
          "to process."),
    500: ("Internal Server Error", "The server has either erred or is incapable of performing the "
          "requested operation."),
    502: ("Bad Gateway", "Bad gateway."),
    503: ("Service Unavailable", "The server is currently unavailable. Please try again at a "
          "later time."),
}


def fault_body(status: int, heat_type: str, message: str) -> dict[str, Any]:
    """Heat's fault body for ``status``: ``{"code", "title", "explanation", "error": {...}}``."""
    title, explanation = HTTP_TITLES.get(status, ("Error", ""))
    return {"code": status, "title": title, "explanation": explanation,
            "error": {"type": heat_type, "traceback": None, "message": message}}
