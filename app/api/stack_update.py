"""Stack update and update preview, as heat-api's ``StackController.update``, ``update_patch``,
``preview_update`` and ``preview_update_patch`` (``heat/api/openstack/v1/stacks.py``) and the
api-ref (https://docs.openstack.org/api-ref/orchestration/v1/).

More in docs/code/api.md (app.api.stack_update).
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from marshmallow import fields

from app import errors
from app.api.all_errors import asked, listing_all
from app.api.blueprint import Blueprint
from app.api.params import SINGLE, allowed, extract_bool, extract_int, extract_tags, flag
from app.api.schemas import StackCreateBody
from app.api.stacks import instantiation_args
from app.api.views_common import ctx, isotime, json_response, services

blp = Blueprint("stack_update", __name__, url_prefix="/v1/<tenant_id>",
                description="Stack update and update preview (Heat's StackController).")

# webob's HTTPAccepted rendered for ``Accept: application/json`` (what heatclient sends).
ACCEPTED = {"message": "The request is accepted for processing.<br /><br />\n\n\n",
            "code": "202 Accepted", "title": "Accepted"}
CHANGE_KINDS = ("added", "deleted", "replaced", "unchanged", "updated")


class StackUpdateBody(StackCreateBody):
    """``PUT|PATCH /v1/{tenant_id}/stacks/{stack_name}/{stack_id}[/preview]`` (``stack_name``
    in the body is ignored, as heat-api ignores it)."""
    clear_parameters = fields.Raw(allow_none=True, metadata={
        "description": "PATCH: names of parameters to drop from the kept ones (their "
                       "template defaults apply)."})
    existing = fields.Raw(allow_none=True, metadata={
        "description": "true: PATCH semantics on a PUT (Heat's `existing` argument)."})
    converge = fields.Raw(allow_none=True, metadata={
        "description": "Accepted and ignored (Heat's observe-reality update)."})
    stack_policy_during_update = fields.Raw(allow_none=True, metadata={
        "description": "Stoker's: a stack policy document used for this update instead of "
                       "the stack's (CloudFormation's StackPolicyDuringUpdateBody)."})


#: one schema instance for every request (a class would be instantiated per request)
UPDATE_BODY = StackUpdateBody()


def update_args(body: dict[str, Any], patch: bool) -> dict[str, Any]:
    """``update_stack``'s keyword arguments from a body, checked as heat-api does
    (``InstantiationData(body, patch)``, ``prepare_args(is_update=True)``, the engine's
    ``extract_args``): a PUT needs a template; ``timeout_mins`` 0 or absent keeps the stack's;
    ``existing``, ``disable_rollback`` and ``converge``, when present, must be booleans (a
    PATCH is ``existing`` whatever it says, as heat-api sets it); ``tags`` as for
    create (a PATCH without tags keeps the stack's)."""
    template = body.get("template")
    if template is None and body.get("template_url"):
        raise errors.BadRequest(
            "Could not retrieve template: fetching template_url is disabled on this server "
            "(Stoker does not fetch URLs on a request's behalf); send the template itself "
            "in \"template\" (python-heatclient does this for local files).")
    if template is None and not patch:
        raise errors.BadRequest("No template specified")
    timeout = body.get("timeout_mins")
    timeout = None if timeout is None else extract_int("timeout_mins", timeout)
    args: dict[str, Any] = {
        "template": template, "files": body.get("files") or {},
        "environment": services.environments.parse_request(body.get("environment")),
        "environment_files": body.get("environment_files"),
        "parameters": body.get("parameters") or {},
        "timeout_mins": timeout or None,
        "tags": extract_tags(body.get("tags")) or None,
        "existing": True if patch else flag(body, "existing"),
    }
    if "disable_rollback" in body:
        args["disable_rollback"] = extract_bool("disable_rollback", body["disable_rollback"])
    if "converge" in body:
        extract_bool("converge", body["converge"])
    clear = body.get("clear_parameters")
    if clear is not None:
        if not isinstance(clear, list) or not all(isinstance(p, str) for p in clear):
            raise errors.BadRequest("clear_parameters must be a list of parameter names.")
        args["clear_parameters"] = clear
    return args


def accepted() -> Any:
    """``202 Accepted`` with webob's JSON body, as heat-api's ``raise exc.HTTPAccepted()``."""
    return json_response(ACCEPTED, 202)


def change_entry(c: Any) -> dict[str, Any]:
    """A preview entry in Heat's engine form (``heat.engine.api.format_stack_resource``):
    ``resource_action`` and ``resource_status`` apart, identities as ``{tenant, stack_name,
    stack_id, path}``, no links."""
    stack_identity = {"tenant": c.tenant, "stack_name": c.stack_name, "stack_id": c.stack_id,
                      "path": ""}
    body: dict[str, Any] = {
        "resource_name": c.name,
        "resource_identity": {**stack_identity, "path": f"/resources/{c.name}"},
        "stack_identity": stack_identity,
        "stack_name": c.stack_name,
        "resource_type": c.type,
        "resource_action": c.action,
        "resource_status": c.status,
        "resource_status_reason": c.status_reason,
        "physical_resource_id": c.physical_resource_id or "",
        "creation_time": isotime(c.created_at),
        "updated_time": isotime(c.updated_at or c.created_at),
        "required_by": list(c.required_by),
    }
    if c.nested_stack:
        body["nested_stack_id"] = {"tenant": c.tenant, "stack_name": c.nested_stack[0],
                                   "stack_id": c.nested_stack[1], "path": ""}
    if c.parent_resource:
        body["parent_resource"] = c.parent_resource
    body.update(description=c.description, metadata=c.metadata, attributes=c.attributes)
    return body


def _update(body: dict[str, Any], stack_name: str, stack_id: str, patch: bool) -> Any:
    """Start the update behind the stack policy (409 ``UpdateDeniedByStackPolicy`` when it
    refuses a resource action: :mod:`app.services.stack_policy`)."""
    asked()   # a bad show_all_errors is a 400 before anything else
    services.stack_policy.update_stack(
        ctx(), stack_name, stack_id,
        stack_policy_during_update=body.get("stack_policy_during_update"),
        **update_args(body, patch))
    return accepted()


def _preview(body: dict[str, Any], stack_name: str, stack_id: str, patch: bool) -> Any:
    query = allowed(request.args, {"show_nested": SINGLE})
    show_nested = flag(query, "show_nested")
    changes = services.update_preview.preview_update(
        ctx(), stack_name, stack_id, show_nested=show_nested, **update_args(body, patch))
    return {"resource_changes": {k: [change_entry(c) for c in changes[k]]
                                 for k in CHANGE_KINDS}}


@blp.route("/stacks/<stack_name>/<stack_id>", methods=["PUT", "PATCH"])
class StackUpdate(MethodView):
    @blp.arguments(UPDATE_BODY, error_status_code=400)
    @blp.response(202, description="Accepted: the update has started (webob's body).")
    def put(self, body: dict[str, Any], stack_name: str, stack_id: str) -> Any:
        """Update a stack with a new template (Heat's ``update``).

        Body as python-heatclient sends it: ``template`` (required), ``files``,
        ``environment``, ``environment_files``, ``parameters``, ``timeout_mins``,
        ``disable_rollback``, ``tags``. What is not sent is not kept, but for ``timeout_mins``
        and ``disable_rollback``. 409 while another action is in progress."""
        try:
            return _update(body, stack_name, stack_id, patch=False)
        except errors.TemplateError as exc:
            if body.get("template") is None:
                raise
            raise listing_all(exc, exc, instantiation_args(body), strict=True) from None

    @blp.arguments(UPDATE_BODY, error_status_code=400)
    @blp.response(202, description="Accepted: the update has started (webob's body).")
    def patch(self, body: dict[str, Any], stack_name: str, stack_id: str) -> Any:
        """Update a stack keeping what is not sent (Heat's ``update_patch``, ``existing``):
        the template may be left out; parameters are merged over the stack's, less
        ``clear_parameters``; tags, timeout and rollback are kept unless sent."""
        return _update(body, stack_name, stack_id, patch=True)


@blp.route("/stacks/<stack_name>/<stack_id>/preview", methods=["PUT", "PATCH"])
class StackUpdatePreview(MethodView):
    @blp.arguments(UPDATE_BODY, error_status_code=400)
    @blp.response(200, description="resource_changes: added, deleted, replaced, unchanged, "
                                   "updated.")
    def put(self, body: dict[str, Any], stack_name: str, stack_id: str) -> Any:
        """Preview an update (Heat's ``preview_update``): the PUT body, checked as an update;
        ``show_nested=true`` lists the resources of nested stacks too. Nothing is written."""
        return _preview(body, stack_name, stack_id, patch=False)

    @blp.arguments(UPDATE_BODY, error_status_code=400)
    @blp.response(200, description="resource_changes: added, deleted, replaced, unchanged, "
                                   "updated.")
    def patch(self, body: dict[str, Any], stack_name: str, stack_id: str) -> Any:
        """Preview a PATCH update (Heat's ``preview_update_patch``)."""
        return _preview(body, stack_name, stack_id, patch=True)
