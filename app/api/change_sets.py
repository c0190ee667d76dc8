"""Change sets of a stack (Stoker's, in Heat's URL and JSON style; CloudFormation's change sets):

- ``POST /v1/{tenant}/stacks/{name}/{id}/change_sets`` with an update body (as ``PUT``, or
  ``"existing": true`` for ``PATCH`` semantics) plus ``"name"`` and ``"description"`` → 201
  ``{"change_set": {...}}`` with its ``changes``;
- ``GET .../change_sets`` → ``{"change_sets": [...]}`` (without changes);
- ``GET .../change_sets/{name or id}`` → ``{"change_set": {...}}``;
- ``DELETE .../change_sets/{name or id}`` → 204;
- ``POST .../change_sets/{name or id}/execute`` (body optional: ``{"disable_rollback": b}``)
  → 202 (webob's ``HTTPAccepted`` body): the stack's update to exactly the planned request.

Shapes and errors (404 ``ChangeSetNotFound``, 400 ``InvalidChangeSetStatus``, 409
``AlreadyExistsException``): :mod:`app.services.change_sets`.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.params import extract_bool
from app.api.stack_update import accepted, update_args
from app.api.views_common import ctx, json_response, no_content
from app.services import change_sets

blp = Blueprint("change_sets", __name__,
                url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Change sets: updates planned ahead, executed as planned.")


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True) if is_json_body(request) else None
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise errors.BadRequest("The request body must be a JSON object.")
    return body


@blp.route("/change_sets")
class ChangeSets(MethodView):
    @blp.response(200, description='{"change_sets": [{"id", "name", "status", '
                                   '"execution_status", ...}]}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's change sets, oldest first."""
        return {"change_sets": change_sets.list_change_sets(ctx(), stack_name, stack_id)}

    @blp.response(201, description='{"change_set": {..., "changes": [...]}}')
    def post(self, stack_name: str, stack_id: str) -> Any:
        """Plan an update of the stack and keep it as a change set (nothing else changes)."""
        body = _body()
        name, description = body.pop("name", None), body.pop("description", None) or ""
        if not isinstance(description, str):
            raise errors.BadRequest("description must be a string.")
        existing = bool(body.get("existing"))
        args = update_args(body, patch=existing)
        made = change_sets.create_change_set(ctx(), stack_name, stack_id, name, description,
                                             **args)
        return json_response({"change_set": made}, 201)


@blp.route("/change_sets/<change_set>")
class ChangeSetView(MethodView):
    @blp.response(200, description='{"change_set": {...}}')
    def get(self, stack_name: str, stack_id: str, change_set: str) -> Any:
        """One change set with its changes."""
        return {"change_set": change_sets.show_change_set(ctx(), stack_name, stack_id,
                                                          change_set)}

    @blp.response(204, description="Deleted.")
    def delete(self, stack_name: str, stack_id: str, change_set: str) -> Any:
        """Forget a change set."""
        change_sets.delete_change_set(ctx(), stack_name, stack_id, change_set)
        return no_content()


@blp.route("/change_sets/<change_set>/execute")
class Execute(MethodView):
    @blp.response(202, description="Accepted: the update to the planned request started.")
    def post(self, stack_name: str, stack_id: str, change_set: str) -> Any:
        """Execute the change set; refused (400) if the stack changed since it was made."""
        body = _body()
        rollback = body.get("disable_rollback")
        flag = None if rollback is None else extract_bool("disable_rollback", rollback)
        change_sets.execute_change_set(ctx(), stack_name, stack_id, change_set, flag)
        return accepted()
