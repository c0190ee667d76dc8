"""``?show_all_errors=true`` on validate, create and update: the 400 of an invalid template
also lists every error of the template, found in one pass, in ``error.errors``.

Each entry is ``{"message", "type", "path", "line", "column"}`` (see
:func:`app.services.validation.all_errors`); the first is the error of the default response.
Without the parameter the response is Heat's, unchanged.
"""
from __future__ import annotations

from typing import Any

from flask import request

from app import errors
from app.api.params import flag
from app.api.views_common import ctx, services


def asked() -> bool:
    """The query asks ``show_all_errors=true``; views call it before any work, so a bad value
    is refused whether or not the template is valid.
    :raises errors.BadRequest: not a boolean (an empty value too), as every boolean flag."""
    return flag(request.args, "show_all_errors")


def listing_all(exc: errors.StokerError, cause: errors.StokerError, args: dict[str, Any], *,
                strict: bool) -> errors.StokerError:
    """``exc`` (the response's error) carrying every error of ``args``' template when
    :func:`asked` and ``exc`` is a 400; ``cause`` is the error the default response gives."""
    if exc.http_status != 400 or not asked():
        return exc
    found = services.validation.all_errors(ctx(), **args, strict=strict)
    first = services.validation.error_entry(cause)
    found = [first, *[e for e in found if e["message"] != first["message"]]]
    exc.data["all_errors"] = found
    return exc
