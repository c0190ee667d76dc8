"""The type schema of a template used as a resource type (Heat's TemplateResource).

As Heat: a nested template's ``parameters`` become the resource's properties (required when
they have no default; ``number`` -> number, ``json`` -> map, ``comma_delimited_list`` -> list,
``boolean`` -> boolean, otherwise string; the parameter's constraints are the property's, so
the parent's create checks them, as Heat's ``Properties.schema_from_params``; no default, as
Heat's ``Schema.from_parameter``: a property not given is not passed and the child's default
applies, one given ``null`` is the type's zero value, see :func:`.properties.child_parameters`)
and its
``outputs`` are read as attributes at run
time: Heat's template resources resolve attributes dynamically, so a name that is not an output
is an output error at resolution, not a validation error (``"attributes": None``; the output
names are listed under ``"outputs"``). The result has the format of
heat-reference/resource_types.json, so it can be returned by the ``type_schema`` callable given
to ``Template.instantiate``; creating the nested stack itself is the engine's job.
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
