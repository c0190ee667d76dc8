"""Stacks: create, list, look up, show, delete; the stored template, environment and files.

Routes and answers as heat-api's ``StackController`` (``heat/api/openstack/v1/stacks.py``) and the
api-ref (https://docs.openstack.org/api-ref/orchestration/v1/):

- ``POST /stacks`` → 201, ``Location`` and ``{"stack": {"id", "links"}}``;
- ``GET /stacks`` → ``{"stacks": [...]}`` (+ a ``next`` link when a page is full);
- ``/stacks/{name_or_id}`` (any method) and ``GET /stacks/{name}/{resources|events|template|
  actions|environment|files}`` → 302 to the canonical ``/stacks/{name}/{id}[/sub-path]``;
- ``GET /stacks/{name}/{id}`` → ``{"stack": {...}}``; ``DELETE`` → 204 (``PUT`` / ``PATCH`` and
  their ``/preview``: :mod:`app.api.stack_update`).
"""
from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote

from flask import request
from flask.views import MethodView
from werkzeug.exceptions import MethodNotAllowed
from werkzeug.routing import BaseConverter

from app import auth, config, errors
from app.api import formats
from app.api.all_errors import asked, listing_all
from app.api.blueprint import Blueprint
from app.api.params import MIXED, MULTI, SINGLE, allowed, extract_bool, extract_int, extract_tags, flag
from app.api.schemas import StackCreateBody
from app.api.views_common import (
    collection_links,
    ctx,
    no_content,
    redirect_found,
    services,
    stack_url,
    with_query,
)
from app.services import stack_abandon

blp = Blueprint("stacks", __name__, url_prefix="/v1/<tenant_id>",
                description="Stacks (Heat's StackController).")

# Sub-paths heat-api's router sends to the stack lookup (``stack_lookup_subpath[_post]``).
GET_SUBPATHS = ("resources", "events", "template", "actions", "environment", "files")
POST_SUBPATHS = ("resources", "events", "template", "actions")

LIST_PARAMS = {"limit": SINGLE, "marker": SINGLE, "sort_dir": SINGLE, "sort_keys": MULTI,
               "show_deleted": SINGLE, "show_nested": SINGLE, "show_hidden": SINGLE,
               "with_count": SINGLE, "global_tenant": SINGLE, "tags": SINGLE,
               "tags_any": SINGLE, "not_tags": SINGLE, "not_tags_any": SINGLE}
LIST_BOOLS = ("show_deleted", "show_nested", "show_hidden", "global_tenant")
LIST_TAGS = ("tags", "tags_any", "not_tags", "not_tags_any")
#: one schema instance for every request (a class would be instantiated per request)
CREATE_BODY = StackCreateBody()

# heat-api's filter whitelist: the legacy names plus the stack keys it can filter on.
FILTERS = {key: MIXED for key in (
    "id", "status", "name", "action", "tenant", "username", "owner_id", "stack_name",
    "stack_action", "stack_status", "stack_status_reason", "disable_rollback", "timeout_mins",
    "stack_owner", "parent", "stack_user_project_id")}


def instantiation_args(body: dict[str, Any]) -> dict[str, Any]:
    """Template, files, environment and parameters of a create/validate body, checked as heat-api's
    ``InstantiationData``: a template is required; ``template_url`` is never fetched."""
    template = body.get("template")
    if template is None:
        if body.get("template_url"):
            raise errors.BadRequest(
                "Could not retrieve template: fetching template_url is disabled on this server "
                "(Stoker does not fetch URLs on a request's behalf); send the template itself "
                "in \"template\" (python-heatclient does this for local files).")
        raise errors.BadRequest("No template specified")
    return {"template": template, "files": body.get("files") or {},
            "environment": services.environments.parse_request(body.get("environment")),
            "environment_files": body.get("environment_files"),
            "parameters": body.get("parameters") or {}}


def create_args(body: dict[str, Any]) -> dict[str, Any]:
    """``create_stack``'s keyword arguments from a create body, checked as heat-api does
    (``prepare_args``: timeout and tags first; then stack name; then template)."""
    timeout = body.get("timeout_mins")
    args = {"timeout_mins": None if timeout is None else extract_int("timeout_mins", timeout),
            "tags": extract_tags(body.get("tags")),
            "disable_rollback": extract_bool("disable_rollback", body["disable_rollback"])
            if "disable_rollback" in body else True}
    protect = body.get("termination_protection")
    if protect is not None:
        args["termination_protection"] = extract_bool("termination_protection", protect)
    if body.get("stack_policy") is not None:
        args["stack_policy"] = services.stack_policy.parse_document(body["stack_policy"])
    if not body.get("stack_name"):
        raise errors.BadRequest("No stack name specified")
    return {"stack_name": body["stack_name"], **instantiation_args(body), **args}


