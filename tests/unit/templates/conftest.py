"""Shared helpers for template tests: a dict-backed ResolveContext and a schema lookup."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app import errors
from tests.unit.templates.nesting import HEAT_NESTING, bind

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO / "../shared"
RESOURCE_TYPES = SHARED / "heat-reference" / "resource_types.json"


class DictContext:
    """ResolveContext over plain dicts: refs {name: id}, attrs {name: {attr: value}}."""

    def __init__(self, refs: dict[str, str] | None = None,
                 attrs: dict[str, dict[str, Any]] | None = None) -> None:
        self.refs = refs or {}
        self.attrs = attrs or {}

    def get_resource(self, name: str) -> str | None:
        return self.refs.get(name)

    def get_attr(self, name: str, attr: str, *path: Any) -> Any:
        if name not in self.attrs:
            return None
        if attr not in self.attrs[name]:
            raise errors.TemplateError(f"The Referenced Attribute ({name} {attr}) is incorrect.")
        value = self.attrs[name][attr]
        for key in path:
            try:
                value = value[int(key) if isinstance(value, list) else key]
            except (KeyError, IndexError, TypeError, ValueError):
                return None
        return value

    def get_all_attrs(self, name: str) -> dict[str, Any]:
        return dict(self.attrs.get(name, {}))


_SCHEMAS: dict[str, Any] | None = None


def heat_schemas() -> dict[str, Any]:
    global _SCHEMAS
    if _SCHEMAS is None:
        _SCHEMAS = json.loads(RESOURCE_TYPES.read_text()) if RESOURCE_TYPES.exists() else {}
    return _SCHEMAS


def heat_type_schema(name: str) -> dict[str, Any] | None:
    return heat_schemas().get(name)


@pytest.fixture
def ctx() -> DictContext:
    return DictContext()


def resolve_output(snippet: Any, version: str = "2021-04-16", params: dict[str, Any] | None = None,
                   param_defs: str = "", files: dict[str, str] | None = None,
                   extra: str = "") -> dict[str, Any]:
    """Resolve ``snippet`` as the output ``o`` of a template of ``version``; returns the
    output dict (``output_value`` and maybe ``output_error``)."""
    from app.templates import StackIdentity, parse
    text = (f"heat_template_version: {version}\n{param_defs}{extra}"
            + "outputs:\n  o:\n    value: " + json.dumps(snippet) + "\n")
    stack = bind(parse(text, files=files), params or {}, None,
                 StackIdentity("vstack", "sid", "pid"), None, nesting=HEAT_NESTING)
    return stack.resolve_outputs(DictContext())[0]


def value(snippet: Any, version: str = "2021-04-16", **kw: Any) -> Any:
    """The resolved value; fails the test if the output reported an error."""
    out = resolve_output(snippet, version, **kw)
    assert "output_error" not in out, out
    return out["output_value"]


def error(snippet: Any, version: str = "2021-04-16", **kw: Any) -> str:
    """The output error text (the output must fail at resolution)."""
    out = resolve_output(snippet, version, **kw)
    assert "output_error" in out, out
    return str(out["output_error"])
