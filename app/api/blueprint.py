"""The flask-smorest Blueprint every API module uses, with heat-api's rule for what a JSON body
is (``heat.common.wsgi.is_json_content_type``): a body whose Content-Type is JSON, ``text/plain``
or absent, and which starts with ``{``. Anything else reads as no body at all."""
from __future__ import annotations

from typing import Any

import flask
import flask_smorest  # type: ignore[import-untyped]
from webargs import core
from webargs.flaskparser import FlaskParser


def is_json_media(request: flask.Request) -> bool:
    """The body's Content-Type is JSON, ``text/plain`` or absent."""
    mimetype = request.mimetype or "application/json"
    return mimetype in ("application/json", "text/plain") or core.is_json(mimetype)


def is_json_body(request: flask.Request) -> bool:
    return is_json_media(request) and request.get_data(cache=True).lstrip().startswith(b"{")


#: ``flask.g`` attribute holding the body as the API's first check decoded it
DECODED_BODY = "decoded_json_body"


class HeatBodyParser(FlaskParser):
    """webargs' Flask parser with heat-api's notion of a JSON body; a body the request's first
    check decoded already (``g.decoded_json_body``) is not decoded again."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        if not is_json_body(req):
            return core.missing
        if DECODED_BODY in flask.g:
            return getattr(flask.g, DECODED_BODY)
        return core.parse_json(req.get_data(cache=True))


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    ARGUMENTS_PARSER = HeatBodyParser()
