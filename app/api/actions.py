"""Stack actions, as heat-api's ``ActionController`` (``heat/api/openstack/v1/actions.py``).

``POST /v1/{tenant}/stacks/{name}/{id}/actions`` with a body of exactly one action:
``{"suspend": null}``, ``{"resume": null}``, ``{"check": null}``, ``{"cancel_update": null}``,
``{"cancel_without_rollback": null}``, or Stoker's ``{"retry": null}`` / ``{"rollback": null}``
for a CREATE_FAILED or UPDATE_FAILED stack and ``{"continue_rollback": null |
{"resources_to_skip": [...]}}`` for a ROLLBACK_FAILED one (:mod:`app.services.recovery`) → 200 with the JSON body ``null``: heat-api's handler
returns nothing and its serializer writes that (real Heat 27.0.1 answers so, though the api-ref
documents 202; heatclient accepts either). Errors: 400 ``HTTPBadRequest`` "No action specified", "Multiple actions specified",
"Invalid action <x> specified", a Stoker action's unknown key; 404 unknown stack; 409 ``ActionInProgress``; 400
``NotSupported`` for a cancel with no update in progress (:mod:`app.services.stack_actions`).
In keystone mode the action's own rule (``actions:suspend``...) is enforced too, as Heat's
``registered_identified_stack`` does for each handler.
"""
from __future__ import annotations

from typing import Any

from flask import current_app, request
from flask.views import MethodView

from app import auth, errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.views_common import ctx
from app.services import recovery, stack_actions

blp = Blueprint("actions", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Stack actions (Heat's ActionController).")


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True) if is_json_body(request) else None
    if body is not None and not isinstance(body, dict):
        raise errors.BadRequest("The server could not comply with the request since it is "
                                "either malformed or otherwise incorrect.")
    return body or {}


def _enforce(action: str) -> None:
    """The handler's own policy rule (``actions:<action>``), keystone mode only."""
    settings = current_app.config["STOKER_SETTINGS"]
    if not auth.keystone_mode(settings):
        return
    from app.auth import keystone, policy
    c = ctx()
    target = c.project_id if c.is_admin and c.project_id else c.tenant_id
    policy.enforce(settings, f"actions:{action}", keystone.creds_of(c), target)


@blp.route("/actions")
class Actions(MethodView):
    @blp.response(200, description="The JSON body null: the action was accepted.")
    def post(self, stack_name: str, stack_id: str) -> Any:
        """Suspend, resume, check, cancel_update or cancel_without_rollback the stack."""
        body = _body()
        if len(body) < 1:
            raise errors.BadRequest("No action specified")
        if len(body) > 1:
            raise errors.BadRequest("Multiple actions specified")
        action = next(iter(body))
        if action not in stack_actions.ACTIONS + recovery.ACTIONS:
            raise errors.BadRequest(f"Invalid action {action} specified")
        _enforce(action)
        if action in recovery.ACTIONS:
            recovery.act(ctx(), stack_name, stack_id, action, body[action])
        else:
            stack_actions.act(ctx(), stack_name, stack_id, action)
        return current_app.response_class("null", status=200, mimetype="application/json")
