"""A NUL character (``%00``) in a request's URL, refused before any view runs.

No stored name or id can hold one (names are validated on the way in; PostgreSQL text cannot hold
``\\x00`` at all: psycopg refuses to send it), so a path segment carrying one names nothing and a
query value carrying one can match nothing. Checked here, once for every route, the answer is the
same on SQLite and PostgreSQL:

- a path segment → 404, as a lookup of a name that does not exist answers: the Stack, Resource or
  Event segments with :class:`app.errors.NotFound`'s "The Stack (...) could not be found."
  (``EntityNotFound``); an output, snapshot, change set or resource type with its own 404
  (``NotFound``, ``SnapshotNotFound``, ``ChangeSetNotFound``, ``ResourceTypeNotFound``); any
  other segment with webob's ``HTTPNotFound``;
- a query parameter's name or value → 400 ``HTTPBadRequest`` naming the parameter.
"""
from __future__ import annotations

from typing import Any

from flask import request
from werkzeug.exceptions import NotFound as HTTPNotFound

from app import errors
from app.api import outputs
from app.services import change_sets, snapshots, validation

NUL = "\x00"

#: URL variables whose lookup answers Heat's ``EntityNotFound`` "The <entity> (<name>) could
#: not be found." (the services' own wording for these entities)
ENTITIES = {"stack_name": "Stack", "stack_id": "Stack", "stack_arn": "Stack",
            "resource_name": "Resource", "event_id": "Event"}


def _not_found(key: str, text: str, values: dict[str, Any]) -> Exception:
    """The 404 the lookup of URL variable ``key`` = ``text`` answers when nothing has it."""
    if key in ENTITIES:
        return errors.NotFound(ENTITIES[key], text)
    if key == "output_key":
        return outputs.not_found(text)
    if key == "snapshot_id":
        return snapshots.not_found(text, str(values.get("stack_name", "")))
    if key == "change_set":
        return change_sets.not_found(text)
    if key == "type_name":
        return validation.type_not_found(text)
    return HTTPNotFound()


def refuse_nul(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Flask URL value preprocessor: the URL's first segment (in path order) holding a NUL, then
    the first query parameter holding one, is refused.

    :raises app.errors.NotFound: a Stack, Resource or Event segment (404 ``EntityNotFound``).
    :raises werkzeug.exceptions.NotFound: any other segment (404 ``HTTPNotFound``).
    :raises app.errors.BadRequest: a query parameter's name or value (400)."""
    for key, value in (values or {}).items():
        text = str(value)
        if NUL in text:
            raise _not_found(key, text, values or {})
    for key, value in request.args.items(multi=True):
        if NUL in key or NUL in value:
            raise errors.BadRequest(
                f"Invalid query parameter {key!r}: a NUL character (\\x00) is not allowed.")
