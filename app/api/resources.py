"""Resources of a stack (heat-api's ``ResourceController``).

- ``GET /stacks/{name}/{id}/resources`` → ``{"resources": [...]}``; query ``nested_depth``
  (resources of nested stacks down to that depth, with ``parent_resource``), ``with_detail``
  (adds description and attributes) and filters ``type``, ``status``, ``name``, ``action``,
  ``id``, ``physical_resource_id``; any other parameter is a 400 "Invalid filter parameters".
- ``GET .../resources/{resource_name}`` → ``{"resource": {...}}`` with ``attributes``;
  ``with_attr`` (repeatable) adds attributes (:mod:`app.services.resource_attrs`).
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api import formats
from app.api.blueprint import Blueprint
from app.api.params import MIXED, allowed, extract_int, flag
from app.api.views_common import ctx, services

blp = Blueprint("resources", __name__,
                url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Resources of a stack.")

FILTERS = {key: MIXED for key in ("type", "status", "name", "action", "id",
                                  "physical_resource_id")}


def _field(row: Any, key: str) -> Any:
    return {"type": row.type, "status": row.status, "name": row.name, "action": row.action,
            "id": row.uuid, "physical_resource_id": row.physical_resource_id}[key]


def _matches(row: Any, filters: dict[str, Any]) -> bool:
    """Heat's resource filters: each key matches one value, or any of a repeated list."""
    for key, wanted in filters.items():
        values = wanted if isinstance(wanted, list) else [wanted]
        if _field(row, key) not in values:
            return False
    return True


@blp.route("/resources")
class Resources(MethodView):
    @blp.response(200, description='{"resources": [...]} with required_by and links.')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """List a stack's resources."""
        unknown = set(request.args) - set(FILTERS) - {"nested_depth", "with_detail"}
        if unknown:
            raise errors.BadRequest(f"Invalid filter parameters {sorted(unknown)}")
        depth = extract_int("nested_depth", request.args["nested_depth"]) \
            if "nested_depth" in request.args else 0
        detail = flag(request.args, "with_detail")
        filters = allowed(request.args, FILTERS)
        stack, rows = services.resources.stack_resources(ctx(), stack_name, stack_id, depth)
        out = []
        for row, required_by in rows:
            if not _matches(row, filters):
                continue
            attributes = None
            if detail and getattr(row, "stack_id", stack.id) == stack.id:
                _, required_by, attributes = services.resources.get_resource(ctx(), stack,
                                                                             row.name)
            out.append(formats.resource(stack, row, required_by, attributes=attributes,
                                        detail=detail))
        return {"resources": out}


@blp.route("/resources/<resource_name>")
class Resource(MethodView):
    @blp.response(200, description='{"resource": {...}} with description and attributes.')
    def get(self, stack_name: str, stack_id: str, resource_name: str) -> Any:
        """Show one resource with its attributes; each ``with_attr`` (repeatable) adds that
        attribute, resolved now, or null when the resource has no such attribute (Heat's
        ``format_resource_attributes``)."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        row, required_by, attributes = services.resources.get_resource(ctx(), stack,
                                                                       resource_name)
        with_attr = request.args.getlist("with_attr")
        if with_attr:
            attributes = services.resource_attrs.extra_attributes(stack, row, with_attr,
                                                                  attributes or {})
        return {"resource": formats.resource(stack, row, required_by, attributes=attributes,
                                             detail=True)}
