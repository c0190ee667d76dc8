"""Mark a resource unhealthy, as heat-api's ``ResourceController.mark_unhealthy``
(``heat/api/openstack/v1/resources.py``).

``PATCH /v1/{tenant}/stacks/{name}/{id}/resources/{resource_name}`` with
``{"mark_unhealthy": true, "resource_status_reason": "..."}`` → 200 with the JSON body ``null``
(heat-api's handler returns nothing). The resource may be named by its physical id. Errors:
400 ``HTTPBadRequest`` "Invalid keys in resource mark unhealthy {'x'}", "Missing mandatory
(mark_unhealthy) key from mark unhealthy request", a value that is not a boolean; 404 unknown
stack or resource (``ResourceNotFound``); 409 ``ActionInProgress``
(:mod:`app.services.resource_health`). ``GET`` on the same path is :mod:`app.api.resources`.
"""
from __future__ import annotations

from typing import Any

from flask import current_app, request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.params import extract_bool
from app.api.views_common import ctx
from app.services import resource_health

blp = Blueprint("resource_health", __name__,
                url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Resource health (Heat's mark_unhealthy).")
KEYS = ("mark_unhealthy", "resource_status_reason")


@blp.route("/resources/<resource_name>", methods=["PATCH"])
class ResourceHealth(MethodView):
    @blp.response(200, description="The JSON body null.")
    def patch(self, stack_name: str, stack_id: str, resource_name: str) -> Any:
        """Mark the resource unhealthy (CHECK_FAILED) or healthy again."""
        body = request.get_json(silent=True) if is_json_body(request) else None
        if not isinstance(body, dict):
            raise errors.BadRequest("The server could not comply with the request since it is "
                                    "either malformed or otherwise incorrect.")
        invalid = set(body) - set(KEYS)
        if invalid:
            raise errors.BadRequest(f"Invalid keys in resource mark unhealthy {invalid}")
        if "mark_unhealthy" not in body:
            raise errors.BadRequest("Missing mandatory (mark_unhealthy) key from mark unhealthy "
                                    "request")
        mark = extract_bool("mark_unhealthy", body["mark_unhealthy"])
        resource_health.mark_unhealthy(ctx(), stack_name, stack_id, resource_name, mark,
                                       body.get("resource_status_reason") or "")
        return current_app.response_class("null", status=200, mimetype="application/json")
