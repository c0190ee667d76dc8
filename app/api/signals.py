"""Resource signals and metadata (heat-api's ``ResourceController.signal`` / ``metadata``).

- ``POST /v1/{tenant}/stacks/{name}/{id}/resources/{resource}/signal`` with an optional JSON
  body (any JSON value: Heat passes it to the resource as ``details``) → 200 with no body;
  400 ``ResourceActionNotSupported`` for a type that takes no signal, 400 for a malformed
  body, 404 when the stack (deleted ones included) or the resource does not exist.
- ``GET .../resources/{resource}/metadata`` → ``{"metadata": {...}}``.
"""
from __future__ import annotations

import json
from typing import Any

from flask import current_app, request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint
from app.api.views_common import ctx, services
from app.services import signals  # noqa: F401  (imported for services.signals)

blp = Blueprint("signals", __name__,
                url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>/resources",
                description="Signals and metadata of a resource.")


def _details() -> Any:
    """The request's JSON body, or None when it has none. :raises errors.BadRequest:
    the body is not JSON (heat-api's "Malformed JSON" answer)."""
    data = request.get_data(cache=True)
    if not data.strip():
        return None
    try:
        return json.loads(data)
    except ValueError as exc:
        raise errors.BadRequest(f"Malformed JSON: {exc}") from None


@blp.route("/<resource_name>/signal")
class Signal(MethodView):
    @blp.response(200, description="Signalled (no body).")
    def post(self, stack_name: str, stack_id: str, resource_name: str) -> Any:
        """Send a signal to a resource (a wait condition handle, ...)."""
        details = _details()
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        services.signals.signal(ctx(), stack, resource_name, details)
        resp = current_app.response_class(status=200)
        resp.headers.pop("Content-Type", None)
        return resp


@blp.route("/<resource_name>/metadata")
class Metadata(MethodView):
    @blp.response(200, description='{"metadata": {...}}')
    def get(self, stack_name: str, stack_id: str, resource_name: str) -> Any:
        """Show a resource's metadata."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return {"metadata": services.signals.metadata(ctx(), stack, resource_name)}