def list_args() -> tuple[dict[str, Any], dict[str, Any], bool]:
    """``(query, paging, with_count)`` from ``GET /stacks``'s query string, checked as heat-api's
    ``_index``: what selects stacks (show_deleted, show_nested, show_hidden, global_tenant,
    filters, tags, tags_any, not_tags, not_tags_any), how they are paged and sorted, and
    ``with_count``. :raises errors.BadRequest: a bad boolean, integer or tag (Heat's 400)."""
    args = allowed(request.args, LIST_PARAMS)
    query: dict[str, Any] = {"filters": allowed(request.args, FILTERS) or None,
                             "show_deleted": False}
    for name in LIST_BOOLS:
        if name in args and extract_bool(name, args[name]):
            query[name] = True
    for name in LIST_TAGS:
        if name in args:
            query[name] = extract_tags(args[name])
    paging = {"limit": extract_int("limit", args["limit"]) if "limit" in args else None,
              "marker": args.get("marker"), "sort_keys": args.get("sort_keys"),
              "sort_dir": args.get("sort_dir")}
    with_count = flag(args, "with_count")
    return query, paging, with_count


def lookup(stack_identity: str, path: str | None = None) -> Any:
    """302 to the canonical URL of the stack named (or with the id) ``stack_identity``."""
    stack = services.stacks.lookup_stack(ctx(), stack_identity)
    location = formats.stack_href(stack) + (f"/{path}" if path else "")
    return redirect_found(with_query(location))


class ArnConverter(BaseConverter):
    """``arn:openstack:heat::<tenant>:stacks/<name>/<id>[/<path>]`` (slashes included)."""
    regex = r"arn:.*"
    part_isolating = False
    weight = 50


def arn_location(arn: str) -> str:
    """The canonical URL for a stack ARN (heat's ``HeatIdentifier.from_arn``), no engine call.

    :raises errors.BadRequest: not a stack ARN."""
    match = re.fullmatch(r"arn:openstack:heat::([^:]*):stacks/([^/]+)/([^/]+)(/.*)?", arn)
    if not match:
        raise errors.BadRequest(f'"{arn}" is not a valid ARN')
    tenant, name, stack_id, path = (unquote(p) if p else "" for p in match.groups())
    return stack_url(tenant, name, stack_id) + (path or "")


def _stack(stack_name: str, stack_id: str) -> Any:
    return services.stacks.get_stack(ctx(), stack_name, stack_id)


@blp.route("/stacks")
class Stacks(MethodView):
    @blp.response(200, description="The stacks of the project, Heat's summary form.")
    def get(self) -> Any:
        """List stacks (Heat's ``index`` / ``global_index``; see
        :mod:`app.services.stack_list` for the semantics).

        Query: ``limit``, ``marker`` (a stack id), ``sort_keys`` (repeatable: stack_name,
        stack_status, creation_time, updated_time), ``sort_dir`` (asc|desc), ``show_deleted``,
        ``show_nested``, ``show_hidden``, ``global_tenant`` (every project: admins, 403
        otherwise), ``tags`` / ``tags_any`` / ``not_tags`` / ``not_tags_any`` ("a,b"),
        ``with_count`` (adds ``count``, the number of matching stacks without paging) and
        filters by stack field (``name``, ``status``, ``action``, ``id``, ``stack_name``,
        ``stack_status``...; repeated values mean "any of")."""
        query, paging, with_count = list_args()
        if query.get("global_tenant"):
            auth.check_global_index(ctx(), config.get())
        rows = services.stacks.list_stacks(ctx(), **query, **paging, summary=True)
        admin = ctx().is_admin or bool(query.get("global_tenant"))  # Heat: include_project
        stacks = formats.stack_summaries(rows, admin)
        body: dict[str, Any] = {"stacks": stacks}
        links = collection_links(stacks)
        if links:
            body["links"] = links
        if with_count:
            body["count"] = services.stacks.count_stacks(ctx(), **query)
        return body

    @blp.arguments(CREATE_BODY, error_status_code=400)
    @blp.response(201, description="Created: Location is the stack's URL.")
    def post(self, body: dict[str, Any]) -> Any:
        """Create a stack.

        Body as python-heatclient sends it: ``stack_name``, ``template`` (mapping or text),
        ``files``, ``environment``, ``environment_files``, ``parameters``, ``timeout_mins``,
        ``disable_rollback`` (default true), ``tags`` ("a,b"); Stoker's guards
        ``termination_protection`` (bool) and ``stack_policy`` (:mod:`app.api.guards`). 409
        ``StackExists`` for a live stack of the same name."""
        asked()   # a bad show_all_errors is a 400 before anything else
        adopt = body.get("adopt_stack_data")
        if adopt is not None:  # Heat's stack adopt: the template is the adopt data's
            data = stack_abandon.parse_adopt_data(adopt)
            stack = stack_abandon.adopt_stack(ctx(), data, **create_args(
                {**body, "template": data["template"]}))
        else:
            args = create_args(body)
            try:  # the answer names the stack only: nothing is read back
                stack = SimpleNamespace(id=services.stacks.create_stack_id(ctx(), **args),
                                        name=args["stack_name"], tenant=ctx().tenant_id)
            except errors.TemplateError as exc:
                raise listing_all(exc, exc, instantiation_args(body), strict=True) from None
        created = formats.created_stack(stack)
        return {"stack": created}, 201, {"Location": created["links"][0]["href"]}


