"""Query-string and body parameter helpers with heat-api's semantics and wording.

Follows ``heat.api.openstack.v1.util.get_allowed_params`` (whitelists; ``single`` / ``multi`` /
``mixed`` values) and ``heat.common.param_utils`` (strict booleans, non-negative integers, tags).
Every failure is a 400 ``HTTPBadRequest`` as heat-api raises it.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from werkzeug.datastructures import MultiDict

from app import errors

SINGLE, MULTI, MIXED = "single", "multi", "mixed"


def allowed(args: MultiDict[str, str], whitelist: Mapping[str, str]) -> dict[str, Any]:
    """The entries of ``args`` named in ``whitelist``: ``single`` → the first value, ``multi`` →
    the list of values, ``mixed`` → a value, or a list when repeated. Empty values are dropped."""
    out: dict[str, Any] = {}
    for key, kind in whitelist.items():
        if key not in args:
            continue
        if kind == SINGLE:
            value: Any = args.get(key)
        else:
            value = args.getlist(key)
            if kind == MIXED and len(value) == 1:
                value = value[0]
        if value:
            out[key] = value
    return out


def extract_bool(name: str, value: Any) -> bool:
    """``true`` / ``false`` in any case (also JSON booleans); anything else is a 400 (Heat's
    ``param_utils.extract_bool``: ``str(value).lower()`` must be one of them, no trimming)."""
    if isinstance(value, bool):
        return value
    text = str(value).lower()
    if text not in ("true", "false"):
        raise errors.BadRequest(f'Unrecognized value "{value}" for "{name}", acceptable values '
                                "are: true, false.")
    return text == "true"


def flag(source: Mapping[str, Any], name: str, default: bool = False) -> bool:
    """The boolean ``source[name]`` of a request body or query string, by :func:`extract_bool`;
    ``default`` when absent or null. :raises errors.BadRequest: anything but true/false (an
    empty query value too, as heat-api's handlers that read the flag themselves)."""
    value = source.get(name)
    if value is None:
        return default
    return extract_bool(name, value)


#: the largest integer a request may give (PostgreSQL's INTEGER, SQLite's is wider)
MAX_INT = 2**31 - 1


def extract_int(name: str, value: Any, allow_zero: bool = True) -> int:
    """A non-negative integer up to :data:`MAX_INT` (``0`` allowed unless ``allow_zero`` is
    false); else a 400."""
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError(value)
        number = int(value)
    except (TypeError, ValueError):
        raise errors.BadRequest(f"Only integer is acceptable by '{name}'.") from None
    if number < 0 or (number == 0 and not allow_zero):
        kind = "non-negative" if allow_zero else "positive"
        raise errors.BadRequest(f"Value '{value}' is invalid for '{name}' which only accepts "
                                f"{kind} integer.")
    if number > MAX_INT:  # what the database's INTEGER columns hold
        raise errors.BadRequest(f"Value '{value}' is invalid for '{name}' which only accepts "
                                f"integer up to {MAX_INT}.")
    return number


def extract_tags(value: Any) -> list[str] | None:
    """Tags as heatclient sends them (``"a,b"``) or as a list; each at most 80 characters,
    without a NUL. :raises errors.BadRequest: another shape, a longer tag or a NUL (400)."""
    if value is None:
        return None
    if not isinstance(value, (str, list)) or (isinstance(value, list) and not all(
            isinstance(t, (str, int, float)) for t in value)):
        raise errors.BadRequest("tags must be a comma-separated string or a list of strings.")
    tags = value.split(",") if isinstance(value, str) else [str(t) for t in value]
    tags = [t.strip() for t in tags if t.strip()]
    for tag in tags:
        if len(tag) > 80:
            raise errors.BadRequest(f'Invalid tag, "{tag}" is longer than 80 characters')
        if "\x00" in tag:  # no database of Stoker's could match or (PostgreSQL) store it
            raise errors.BadRequest(f"Invalid tag {tag!r}: a NUL character (\\x00) is not "
                                    "allowed.")
    return tags


def template_type(value: str | None) -> str:
    """``cfn`` (default) or ``hot`` for ``GET /resource_types/{type}/template``."""
    if value is None:
        return "cfn"
    if value.lower() not in ("cfn", "hot"):
        raise errors.BadRequest(f'Template type is not supported: Invalid template type "{value}", '
                                "valid types are: cfn, hot.")
    return value.lower()


#: integer fields of a request body, named in an unreadable number's message
INT_FIELDS = ("timeout_mins",)
_UNREADABLE = object()


def loads_body(data: bytes | str) -> Any:
    """A JSON request body, as ``json.loads``. A number with more digits than Python reads
    (``sys.get_int_max_str_digits()``, 4300) is a 400 in heat-api's words, not Python's
    "Exceeds the limit ... sys.set_int_max_str_digits()": as ``timeout_mins``, Heat's
    ``param_utils.extract_int`` "Only integer is acceptable by 'timeout_mins'." (what Heat says
    of the same number sent as a string); elsewhere, how many digits it has and may have.

    :raises ValueError: the body is not JSON (the parser's message).
    :raises errors.BadRequest: a number too long to read.
    """
    try:
        return json.loads(data)
    except ValueError:  # malformed, or an integer too long to read: parse again to know
        long: list[str] = []

        def parse_int(text: str) -> Any:
            try:
                return int(text)
            except ValueError:
                long.append(text)
                return _UNREADABLE
        body = json.loads(data, parse_int=parse_int)  # re-raises a malformed body's error
        if not long:
            raise
    for name in INT_FIELDS:
        if isinstance(body, dict) and body.get(name) is _UNREADABLE:
            raise errors.BadRequest(f"Only integer is acceptable by '{name}'.")
    raise errors.BadRequest(f"A number in the request body has {len(long[0].lstrip('-'))} "
                            f"digits; at most {sys.get_int_max_str_digits()} can be read.")
