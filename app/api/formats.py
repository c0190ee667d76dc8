"""Rows of app.models rendered as Heat's JSON objects (``heat/engine/api.py`` ``format_*`` plus
the API's views: ``stacks_view``, ``resources.format_resource``, ``events.format_event``).

Status and action are joined into Heat's ``stack_status`` / ``resource_status``
(``CREATE_COMPLETE``); ``logical_resource_id`` repeats ``resource_name``; times use
:func:`views_common.isotime`.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.api.views_common import api_root, isotime, link, quoted, resource_url, stack_url


def stack_href(stack: Any) -> str:
    return stack_url(stack.tenant, stack.name, stack.id)


def _stack_common(stack: Any, href: str) -> dict[str, Any]:
    return {
        "id": stack.id,
        "links": [{"href": href, "rel": "self"}],
        "stack_name": stack.name,
        "description": stack.description or "",
        "stack_status": f"{stack.action}_{stack.status}",
        "stack_status_reason": stack.status_reason or "",
        "creation_time": isotime(stack.created_at),
        "updated_time": isotime(stack.updated_at),
        "deletion_time": isotime(stack.deleted_at),
        "stack_owner": stack.username,
        "parent": stack.parent_id,
        "stack_user_project_id": stack.tenant,
    }


def stack_summaries(rows: Iterable[Any], include_project: bool) -> list[dict[str, Any]]:
    """The entries of ``GET /stacks`` (:func:`stack_summary` of each row), the API's root
    worked out once for the page."""
    root = api_root()
    return [stack_summary(row, include_project,
                          f"{root}/{quoted(row.tenant)}/stacks/{quoted(row.name)}/{quoted(row.id)}")
            for row in rows]


def stack_summary(stack: Any, include_project: bool, href: str | None = None) -> dict[str, Any]:
    """One entry of ``GET /stacks`` (Heat's ``stacks_view.basic_keys``); ``project`` only for
    admin contexts; ``tags`` is ``null`` when the stack has none. ``description`` is ``""``:
    heat-api lists stacks without loading their templates (see api-samples/stack_list.txt).
    ``href``: the stack's URL, when the caller knows it."""
    body = _stack_common(stack, href or stack_href(stack))
    body["description"] = ""
    body["tags"] = list(stack.tags) if stack.tags else None
    if include_project:
        body["project"] = stack.tenant
    return body


def stack_detail(stack: Any, outputs: list[dict[str, Any]] | None) -> dict[str, Any]:
    """``GET /stacks/{name}/{id}``'s ``stack``. ``outputs`` is left out when ``None`` (Heat
    omits it for ``resolve_outputs=false`` and for ``DELETE_COMPLETE`` stacks)."""
    body = _stack_common(stack, stack_href(stack))
    body.update({
        "notification_topics": [],
        "parameters": dict(stack.parameters_show or {}),
        "template_description": stack.description or "",
        "capabilities": [],
        "disable_rollback": bool(stack.disable_rollback),
        "timeout_mins": stack.timeout_mins,
        "tags": list(stack.tags) if stack.tags else [],
    })
    if outputs is not None:
        body["outputs"] = outputs
    return body


def created_stack(stack: Any) -> dict[str, Any]:
    """``POST /stacks``'s ``stack``: ``{"id", "links"}``."""
    return {"id": stack.id, "links": [link(stack_href(stack))]}


def output_summary(output: dict[str, Any]) -> dict[str, Any]:
    """An entry of ``GET .../outputs``: key and description, no value."""
    return {"output_key": output["output_key"], "description": output.get("description")}


def output_detail(output: dict[str, Any]) -> dict[str, Any]:
    """``GET .../outputs/{key}``: key, description, value, and ``output_error`` when present."""
    body = {"output_key": output["output_key"], "description": output.get("description"),
            "output_value": output.get("output_value")}
    if output.get("output_error"):
        body["output_error"] = output["output_error"]
    return body


def resource(stack: Any, row: Any, required_by: Iterable[str], *,
             attributes: dict[str, Any] | None = None, detail: bool = False) -> dict[str, Any]:
    """A resource as ``GET .../resources[/{name}]`` shows it. ``updated_time`` falls back to the
    creation time and ``physical_resource_id`` to ``""`` (Heat's ``format_stack_resource``);
    ``detail`` adds ``description`` and ``attributes``. A resource of a nested stack (the row
    carries ``stack_name`` / ``stack_id`` / ``parent_resource``) links to its own stack."""
    owner_name = getattr(row, "stack_name", None) or stack.name
    owner_id = getattr(row, "stack_id", None) or stack.id
    href = stack_url(stack.tenant, owner_name, owner_id)
    created = isotime(row.created_at)
    links = [link(resource_url(href, row.name)), link(href, "stack")]
    nested = getattr(row, "nested_stack", None)
    if nested:
        links.append(link(stack_url(stack.tenant, nested[0], nested[1]), "nested"))
    body: dict[str, Any] = {
        "resource_name": row.name,
        "logical_resource_id": row.name,
        "physical_resource_id": row.physical_resource_id or "",
        "resource_type": row.type,
        "resource_status": f"{row.action}_{row.status}",
        "resource_status_reason": row.status_reason or "",
        "creation_time": created,
        "updated_time": isotime(row.updated_at) or created,
        "links": links,
        "required_by": list(required_by),
    }
    parent = getattr(row, "parent_resource", None)
    if parent:
        body["parent_resource"] = parent
    if detail:
        body["description"] = getattr(row, "description", None) or ""
        body["attributes"] = attributes if attributes is not None else {}
    return body


def event(stack: Any, row: Any, detail: bool = False, href: str | None = None
          ) -> dict[str, Any]:
    """An event as ``GET .../events`` lists it (Heat's ``summary_keys``); ``detail`` (event show)
    adds ``resource_type`` and ``resource_properties``. Links: self, resource, stack; ``href``:
    the stack's URL, when the caller knows it."""
    href = href or stack_href(stack)
    resource_href = f"{href}/resources/{quoted(row.resource_name)}"
    body: dict[str, Any] = {
        "id": row.uuid,
        "links": [{"href": f"{resource_href}/events/{quoted(row.uuid)}", "rel": "self"},
                  {"href": resource_href, "rel": "resource"},
                  {"href": href, "rel": "stack"}],
        "event_time": isotime(row.created_at),
        "resource_name": row.resource_name,
        "logical_resource_id": row.resource_name,
        "physical_resource_id": row.physical_resource_id,
        "resource_status": f"{row.action}_{row.status}",
        "resource_status_reason": row.status_reason or "",
    }
    if detail:
        body["resource_type"] = row.resource_type
        body["resource_properties"] = getattr(row, "resource_properties", None) or {}
    return body
