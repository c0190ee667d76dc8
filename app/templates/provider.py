"""The type schema of a template used as a resource type (Heat's TemplateResource).

As Heat: a nested template's ``parameters`` become the resource's properties (required when
they have no default; ``number`` -> number, ``json`` -> map, ``comma_delimited_list`` -> list,
``boolean`` -> boolean, otherwise string) and its ``outputs`` become attributes (plus
``OS::stack_id``). The result has the format of heat-reference/resource_types.json, so it can
be returned by the ``type_schema`` callable given to ``Template.instantiate``; creating the
nested stack itself is the engine's job.
"""
from __future__ import annotations

from typing import Any

from app.templates.template import Template

_PROPERTY_TYPES = {"string": "string", "number": "number", "json": "map",
                   "comma_delimited_list": "list", "boolean": "boolean"}


def template_resource_schema(tmpl: Template) -> dict[str, Any]:
    """``{"properties": {...}, "attributes": {...}}`` for ``tmpl`` used as a resource type."""
    properties: dict[str, Any] = {}
    for name, p in tmpl.parameters.items():
        prop: dict[str, Any] = {"type": _PROPERTY_TYPES[p.type],
                                "required": not p.has_default, "update_allowed": True,
                                "immutable": p.immutable}
        if p.has_default and p.type in ("string", "number", "boolean"):
            prop["default"] = p.default
        properties[name] = prop
    attributes: dict[str, Any] = {name: {} for name in tmpl.outputs}
    attributes.setdefault("OS::stack_id", {"type": "string"})
    return {"properties": properties, "attributes": attributes}
