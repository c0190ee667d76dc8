"""Loading template and environment text: YAML or JSON, with Heat's limits.

More in docs/code/templates.md (app.templates.loader).
"""
from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from app import errors

MAX_NODES = 200_000
MAX_DEPTH = 100

Path = tuple[Any, ...]


_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available, as Heat


class _Loader(_Base):  # type: ignore[misc]
    """SafeLoader (libyaml's when available) without timestamp construction (Heat keeps dates
    as strings)."""


def _construct_str(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    return loader.construct_scalar(node)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _construct_str)


@dataclass
class Loaded:
    """A loaded document: ``data`` (plain JSON-like values) and ``locations`` (path -> (line, col))."""

    data: Any
    locations: dict[Path, tuple[int, int]] = field(default_factory=dict)


def _measure(node: yaml.Node, sizes: dict[int, tuple[int, int]], active: set[int]) -> tuple[int, int]:
    """Return (expanded node count, depth) of ``node``; memoised per node so aliases are O(1)."""
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in active:
        raise errors.BadRequest("Template not in valid format: recursive YAML alias",
                                heat_type="HTTPBadRequest")
    active.add(key)
    count, depth = 1, 0
    children: list[yaml.Node] = []
    if isinstance(node, yaml.SequenceNode):
        children = list(node.value)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            children.extend((k, v))
    for child in children:
        # a scalar counts one node, one level, without a call of its own
        c, d = (1, 1) if isinstance(child, yaml.ScalarNode) else _measure(child, sizes, active)
        count += c
        depth = max(depth, d)
        if count > MAX_NODES:
            raise errors.RequestLimitExceeded(
                f"Template expands to more than {MAX_NODES} nodes (YAML aliases)")
    active.discard(key)
    sizes[key] = (count, depth + 1)
    if depth + 1 > MAX_DEPTH:
        raise too_deep()
    return sizes[key]


