"""Events of a stack and of its resources (heat-api's ``EventController``).

More in docs/code/api.md (app.api.events).
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api import formats
from app.api.blueprint import Blueprint
from app.api.params import MIXED, MULTI, SINGLE, allowed, extract_int
from app.api.views_common import ctx, link, services

blp = Blueprint("events", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Events.")

PARAMS = {"limit": SINGLE, "marker": SINGLE, "sort_dir": SINGLE, "sort_keys": MULTI,
          "nested_depth": SINGLE}
#: Heat's event sort keys (heat/db/api.py ``_events_filter_and_page_query``); others are ignored
SORT_KEYS = ("event_time", "resource_type")
FILTERS = {key: MIXED for key in ("resource_status", "resource_action", "resource_name",
                                  "resource_type")}


def _list(stack_name: str, stack_id: str, resource_name: str | None) -> dict[str, Any]:
    args = allowed(request.args, PARAMS)
    kwargs: dict[str, Any] = {"filters": allowed(request.args, FILTERS) or None}
    if "limit" in args:
        kwargs["limit"] = extract_int("limit", args["limit"])
    if "marker" in args:
        kwargs["marker"] = args["marker"]
    depth = extract_int("nested_depth", args["nested_depth"]) if "nested_depth" in args else 0
    if depth:
        kwargs["nested_depth"] = depth
    keys = [k for k in args.get("sort_keys") or () if k in SORT_KEYS]
    # heat's event query (_events_paginate_query): no sort key → event_time, newest first
    # unless sort_dir says otherwise; given keys without sort_dir → ascending (oslo.db)
    kwargs["sort_dir"] = args.get("sort_dir", "asc" if keys else "desc")
    if "resource_type" in keys:
        stack = services.stack_reads.stack_ref(ctx(), stack_name, stack_id)
        rows = _sorted_page(stack, resource_name, keys, kwargs)
    else:  # event_time is the order the events were written in
        stack, rows = services.resources.stack_events(ctx(), stack_name, stack_id, resource_name,
                                                      **kwargs)
    if not rows and resource_name is not None:
        raise errors.NotFound("Resource", resource_name, heat_type="HTTPNotFound",
                              message=f"No events found for resource {resource_name}")
    href = formats.stack_href(stack)
    return {"events": [_event(stack, href, row, root=bool(depth)) for row in rows]}


def _sorted_page(stack: Any, resource_name: str | None, keys: list[str],
                 kwargs: dict[str, Any]) -> list[Any]:
    """The events sorted by ``keys`` (``resource_type`` among them; ``event_time`` is the order
    written; ties by that order), then paged by marker (an event id; unknown: 404 as the other
    orders) and limit. O(events of the stacks in scope), as the service's own listing."""
    limit, marker = kwargs.pop("limit", None), kwargs.pop("marker", None)
    desc = str(kwargs["sort_dir"]).lower() == "desc"
    rows = services.resources.list_events(ctx(), stack, resource_name,
                                          **{**kwargs, "sort_dir": "asc"})
    order = {id(row): i for i, row in enumerate(rows)}

    def key(row: Any) -> tuple[Any, ...]:
        return tuple((row.resource_type or "") if k == "resource_type" else order[id(row)]
                     for k in keys) + (order[id(row)],)
    rows.sort(key=key, reverse=desc)
    if marker:
        uuids = [row.uuid for row in rows]
        if marker not in uuids:
            raise errors.NotFound("Event", marker)
        rows = rows[uuids.index(marker) + 1:]
    return rows if limit is None else rows[:limit]


def _event(stack: Any, href: str, row: Any, root: bool) -> dict[str, Any]:
    """A listed event of ``stack`` (at ``href``); a nested stack's (its row carries
    ``stack_name``) links into that stack, and ``root`` adds the ``root_stack`` link (Heat's
    ``format_event`` with a root identity)."""
    if getattr(row, "stack_name", None):
        owner = SimpleNamespace(tenant=stack.tenant, name=row.stack_name, id=row.stack_id)
        body = formats.event(owner, row)
    else:
        body = formats.event(stack, row, href=href)
    if root:
        body["links"].append(link(href, "root_stack"))
    return body


@blp.route("/events")
class StackEvents(MethodView):
    @blp.response(200, description='{"events": [...]}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """List the events of a stack and its resources."""
        return _list(stack_name, stack_id, None)


@blp.route("/resources/<resource_name>/events")
class ResourceEvents(MethodView):
    @blp.response(200, description='{"events": [...]}')
    def get(self, stack_name: str, stack_id: str, resource_name: str) -> Any:
        """List the events of one resource."""
        return _list(stack_name, stack_id, resource_name)


@blp.route("/resources/<resource_name>/events/<event_id>")
class Event(MethodView):
    @blp.response(200, description='{"event": {...}}')
    def get(self, stack_name: str, stack_id: str, resource_name: str, event_id: str) -> Any:
        """Show one event."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        try:
            row = services.resources.get_event(ctx(), stack, resource_name, event_id)
        except errors.NotFound as exc:
            if exc.data.get("entity") == "Stack":
                raise
            raise errors.NotFound("Event", event_id, heat_type="HTTPNotFound",
                                  message=f"No event {event_id} found") from exc
        return {"event": formats.event(stack, row, detail=True)}
