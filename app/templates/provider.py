"""The type schema of a template used as a resource type (Heat's TemplateResource).

More in docs/code/templates.md (app.templates.provider).
"""
from __future__ import annotations

from typing import Any

from app.templates.parsed import Template

_PROPERTY_TYPES = {"string": "string", "number": "number", "json": "map",
                   "comma_delimited_list": "list", "boolean": "boolean"}


def template_resource_schema(tmpl: Template) -> dict[str, Any]:
    """``{"properties": {...}, "attributes": None, "outputs": [names]}`` for ``tmpl`` used as
    a resource type."""
    properties: dict[str, Any] = {}
    for name, p in tmpl.parameters.items():
        prop: dict[str, Any] = {"type": _PROPERTY_TYPES[p.type],
                                "required": not p.has_default, "update_allowed": True,
                                "immutable": p.immutable}
        if p.constraints:  # Heat's Properties.schema_from_params keeps them
            prop["constraints"] = [dict(c) for c in p.constraints]
        properties[name] = prop
    return {"properties": properties, "attributes": None, "outputs": list(tmpl.outputs)}