def _locate(node: yaml.Node, path: Path, out: dict[Path, tuple[int, int]], budget: list[int]) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        return
    out.setdefault(path, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        children: Any = ((path + (k.value,), v) for k, v in node.value
                         if isinstance(k, yaml.ScalarNode))
    elif isinstance(node, yaml.SequenceNode):
        children = ((path + (i,), v) for i, v in enumerate(node.value))
    else:
        return
    for where, v in children:
        if isinstance(v, yaml.ScalarNode):  # as a call for it would, without the call
            budget[0] -= 1
            if budget[0] >= 0:
                out.setdefault(where, (v.start_mark.line + 1, v.start_mark.column + 1))
        else:
            _locate(v, where, out, budget)


def kind(value: Any) -> str:
    """What ``value`` is in YAML/JSON words, for a message: ``"a list"``, ``"a string"``,
    ``"a number"``, ``"a boolean"``, ``"a map"``, ``"null"``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a map" if isinstance(value, Mapping) else "a list"


def too_deep() -> errors.RequestLimitExceeded:
    """The one error for a template nested deeper than :data:`MAX_DEPTH`, however it came."""
    return errors.RequestLimitExceeded(f"Template nesting exceeds {MAX_DEPTH} levels")


def check_depth(value: Any, level: int = 1) -> None:
    """Refuse loaded data nested deeper than :data:`MAX_DEPTH` levels, counted as for YAML
    text (:func:`_measure`): the document is level 1, each value one level below the mapping
    or list holding it. The same bound for a template sent as YAML text, JSON text or a JSON
    object in the request body. :raises errors.RequestLimitExceeded: :func:`too_deep`."""
    if level > MAX_DEPTH:
        raise too_deep()
    if isinstance(value, dict):
        children: Any = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return
    for v in children:  # a scalar is looked at here, without a call of its own
        if isinstance(v, _CONTAINERS):
            check_depth(v, level + 1)
        elif level >= MAX_DEPTH:
            raise too_deep()


_CONTAINERS = (dict, list)


def load_text(text: str | bytes, *, max_size: int | None = None, what: str = "template",
              json_first: bool = True) -> Loaded:
    """Load ``text`` (YAML or JSON) into plain values, bounded as the module says.
    ``json_first=False`` parses JSON-looking text as YAML too (Heat's environment parser does).

    :raises errors.RequestLimitExceeded: ``len(text) > max_size`` or alias/nesting limits.
    :raises errors.BadRequest: not valid YAML/JSON ("Error parsing template ...").
    """
    if isinstance(text, bytes):
        size = len(text)
        text = text.decode("utf-8")
    else:
        size = len(text.encode("utf-8"))
    if max_size is not None and size > max_size:
        raise errors.RequestLimitExceeded(
            f"Template size ({size} bytes) exceeds maximum allowed size ({max_size} bytes).")
    if len(text) <= CACHED_TEXT_MAX:  # the same text again (a group's provider template)
        cached = _parsed(text, what, json_first)
        return Loaded(plain_copy(cached.data), cached.locations)
    return _parse(text, what, json_first)


def plain_copy(value: Any) -> Any:
    """A copy of loaded data (mappings, lists and YAML's sets and pairs copied, scalars
    shared): what ``copy.deepcopy`` gives for it, several times faster (no memo; a YAML alias
    becomes copies of its node, which :func:`_measure` already counted expanded)."""
    if isinstance(value, dict):
        return {k: plain_copy(v) if isinstance(v, _COPIED) else v for k, v in value.items()}
    if isinstance(value, list):
        return [plain_copy(v) if isinstance(v, _COPIED) else v for v in value]
    if isinstance(value, tuple):
        return tuple(plain_copy(v) for v in value)
    if isinstance(value, set):
        return set(value)
    return value


_COPIED = (dict, list, tuple, set)


#: characters: texts up to this long have their parse kept (:data:`CACHED_TEXTS` of them)
CACHED_TEXT_MAX = 65536
CACHED_TEXTS = 128


@functools.lru_cache(maxsize=CACHED_TEXTS)
def _parsed(text: str, what: str, json_first: bool) -> Loaded:
    """:func:`_parse` of a short text, kept: every member of a group of a provider template
    loads the same text (its errors are not kept: they raise again each time). Callers get a
    copy of the data (they may change it); the locations are only read."""
    return _parse(text, what, json_first)


def _parse(text: str, what: str, json_first: bool) -> Loaded:
    if json_first and text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except RecursionError:
            raise too_deep() from None
        except ValueError as exc:
            raise errors.BadRequest(f"Error parsing {what} [root stack] {exc}") from exc
        check_depth(data)
        return Loaded(data)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Loaded(None)
        _measure(node, {}, set())
        data = loader.construct_document(node)
    except RecursionError:
        raise too_deep() from None
    except yaml.YAMLError as exc:
        pure = _pure_error(text, exc)
        raise errors.BadRequest(f"Error parsing {what} [root stack] {pure}") from pure
    finally:
        loader.dispose()
    locations: dict[Path, tuple[int, int]] = {}
    _locate(node, (), locations, [MAX_NODES])
    return Loaded(data, locations)


def _pure_error(text: str, exc: yaml.YAMLError) -> yaml.YAMLError:
    """The error as PyYAML's pure-Python SafeLoader words it (with the snippet where it
    occurred): Heat parses with libyaml and, on an error, parses again with ``SafeLoader`` to
    report that wording (``heat.common.template_format.simple_parse``). ``exc`` when the pure
    parser accepts the text or gives up (too deep)."""
    if _Base is yaml.SafeLoader:
        return exc
    try:
        yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as pure:
        return pure
    except RecursionError:
        return exc
    return exc


def _key_text(key: Any) -> Any:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return key


def json_keys(value: Any) -> Any:
    """``value`` with every mapping key as JSON would store it (``1`` -> ``"1"``, ``true`` ->
    ``"true"``): Heat keeps the template as JSON in its database, and the engine resolves
    functions from that copy, so a YAML key ``1`` is the string ``"1"`` to ``map_replace``.
    O(size); the value itself is returned when no key needs it."""
    if isinstance(value, dict):
        items = []
        changed = False
        for k, v in value.items():
            k2 = k if isinstance(k, str) else _key_text(k)
            v2 = json_keys(v) if isinstance(v, _CONTAINERS) else v
            changed = changed or k2 is not k or v2 is not v
            items.append((k2, v2))
        return dict(items) if changed else value
    if isinstance(value, list):
        out = [json_keys(v) if isinstance(v, _CONTAINERS) else v for v in value]
        return value if all(a is b for a, b in zip(out, value, strict=True)) else out
    return value


def load_mapping(source: str | bytes | Mapping[str, Any], *, max_size: int | None = None,
                 what: str = "template") -> Loaded:
    """Load ``source`` and check it is a mapping (as heat-api: "Template not in valid format").

    An already-loaded mapping (a JSON object in the request body) is taken as is (no
    locations), within the same nesting bound as text (:func:`check_depth`).
    :raises errors.BadRequest: not a mapping / not YAML.
    :raises errors.RequestLimitExceeded: nested deeper than :data:`MAX_DEPTH`.
    """
    if isinstance(source, Mapping):
        check_depth(source)
        return Loaded(dict(source))
    try:
        loaded = load_text(source, max_size=max_size, what=what)
    except errors.BadRequest as exc:
        raise errors.BadRequest(f"Template not in valid format: {exc.message}") from exc
    if not isinstance(loaded.data, dict):
        raise errors.BadRequest(
            "Template not in valid format: The template is not a JSON object or YAML mapping.")
    # the sections' entries (resource, parameter, condition, output names) are checked as
    # written, as Heat validates them before it stores the template; keys below them are as
    # the stored JSON copy has them
    loaded.data = {k: {n: json_keys(v) for n, v in section.items()}
                   if isinstance(section, dict) else section
                   for k, section in loaded.data.items()}
    return loaded
