"""The sandbox cloud's JSON replies, written by orjson.

A listing (``GET /servers/detail``, ``/volumes/detail``) is the whole project's objects, and the
engine's status polls ask for one whenever several polls queue together: encoding it with the
standard library would be the largest single cost of the sandbox's CPU, on a machine it shares
with the workers it serves (docs/decisions.md). The replies are the same JSON
(Flask's compact form, keys in insertion order, UTF-8 rather than ``\\u`` escapes, both valid
JSON for every client); values orjson would write differently from Flask (dates, which Flask
writes as HTTP dates, and dataclasses) go through Flask's own conversion, and anything orjson
refuses (an integer beyond 64 bits) is written by Flask's provider.
"""
from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

_OPTIONS = (orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_NON_STR_KEYS)
_COMPACT = (",", ":")


class FastJSONProvider(DefaultJSONProvider):
    """Flask's JSON provider with orjson writing the compact replies (see the module)."""

    sort_keys = False

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        """``obj`` as JSON text; Flask's own ``dumps`` when asked for anything but its
        compact form (indentation, sorted keys) or when orjson refuses the value."""
        if kwargs in ({}, {"separators": _COMPACT}):
            try:
                return orjson.dumps(obj, default=self.default, option=_OPTIONS).decode()
            except orjson.JSONEncodeError:
                pass
        return super().dumps(obj, **kwargs)
