"""Translation of openstacksdk / keystoneauth exceptions into :class:`app.errors.CloudError`.

Done once, at the boundary (:mod:`app.clients.retry` calls :func:`translate`), so plugins and the
engine only ever see ``CloudError`` with ``status`` (the HTTP status, ``None`` for a connection
failure), ``transient`` and the cloud's own message. Transient: 5xx, connection errors and
timeouts; permanent: 4xx (and anything unrecognised). The ``heat_type`` is the name Heat's
python-*client exceptions give the same status (``Conflict``, ``BadRequest``, ``NotFound``...), so
that a failure reason reads as Heat's: ``"Conflict: resources.net: Unable to complete ..."``.
"""
from __future__ import annotations

import json
from typing import Any

from app import errors

#: Heat's client exception names by HTTP status (neutronclient / novaclient / cinderclient).
HEAT_NAMES = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
              405: "MethodNotAllowed", 409: "Conflict", 413: "OverLimit",
              500: "InternalServerError", 501: "HTTPNotImplemented", 502: "BadGateway",
              503: "ServiceUnavailable", 504: "GatewayTimeout"}


def is_transient_status(status: int | None) -> bool:
    """5xx (and no status at all: the connection failed) is worth retrying; 4xx is not."""
    return status is None or status >= 500


def cloud_error(message: str, status: int | None, *, transient: bool | None = None,
                **data: Any) -> errors.CloudError:
    """A ``CloudError`` named as Heat's client exception for ``status``."""
    if transient is None:
        transient = is_transient_status(status)
    name = HEAT_NAMES.get(status or 0, "ClientException" if status else "ConnectFailure")
    return errors.CloudError(message, transient=transient, status=status, heat_type=name, **data)


def translate(exc: BaseException) -> errors.CloudError:
    """``exc`` (from openstacksdk or keystoneauth) as a ``CloudError``; a ``CloudError`` is
    returned unchanged. The message is the cloud's (the error body's ``message`` /
    ``NeutronError.message`` / ``badRequest.message``...), not the SDK's "Client Error for url"."""
    if isinstance(exc, errors.CloudError):
        return exc
    # imported here: openstacksdk costs half a second, and only cloud calls need it
    from keystoneauth1 import exceptions as ksa_exc
    from openstack import exceptions as sdk_exc

    if isinstance(exc, sdk_exc.HttpException):
        status = exc.status_code
        if status is None and isinstance(exc, sdk_exc.NotFoundException):
            status = 404    # find_*(ignore_missing=False) raises without a response
        return cloud_error(_sdk_message(exc), status, transient=bool(status and status >= 500))
    if isinstance(exc, (ksa_exc.ConnectTimeout, ksa_exc.RequestTimeout, ksa_exc.GatewayTimeout)):
        return cloud_error(f"Timed out talking to the cloud: {exc}", getattr(exc, "http_status", None),
                           transient=True)
    if isinstance(exc, ksa_exc.ConnectionError):
        return cloud_error(f"Unable to reach the cloud: {exc}", None, transient=True)
    if isinstance(exc, ksa_exc.HttpError):
        status = exc.http_status
        return cloud_error(_body_message(getattr(exc, "response", None)) or exc.message or str(exc),
                           status)
    if isinstance(exc, ksa_exc.EndpointNotFound):
        return cloud_error(f"The cloud has no endpoint for this service: {exc}", None,
                           transient=False)
    if isinstance(exc, (sdk_exc.SDKException, ksa_exc.ClientException)):
        return cloud_error(str(exc), None, transient=False)
    return cloud_error(f"{type(exc).__name__}: {exc}", None, transient=False)


def _sdk_message(exc: Any) -> str:
    found = _body_message(getattr(exc, "response", None))
    if found:
        return found
    details = getattr(exc, "details", None)
    if details:
        return str(details)
    return str(getattr(exc, "message", None) or exc)


def _body_message(response: Any) -> str | None:
    """The ``message`` in an OpenStack error body, whatever the service's envelope:
    ``{"NeutronError": {"message"}}``, ``{"badRequest": {"message"}}``, ``{"error": {"message"}}``,
    ``{"faultstring"}`` (Octavia/Aodh/Mistral), ``{"description"}``, ``{"message"}``, Zun's and
    Magnum's ``{"errors": [{"detail"}]}`` and Ironic's ``{"error_message": "<JSON with faultstring>"}``."""
    if response is None:
        return None
    try:
        data = response.json()
    except (ValueError, json.JSONDecodeError, AttributeError):
        text = getattr(response, "text", "") or ""
        return text.strip() or None
    return _find_message(data)


def _find_message(data: Any) -> str | None:
    if isinstance(data, list):
        return next((m for m in map(_find_message, data) if m), None)
    if isinstance(data, dict):
        for key in ("message", "faultstring", "description", "detail", "error_message"):
            value = data.get(key)
            if isinstance(value, str) and value.startswith("{"):
                try:
                    value = _find_message(json.loads(value)) or value
                except ValueError:
                    pass
            if isinstance(value, str) and value:
                return value
        for value in data.values():
            found = _find_message(value)
            if found:
                return found
    return None


def is_not_found(exc: BaseException) -> bool:
    """True for a 404 (what Heat's ``ignore_not_found`` ignores)."""
    return isinstance(exc, errors.CloudError) and exc.status == 404


def is_no_unique(exc: BaseException) -> bool:
    """True for a name that several objects have (the SDK's ``DuplicateResource``, Heat's
    ``is_no_unique``)."""
    return isinstance(exc, errors.CloudError) and exc.status is None \
        and str(exc).startswith("More than one ")


def is_conflict(exc: BaseException) -> bool:
    """True for a 409 (Neutron's "in use" / Octavia's "immutable" while pending)."""
    return isinstance(exc, errors.CloudError) and exc.status == 409
