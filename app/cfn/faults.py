"""AWS errors of the CFN API, as heat-api-cfn answers them (``heat/api/aws/exception.py``).

More in docs/code/cfn.md (app.cfn.faults).
"""
from __future__ import annotations

from typing import Any

from werkzeug.exceptions import HTTPException

from app import errors
from app.cfn import xml


class CfnError(errors.StokerError):
    """One AWS error. Subclasses set ``code`` (HTTP, also ``http_status``), ``title`` (the AWS
    ``Code``, also ``heat_type``), ``explanation`` and ``err_type`` (``Sender`` or ``Server``),
    as Heat's ``HeatAPIException``.

    :param detail: appended to the explanation after ``:`` (Heat's message form).
    """

    code = http_status = 400
    title = heat_type = "InternalFailure"
    explanation = ""
    err_type = "Sender"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(f"{self.explanation}:{detail}" if detail else self.explanation)
        self.detail = detail

    @classmethod
    def aws(cls, message: str) -> CfnError:
        """This error with ``message`` as its whole ``Message``: AWS's own text for an action
        heat-api-cfn does not have (no Heat explanation before it), e.g. ListImports'
        "Export 'x' is not imported by any stack."."""
        err = cls(message)
        err.message = message
        err.args = (message,)
        return err

    def body(self, request_id: str | None = None) -> bytes:
        doc: dict[str, Any] = {"Error": {"Type": self.err_type, "Code": self.title,
                                         "Message": self.message}}
        if request_id:
            doc["RequestId"] = request_id
        return xml.to_xml({"ErrorResponse": doc})


def _error(name: str, code: int, title: str, explanation: str,
           err_type: str = "Sender") -> type[CfnError]:
    return type(name, (CfnError,), {"code": code, "http_status": code, "title": title,
                                     "heat_type": title, "explanation": explanation,
                                     "err_type": err_type, "__doc__": explanation})


IncompleteSignature = _error("IncompleteSignature", 400, "IncompleteSignature",
                             "The request signature does not conform to AWS standards")
InternalFailure = _error("InternalFailure", 500, "InternalFailure",
                         "The request processing has failed due to an internal error", "Server")
InvalidAction = _error("InvalidAction", 400, "InvalidAction",
                       "The action or operation requested is invalid")
InvalidClientTokenId = _error("InvalidClientTokenId", 403, "InvalidClientTokenId",
                              "The certificate or AWS Key ID provided does not exist")
InvalidParameterCombination = _error("InvalidParameterCombination", 400,
                                     "InvalidParameterCombination",
                                     "Incompatible parameters were used together")
ValidationError = _error("ValidationError", 400, "ValidationError",
                         "A bad or out-of-range value was supplied")
InvalidQueryParameter = _error("InvalidQueryParameter", 400, "InvalidQueryParameter",
                               "AWS query string is malformed, does not adhere to AWS spec")
MissingAction = _error("MissingAction", 400, "MissingAction",
                       "The request is missing an action or operation parameter")
MissingAuthenticationToken = _error("MissingAuthenticationToken", 403,
                                    "MissingAuthenticationToken",
                                    "Does not contain a valid AWS Access Key or certificate")
MissingParameter = _error("MissingParameter", 400, "MissingParameter",
                          "A mandatory input parameter is missing")
AlreadyExists = _error("AlreadyExists", 400, "AlreadyExistsException",
                       "Resource with the name requested already exists")
AccessDenied = _error("AccessDenied", 403, "AccessDenied",
                      "User is not authorized to perform action")
SignatureDoesNotMatch = _error("SignatureDoesNotMatch", 403, "SignatureDoesNotMatch",
                               "The request signature we calculated does not match the "
                               "signature you provided")
ServiceUnavailable = _error("ServiceUnavailable", 503, "ServiceUnavailable",
                            "Service temporarily unavailable", "Server")
RequestLimitExceeded = _error("RequestLimitExceeded", 400, "RequestLimitExceeded",
                              "Payload exceeds maximum allowed size")
MethodNotAllowed = _error("MethodNotAllowed", 405, "MethodNotAllowed",
                          "The method is not allowed for this resource")
NotFound = _error("NotFound", 404, "NotFound", "The resource could not be found")
ChangeSetNotFound = _error("ChangeSetNotFound", 404, "ChangeSetNotFound",
                           "The specified change set could not be found")
InvalidChangeSetStatus = _error("InvalidChangeSetStatus", 400, "InvalidChangeSetStatus",
                                "The specified change set cannot be used in its current state")


def from_stoker(exc: errors.StokerError) -> CfnError:
    """The AWS error for a service error (Heat's ``map_remote_error``; the detail is the
    error's own message, Heat's ``safe`` exceptions): a conflict of names →
    ``AlreadyExistsException``; the change sets' own errors by their AWS codes; a limit → ``RequestLimitExceeded``; not found, invalid
    templates, parameters and values, not supported → ``ValidationError``; forbidden or not
    authenticated → ``AccessDenied``; anything else → ``InternalFailure``."""
    if isinstance(exc, errors.StackExists) or exc.heat_type == "AlreadyExistsException":
        return AlreadyExists(exc.message)
    if exc.heat_type == "ChangeSetNotFound":
        return ChangeSetNotFound(exc.message)
    if exc.heat_type == "InvalidChangeSetStatus":
        return InvalidChangeSetStatus(exc.message)
    if isinstance(exc, errors.RequestLimitExceeded):
        return RequestLimitExceeded(exc.message)
    if isinstance(exc, (errors.Forbidden, errors.AuthError)):
        return AccessDenied(exc.message)
    if exc.http_status in (400, 404) or isinstance(exc, errors.Conflict):
        return ValidationError(exc.message)
    return InternalFailure(exc.message)


UNREADABLE_BODY = errors.UNREADABLE_BODY


def read_body(request: Any) -> bytes:
    """``request``'s body (a Flask request), read whole and cached. :raises
    InvalidQueryParameter: the WSGI server could not read it to its end (gunicorn: a malformed
    chunk's ``ParseException``, ``NoMoreData``); werkzeug's own answers pass through."""
    try:
        return bytes(request.get_data(cache=True))
    except HTTPException:
        raise
    except Exception:
        raise InvalidQueryParameter(UNREADABLE_BODY) from None
