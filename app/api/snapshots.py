"""Stack snapshots, as heat-api's ``StackController`` snapshot handlers
(``heat/api/openstack/v1/stacks.py``):

- ``POST /v1/{tenant}/stacks/{name}/{id}/snapshots`` ``{"name": ...}`` → 200 with the snapshot;
- ``GET .../snapshots`` → ``{"snapshots": [...]}``; ``GET .../snapshots/{sid}`` →
  ``{"snapshot": {...}}``;
- ``DELETE .../snapshots/{sid}`` → 204; ``POST .../snapshots/{sid}/restore`` → 202 (webob's
  ``HTTPAccepted`` body).

Shapes and errors: :mod:`app.services.snapshots`.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.views_common import ctx, json_response, no_content
from app.services import snapshots

blp = Blueprint("snapshots", __name__,
                url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Stack snapshots.")

# webob's HTTPAccepted rendered for ``Accept: application/json`` (heat-api raises it)
ACCEPTED = {"message": "The request is accepted for processing.<br /><br />\n\n\n",
            "code": "202 Accepted", "title": "Accepted"}


@blp.route("/snapshots")
class Snapshots(MethodView):
    @blp.response(200, description='{"snapshots": [{"id", "name", "action", "status", '
                                   '"status_reason", "data", "creation_time"}]}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's snapshots."""
        return {"snapshots": snapshots.list_snapshots(ctx(), stack_name, stack_id)}

    @blp.response(200, description="The new snapshot.")
    def post(self, stack_name: str, stack_id: str) -> Any:
        """Snapshot the stack (body ``{"name": ...}``, optional)."""
        body = request.get_json(silent=True) if is_json_body(request) else None
        name = body.get("name") if isinstance(body, dict) else None
        if name is not None and not isinstance(name, str):
            raise errors.BadRequest("The snapshot name must be a string.")
        return snapshots.create_snapshot(ctx(), stack_name, stack_id, name)


@blp.route("/snapshots/<snapshot_id>")
class SnapshotView(MethodView):
    @blp.response(200, description='{"snapshot": {...}}')
    def get(self, stack_name: str, stack_id: str, snapshot_id: str) -> Any:
        """One snapshot."""
        return {"snapshot": snapshots.show_snapshot(ctx(), stack_name, stack_id, snapshot_id)}

    @blp.response(204, description="Deleted.")
    def delete(self, stack_name: str, stack_id: str, snapshot_id: str) -> Any:
        """Delete a snapshot."""
        snapshots.delete_snapshot(ctx(), stack_name, stack_id, snapshot_id)
        return no_content()


@blp.route("/snapshots/<snapshot_id>/restore")
class Restore(MethodView):
    @blp.response(202, description="Accepted: the RESTORE traversal started.")
    def post(self, stack_name: str, stack_id: str, snapshot_id: str) -> Any:
        """Restore the stack to the snapshot."""
        snapshots.restore_snapshot(ctx(), stack_name, stack_id, snapshot_id)
        return json_response(ACCEPTED, 202)
