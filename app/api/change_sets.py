"""Change sets (Stoker's, in Heat's URL and JSON style; CloudFormation's change sets):

- ``POST /v1/{tenant}/stacks/{name}/{id}/change_sets``: an update body (``"existing": true``
  for PATCH semantics) plus ``"name"``, ``"description"`` → 201 ``{"change_set": {...}}``;
- ``GET .../change_sets`` → ``{"change_sets": [...]}``; ``GET|DELETE
  .../change_sets/{name or id}``; ``POST .../change_sets/{name or id}/execute``
  (``{"disable_rollback": b}`` optional) → 202: the update to exactly the planned request;
- ``POST /v1/{tenant}/change_sets``: a create body plus ``"name"`` → 201, a CREATE change set
  (the new stack is kept REVIEW_IN_PROGRESS until executed).

Shapes and errors (404 ``ChangeSetNotFound``, 400 ``InvalidChangeSetStatus``, 409
``AlreadyExistsException``): :mod:`app.services.change_sets`.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from marshmallow import Schema, fields

from app import errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.params import extract_bool, flag
from app.api.schemas import StackCreateBody
from app.api.stack_update import StackUpdateBody, accepted, update_args
from app.api.stacks import create_args
from app.api.views_common import ctx, json_response, no_content
from app.services import change_sets

blp = Blueprint("change_sets", __name__,
                url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Change sets: updates planned ahead, executed as planned.")
new_blp = Blueprint("create_change_sets", __name__, url_prefix="/v1/<tenant_id>",
                    description="CREATE change sets: a new stack planned ahead.")


class _Named(Schema):
    name = fields.Raw(allow_none=True, metadata={
        "description": "The change set's name: a letter, then letters, digits and hyphens "
                       "(at most 128)."})
    description = fields.String(allow_none=True, metadata={
        "description": "At most 1024 characters."})


class ChangeSetBody(_Named, StackUpdateBody):
    """``POST .../stacks/{name}/{id}/change_sets``: an update body (checked as the stack
    PUT/PATCH body is) with the change set's name and description."""


class NewStackChangeSetBody(_Named, StackCreateBody):
    """``POST /v1/{tenant_id}/change_sets``: a create body (checked as the stack POST body
    is) with the change set's name and description."""


#: one schema instance for every request each (a class would be instantiated per request)
CHANGE_SET_BODY, NEW_STACK_CHANGE_SET_BODY = ChangeSetBody(), NewStackChangeSetBody()


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True) if is_json_body(request) else None
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise errors.BadRequest("The request body must be a JSON object.")
    return body


def _named(body: dict[str, Any]) -> tuple[Any, str]:
    return body.pop("name", None), body.pop("description", None) or ""


@new_blp.route("/change_sets")
class NewStackChangeSets(MethodView):
    @new_blp.arguments(NEW_STACK_CHANGE_SET_BODY, error_status_code=400)
    @new_blp.response(201, description='{"change_set": {..., "stack_id", "changes": [...]}}')
    def post(self, body: dict[str, Any]) -> Any:
        """Plan a new stack (a create body) as a CREATE change set; the stack is kept
        REVIEW_IN_PROGRESS, with no resource made, until the change set is executed."""
        name, description = _named(body)
        made = change_sets.create_stack_change_set(ctx(), body.get("stack_name"), name,
                                                   description, **_create_kwargs(body))
        return json_response({"change_set": made}, 201)


def _create_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    args = create_args(body)
    args.pop("stack_name")
    return args


@blp.route("/change_sets")
class ChangeSets(MethodView):
    @blp.response(200, description='{"change_sets": [{"id", "name", "status", '
                                   '"execution_status", ...}]}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's change sets, oldest first."""
        return {"change_sets": change_sets.list_change_sets(ctx(), stack_name, stack_id)}

    @blp.arguments(CHANGE_SET_BODY, error_status_code=400)
    @blp.response(201, description='{"change_set": {..., "changes": [...]}}')
    def post(self, body: dict[str, Any], stack_name: str, stack_id: str) -> Any:
        """Plan an update of the stack and keep it as a change set (nothing else changes).
        A change set is executed under the stack's own policy, as CloudFormation's
        ExecuteChangeSet is: ``stack_policy_during_update`` is refused (400)."""
        if body.get("stack_policy_during_update") is not None:
            raise errors.BadRequest("A change set takes no stack_policy_during_update: it is "
                                    "executed under the stack's own policy.")
        name, description = _named(body)
        existing = flag(body, "existing")
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
