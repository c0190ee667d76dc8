"""Software configs and deployments (heat-api's ``SoftwareConfigController`` and
``SoftwareDeploymentController``, heat/api/openstack/v1/software_{configs,deployments}.py).

More in docs/code/api.md (app.api.software).
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.params import extract_bool, extract_int
from app.api.views_common import ctx, no_content
from app.services import software

blp = Blueprint("software", __name__, url_prefix="/v1/<tenant_id>",
                description="Software configs and deployments.")


def _body() -> dict[str, Any]:
    """The JSON object of the request. :raises errors.BadRequest: none, or not an object."""
    body = request.get_json(silent=True) if is_json_body(request) else None
    if not isinstance(body, dict):
        raise errors.BadRequest("The request body must be a JSON object.")
    return body


@blp.route("/software_configs")
class Configs(MethodView):
    @blp.response(200, description='{"software_configs": [{"id", "name", "group", '
                                   '"creation_time"}]}')
    def get(self) -> Any:
        """List the project's software configs (``limit``, ``marker``)."""
        args = request.args
        if "global_tenant" in args:
            extract_bool("global_tenant", args["global_tenant"])
        limit = extract_int("limit", args["limit"]) if "limit" in args else None
        return {"software_configs": software.list_configs(ctx(), limit, args.get("marker"))}

    @blp.response(200, description='{"software_config": {...}}')
    def post(self) -> Any:
        """Create a software config."""
        return {"software_config": software.create_config(ctx(), _body())}


@blp.route("/software_configs/<config_id>")
class Config(MethodView):
    @blp.response(200, description='{"software_config": {...}}')
    def get(self, config_id: str) -> Any:
        """Show a software config."""
        return {"software_config": software.show_config(ctx(), config_id)}

    @blp.response(204, description="Deleted.")
    def delete(self, config_id: str) -> Any:
        """Delete a software config."""
        software.delete_config(ctx(), config_id)
        return no_content()


@blp.route("/software_deployments")
class Deployments(MethodView):
    @blp.response(200, description='{"software_deployments": [...]}')
    def get(self) -> Any:
        """List the project's deployments (``server_id``)."""
        return {"software_deployments": software.list_deployments(
            ctx(), request.args.get("server_id"))}

    @blp.response(200, description='{"software_deployment": {...}}')
    def post(self) -> Any:
        """Create a deployment."""
        return {"software_deployment": software.create_deployment(ctx(), _body())}


@blp.route("/software_deployments/metadata/<server_id>")
class Metadata(MethodView):
    @blp.response(200, description='{"metadata": [...]}')
    def get(self, server_id: str) -> Any:
        """The configs deployed to a server, sorted by name."""
        return {"metadata": software.metadata(ctx(), server_id)}


@blp.route("/software_deployments/<deployment_id>")
class Deployment(MethodView):
    @blp.response(200, description='{"software_deployment": {...}}')
    def get(self, deployment_id: str) -> Any:
        """Show a deployment."""
        return {"software_deployment": software.show_deployment(ctx(), deployment_id)}

    @blp.response(200, description='{"software_deployment": {...}}')
    def put(self, deployment_id: str) -> Any:
        """Update a deployment (a server's signal of its status and outputs)."""
        return {"software_deployment": software.update_deployment(ctx(), deployment_id,
                                                                  _body())}

    @blp.response(204, description="Deleted.")
    def delete(self, deployment_id: str) -> Any:
        """Delete a deployment."""
        software.delete_deployment(ctx(), deployment_id)
        return no_content()
