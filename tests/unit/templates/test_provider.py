"""A template used as a resource type: parameters -> properties, outputs -> attributes."""
from __future__ import annotations

import pytest

from app import errors
from app.templates import StackIdentity, parse
from app.templates.provider import template_resource_schema
from tests.unit.templates.nesting import HEAT_NESTING, bind

CHILD = """
heat_template_version: 2018-08-31
parameters:
  name: {type: string}
  port: {type: number, default: 80}
  tags: {type: comma_delimited_list, default: []}
outputs:
  url: {value: x}
"""


def test_schema_shape() -> None:
    schema = template_resource_schema(parse(CHILD))
    assert schema["properties"]["name"]["required"] is True
    # Heat's Schema.from_parameter gives the property no default (the child's applies)
    assert schema["properties"]["port"] == {"type": "number", "required": False,
                                            "update_allowed": True, "immutable": False}
    assert schema["properties"]["tags"]["type"] == "list"
    assert schema["attributes"] is None
    assert schema["outputs"] == ["url"]


def test_parent_validated_against_child() -> None:
    files = {"child.yaml": CHILD}
    child = template_resource_schema(parse(CHILD))

    def lookup(name: str) -> dict | None:  # type: ignore[type-arg]
        return child if name == "child.yaml" else None

    parent = parse("heat_template_version: 2018-08-31\nresources:\n"
                   "  c: {type: child.yaml, properties: {bogus: 1}}\n", files)
    with pytest.raises(errors.ValidationError, match="Unknown Property bogus"):
        bind(parent, {}, None, StackIdentity(), lookup, nesting=HEAT_NESTING)
    missing = parse("heat_template_version: 2018-08-31\nresources:\n  c: {type: child.yaml}\n",
                    files)
    with pytest.raises(errors.ValidationError, match="Property name not assigned"):
        bind(missing, {}, None, StackIdentity(), lookup, nesting=HEAT_NESTING)
    ok = parse("heat_template_version: 2018-08-31\nresources:\n"
               "  c: {type: child.yaml, properties: {name: web}}\n"
               "outputs:\n  u: {value: {get_attr: [c, url]}}\n", files)
    bind(ok, {}, None, StackIdentity(), lookup, nesting=HEAT_NESTING)
