"""Template versions and their functions (heat-api's ``list_template_versions`` /
``list_template_functions``).

- ``GET /template_versions`` → ``{"template_versions": [{"version", "type", "aliases"}]}``;
- ``GET /template_versions/{version}/functions[?with_condition_func=true]`` →
  ``{"template_functions": [{"functions", "description"}]}``; an unknown version is a 404.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.api.params import flag
from app.api.views_common import services

blp = Blueprint("template_versions", __name__, url_prefix="/v1/<tenant_id>",
                description="Template versions and functions.")


@blp.route("/template_versions")
class TemplateVersions(MethodView):
    @blp.response(200, description='{"template_versions": [...]}')
    def get(self) -> Any:
        """List the template versions the server understands."""
        return {"template_versions": services.validation.template_versions()}


@blp.route("/template_versions/<template_version>/functions")
class TemplateFunctions(MethodView):
    @blp.response(200, description='{"template_functions": [...]}')
    def get(self, template_version: str) -> Any:
        """List the intrinsic functions of a version (``with_condition_func`` adds the
        condition functions)."""
        with_cond = flag(request.args, "with_condition_func")
        return {"template_functions": services.validation.template_functions(
            template_version, with_condition_func=with_cond)}
