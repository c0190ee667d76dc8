"""Resource types (heat-api's ``list_resource_types`` / ``resource_schema`` /
``generate_template``).

- ``GET /resource_types`` → ``{"resource_types": [names]}``; query ``name`` (glob), ``version``,
  ``support_status``, ``with_description`` (entries become ``{"resource_type", "description"}``);
- ``GET /resource_types/{type}`` → the schema: ``resource_type``, ``properties``,
  ``attributes``, ``support_status`` (``with_description`` adds descriptions);
- ``GET /resource_types/{type}/template[?template_type=hot|cfn]`` → a template using the type.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.api.params import flag, template_type
from app.api.views_common import ctx, services

blp = Blueprint("resource_types", __name__, url_prefix="/v1/<tenant_id>",
                description="Resource types.")


def _with_description() -> bool:
    return flag(request.args, "with_description")


@blp.route("/resource_types")
class ResourceTypes(MethodView):
    @blp.response(200, description='{"resource_types": [...]}')
    def get(self) -> Any:
        """List the resource types available to templates."""
        return {"resource_types": services.validation.resource_types(
            ctx(), name=request.args.get("name"), version=request.args.get("version"),
            support_status=request.args.get("support_status"),
            with_description=_with_description())}


@blp.route("/resource_types/<type_name>")
class ResourceType(MethodView):
    @blp.response(200, description="The type's properties and attributes schema.")
    def get(self, type_name: str) -> Any:
        """Show a resource type's schema."""
        return services.validation.resource_type_schema(ctx(), type_name,
                                                        with_description=_with_description())


@blp.route("/resource_types/<type_name>/template")
class ResourceTypeTemplate(MethodView):
    @blp.response(200, description="A template with one resource of the type.")
    def get(self, type_name: str) -> Any:
        """Generate a template for a resource type (``template_type`` cfn or hot)."""
        kind = template_type(request.args.get("template_type"))
        return services.validation.resource_type_template(ctx(), type_name, template_type=kind)
