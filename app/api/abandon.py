"""Stack abandon and export, as heat-api's ``StackController.abandon`` / ``export``
(``heat/api/openstack/v1/stacks.py``).

- ``DELETE /v1/{tenant}/stacks/{name}/{id}/abandon`` → 200 with the abandon data; the stack is
  deleted from Stoker, its cloud resources stay.
- ``GET .../export`` → 200 with the same data; nothing changes.

Both need ``enable_stack_abandon`` (400 ``NotSupported`` "Stack Abandon is not supported."
otherwise, Heat's default); 404 for an unknown or deleted stack
(:mod:`app.services.stack_abandon`). Adopt is ``POST /stacks`` with ``adopt_stack_data``
(:mod:`app.api.stacks`).
"""
from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.api.views_common import ctx
from app.services import stack_abandon

blp = Blueprint("abandon", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Stack abandon and export (Heat's enable_stack_abandon).")


@blp.route("/abandon")
class Abandon(MethodView):
    @blp.response(200, description="The abandon data: name, id, action, status, environment, "
                                   "files, template, resources, project_id, tags.")
    def delete(self, stack_name: str, stack_id: str) -> Any:
        """Delete the stack, leaving its cloud resources; answer its abandon data."""
        return stack_abandon.abandon_stack(ctx(), stack_name, stack_id)


@blp.route("/export")
class Export(MethodView):
    @blp.response(200, description="The abandon data, the stack unchanged.")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's abandon data."""
        return stack_abandon.export_stack(ctx(), stack_name, stack_id)