@blp.route("/stacks/preview")
class StackPreview(MethodView):
    @blp.arguments(CREATE_BODY, error_status_code=400)
    @blp.response(200, description="The stack and its resources as they would be created.")
    def post(self, body: dict[str, Any]) -> Any:
        """Preview a stack (Heat's ``POST /stacks/preview``): the create body, validated as
        create validates it, answered with the stack and its resources; nothing is created."""
        preview = services.stacks.preview_stack(ctx(), **create_args(body))
        return {"stack": preview}


@blp.route("/stacks/detail")
class StacksDetail(MethodView):
    @blp.response(200, description="The stacks of the project in the show form, no outputs.")
    def get(self) -> Any:
        """List stacks with every field of stack show except outputs (heat-api's ``detail``)."""
        rows = services.stacks.list_stacks(ctx())
        return {"stacks": [formats.stack_detail(row, None) for row in rows]}


@blp.route("/stacks/<stack_name>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
class StackLookup(MethodView):
    """Find a stack by name or id and redirect to its canonical URL (302, Heat's lookup)."""

    @blp.response(302, description="Found: Location is /stacks/{stack_name}/{stack_id}.")
    def get(self, stack_name: str) -> Any:
        """Look up a stack by name (live stacks) or id (also deleted ones)."""
        return lookup(stack_name)

    post = put = patch = delete = get


@blp.route("/stacks/<arn:stack_arn>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
class StackArnLookup(MethodView):
    """Redirect a stack ARN to its canonical URL (302, Heat's lookup of ``{stack_name:arn:.*}``)."""

    @blp.response(302, description="Found: Location is the stack's URL (plus the ARN's path).")
    def get(self, stack_arn: str) -> Any:
        """Look up a stack by ARN."""
        return redirect_found(with_query(arn_location(stack_arn)))

    post = put = patch = delete = get


@blp.route("/stacks/<stack_name>/<stack_id>", methods=["GET", "POST", "DELETE"])
class Stack(MethodView):
    @blp.response(200, description="The stack, with its resolved outputs.")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """Show a stack (``resolve_outputs=false`` leaves the outputs out).

        ``GET /stacks/{name}/{resources|events|template|environment|files|actions}`` is the
        lookup form of those sub-paths and redirects."""
        if stack_id in GET_SUBPATHS:
            return lookup(stack_name, stack_id)
        resolve = flag(request.args, "resolve_outputs", default=True)
        stack = services.stack_reads.shown_stack(ctx(), stack_name, stack_id)
        outputs = None
        if resolve and not (stack.action == "DELETE" and stack.status == "COMPLETE"):
            outputs = services.stacks.stack_outputs(stack)
        return {"stack": formats.stack_detail(stack, outputs)}

    @blp.response(302, description="Lookup form of a POST sub-path.")
    def post(self, stack_name: str, stack_id: str) -> Any:
        """``POST /stacks/{name}/{resources|events|template|actions}`` redirects (lookup)."""
        if stack_id not in POST_SUBPATHS:
            raise MethodNotAllowed(valid_methods=["GET", "PUT", "PATCH", "DELETE"])
        return lookup(stack_name, stack_id)

    @blp.response(204, description="Deletion started (or done).")
    def delete(self, stack_name: str, stack_id: str) -> Any:
        """Delete a stack: 204 with an empty body; the stack goes DELETE_IN_PROGRESS, then
        leaves the list when DELETE_COMPLETE (still readable by id)."""
        services.stacks.delete_stack(ctx(), stack_name, stack_id)
        return no_content()


@blp.route("/stacks/<stack_name>/<stack_id>/template")
class StackTemplate(MethodView):
    @blp.response(200, description="The template as it was sent (a mapping).")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's template."""
        return services.stacks.get_template(ctx(), _stack(stack_name, stack_id))


@blp.route("/stacks/<stack_name>/<stack_id>/environment")
class StackEnvironment(MethodView):
    @blp.response(200, description="parameters, parameter_defaults, resource_registry, "
                                   "event_sinks, encrypted_param_names.")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's merged environment."""
        return services.stacks.get_environment(ctx(), _stack(stack_name, stack_id))


@blp.route("/stacks/<stack_name>/<stack_id>/files")
class StackFiles(MethodView):
    @blp.response(200, description="The files map: {name: content}.")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The files sent with the stack."""
        return services.stacks.get_files(ctx(), _stack(stack_name, stack_id))
