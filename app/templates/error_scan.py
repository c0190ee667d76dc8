"""Every error of a template's text in one pass: its structure, then its instantiation.

:func:`scan` parses the template; a structural error of one resource, parameter or output
(``parse`` stops at the first) is recorded and repaired: a bad field of a resource other
than its type (``deletion_policy``, ``update_policy``...) is dropped, so the resource's other
errors are still found; any other bad element is replaced by a neutral stand-in (a resource
by ``OS::Heat::None``, so references to it still hold; a parameter by a string with a
default; an output removed); then the template is parsed again, up to
:data:`MAX_REPAIRS` times; then :func:`.stack.all_errors` checks the rest. Each error carries
the line and column of its path in the original text (none for a template given as a
mapping).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from app import errors
from app.templates import loader
from app.templates.stack import TypeSchema, all_errors
from app.templates.template import parse

#: the most structural errors recorded before the scan gives up repairing
MAX_REPAIRS = 50
_STAND_INS = {"resources": {"type": "OS::Heat::None"}, "Resources": {"Type": "OS::Heat::None"},
              "parameters": {"type": "string", "default": ""},
              "Parameters": {"Type": "String", "Default": ""}}


def scan(source: str | bytes | Mapping[str, Any], files: Mapping[str, str], *,
         params: Mapping[str, Any], env: Any, identity: Any, type_schema: TypeSchema | None,
         nesting: Any, strict: bool, max_size: int | None = None) -> list[errors.TemplateError]:
    """Every error of ``source`` found in one pass, in the order found. ``[]``: valid.

    :raises errors.BadRequest, errors.RequestLimitExceeded: the text cannot be loaded at all
        (not YAML/JSON, not a mapping, too large): one error, nothing further to scan."""
    loaded = loader.load_mapping(source, max_size=max_size)
    raw = copy.deepcopy(loaded.data)
    found: list[errors.TemplateError] = []
    tmpl = None
    for _ in range(MAX_REPAIRS):
        try:
            tmpl = parse(raw, files)
            break
        except errors.TemplateError as exc:
            found.append(exc)
            if not _repair(raw, exc.path):
                break
    if tmpl is not None:
        found += all_errors(tmpl, params, env, identity, type_schema, nesting=nesting,
                            strict=strict, validate_children=strict)
    return [_located(exc, loaded.locations) for exc in found]


def _repair(raw: dict[str, Any], path: tuple[Any, ...]) -> bool:
    """Drop the bad field of a resource ``path`` names (not its type), else replace the
    element by its stand-in (remove it when it already is one, or is an output).
    :returns: False when ``path`` names no such element."""
    if len(path) < 2 or not isinstance(raw.get(path[0]), dict) or path[1] not in raw[path[0]]:
        return False
    section, name = raw[path[0]], path[1]
    element = section[name]
    if path[0] in ("resources", "Resources") and len(path) >= 3 and isinstance(element, dict) \
            and path[2] in element \
            and path[2] not in ("type", "Type", "properties", "Properties"):
        del element[path[2]]
        return True
    stand_in = _STAND_INS.get(path[0])
    if stand_in is None or section[name] == stand_in:
        del section[name]
    else:
        section[name] = dict(stand_in)
    return True


def _located(exc: errors.TemplateError, locations: Mapping[tuple[Any, ...], tuple[int, int]]
             ) -> errors.TemplateError:
    path = tuple(exc.path)
    while path and exc.line is None:
        if path in locations:
            exc.line, exc.column = locations[path]
        path = path[:-1]
    return exc
