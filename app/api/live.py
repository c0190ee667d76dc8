"""The live stack page: a stack's resources as a dependency graph coloured by status, updated
as events are written, the latest operation's timeline beside it (bars, critical path, root
cause; from ``GET .../timeline``) and the event list. Served by the API process (port 8004).

More in docs/code/api.md (app.api.live).
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request, stream_with_context

from app.api.views_common import ctx, services

bp = Blueprint("live", __name__, template_folder="templates")
POLL_SECONDS = 0.5
KEEPALIVE = 15.0
STREAM_SECONDS = 60.0
IDLE_SECONDS = 5.0
DATA = "/v1/<tenant_id>/stacks/<stack_name>/<stack_id>/live"


@bp.get("/live/<project>/stacks/<stack_name>/<stack_id>")
def page(project: str, stack_name: str, stack_id: str) -> Any:
    settings = current_app.config["STOKER_SETTINGS"]
    stack = f"/v1/{project}/stacks/{stack_name}/{stack_id}"
    return render_template("live.html", base=f"{stack}/live", timeline=f"{stack}/timeline",
                           stack_name=stack_name, needs_token=settings.auth_strategy != "noauth")


def layers(requires: dict[str, set[str]]) -> dict[str, int]:
    """The longest chain of requirements below each name (``{name: {required names}}``;
    names outside the mapping are ignored). O(V + E); a cycle cannot be stored, so none is
    looked for."""
    out: dict[str, int] = {}

    def depth(name: str) -> int:
        if name not in out:
            out[name] = 0  # guards against a malformed row, never loops
            below = [depth(r) for r in requires[name] if r in requires]
            out[name] = 1 + max(below) if below else 0
        return out[name]
    for name in requires:
        depth(name)
    return out


@bp.get(f"{DATA}/graph")
def graph(stack_name: str, stack_id: str) -> Any:
    stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
    rows = [r for r, _ in services.resources.list_resources(ctx(), stack)]
    requires = {r.name: set(r.requires or ()) for r in rows}
    depth = layers(requires)
    return {"stack": {"name": stack.name, "id": stack.id,
                      "stack_status": f"{stack.action}_{stack.status}",
                      "stack_status_reason": stack.status_reason},
            "resources": [{"name": r.name, "type": r.type, "action": r.action, "status": r.status,
                           "status_reason": r.status_reason,
                           "physical_resource_id": r.physical_resource_id,
                           "requires": sorted(requires[r.name] & requires.keys()),
                           "layer": depth[r.name]} for r in rows]}


def _sse(event: Any) -> str:
    created = event.created_at.isoformat() if event.created_at else None
    data = {"id": event.uuid, "seq": event.id, "resource_name": event.resource_name,
            "resource_action": event.action, "resource_status": event.status,
            "resource_status_reason": event.status_reason,
            "physical_resource_id": event.physical_resource_id, "event_time": created}
    return f"id: {event.uuid}\nevent: stack-event\ndata: {json.dumps(data)}\n\n"


@bp.get(f"{DATA}/events")
def events(stack_name: str, stack_id: str) -> Any:
    context = ctx()
    stack = services.stacks.get_stack(context, stack_name, stack_id)
    after = request.args.get("after") or request.headers.get("Last-Event-ID") or None
    if after:  # an unknown id is a 404 now, not a broken stream later
        services.resources.list_events(context, stack, marker=after, limit=1)

    def stream() -> Iterator[str]:
        marker, started = after, time.monotonic()
        quiet = beat = started
        yield "retry: 1000\n\n"
        while time.monotonic() - started < STREAM_SECONDS:
            rows = services.resources.list_events(context, stack, marker=marker, limit=200,
                                                  sort_dir="asc")
            for row in rows:
                yield _sse(row)
            if rows:
                marker, quiet, beat = rows[-1].uuid, time.monotonic(), time.monotonic()
                continue
            if time.monotonic() - quiet > IDLE_SECONDS and \
                    services.stacks.get_by_id(context, stack.id).status != "IN_PROGRESS":
                return
            if time.monotonic() - beat > KEEPALIVE:
                yield ": keep-alive\n\n"
                beat = time.monotonic()
            time.sleep(POLL_SECONDS)

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
