"""Drift detection of a stack (not in Heat): ``/v1/{tenant}/stacks/{name}/{id}/drift``.

``POST`` starts a detection (202 ``{"drift_detection": {...}}``, DETECTION_IN_PROGRESS or its
result when the engine runs in-process); its optional JSON object body ``{"resources":
[name, ...]}`` checks only those (CFN's ``LogicalResourceIds``); a body that is not JSON, other
keys, or a name the stack does not have is a 400; ``GET .../drift`` is the latest, ``GET .../drift/{id}``
that one: ``status``, ``stack_drift_status`` (DRIFTED / IN_SYNC / UNKNOWN), ``counts``,
``detection_time``, ``resources`` (``path``, ``drift_status``, ``reason``,
``property_differences``); ``?drift_status=MODIFIED`` (repeat or comma-separate) filters them.
``POST .../drift/{id}/revert/preview`` (as Heat's update ``preview``, nothing written) and
``POST .../drift/{id}/revert`` (202, the update starts): :mod:`app.services.drift_revert`.
404 unknown stack or detection; 409 not the latest detection or changed since; 400 no drift.
"""
from __future__ import annotations

import json
from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint
from app.api.views_common import ctx, services
from app.engine import drift as drift_rules
from app.services import drift, drift_revert

blp = Blueprint("drift", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Drift detection against the live cloud.")
STATUSES = (drift_rules.IN_SYNC, drift_rules.MODIFIED, drift_rules.DELETED,
            drift_rules.NOT_CHECKED)


def _filtered(body: dict[str, Any]) -> dict[str, Any]:
    wanted = {s for v in request.args.getlist("drift_status") for s in v.split(",") if s}
    bad = wanted - set(STATUSES)
    if bad:
        raise errors.BadRequest(f"Invalid drift_status {sorted(bad)}: one of "
                                f"{', '.join(STATUSES)}")
    if wanted:
        body = {**body, "resources": [r for r in body["resources"]
                                      if r["drift_status"] in wanted]}
    return {"drift_detection": body}


def _names() -> list[str] | None:
    """The ``resources`` of the POST body (None: no body, or all resources).
    :raises errors.BadRequest: not a JSON object, other keys, not a list of names."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return None
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise errors.BadRequest(f"The request body is not valid JSON: {exc}") from exc
    if not isinstance(body, dict):
        raise errors.BadRequest('The request body must be a JSON object: {"resources": '
                                "[names]} or {}.")
    unknown = sorted(set(body) - {"resources"})
    if unknown:
        raise errors.BadRequest(f"Unknown keys {unknown} in the request body: only "
                                '"resources" is accepted.')
    names = body.get("resources")
    if names is not None and (not isinstance(names, list)
                              or not all(isinstance(n, str) and n for n in names)):
        raise errors.BadRequest('"resources" must be a list of resource names.')
    return names or None


@blp.route("/drift")
class Drift(MethodView):
    @blp.response(202, description="The detection started.")
    def post(self, stack_name: str, stack_id: str) -> Any:
        """Start a drift detection of the stack."""
        names = _names()
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return _filtered(drift.start(ctx(), stack, names)), 202

    @blp.response(200, description="The latest detection.")
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack's latest drift detection."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return _filtered(drift.get(ctx(), stack))


@blp.route("/drift/<detection_id>")
class DriftDetection(MethodView):
    @blp.response(200, description="The detection.")
    def get(self, stack_name: str, stack_id: str, detection_id: str) -> Any:
        """One drift detection of the stack."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return _filtered(drift.get(ctx(), stack, detection_id))


@blp.route("/drift/<detection_id>/revert/preview")
class DriftRevertPreview(MethodView):
    @blp.response(200, description="What the revert would do.")
    def post(self, stack_name: str, stack_id: str, detection_id: str) -> Any:
        """Preview bringing the detection's drifted resources back to the template."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return {"drift_revert": drift_revert.preview(ctx(), stack, detection_id)}


@blp.route("/drift/<detection_id>/revert")
class DriftRevert(MethodView):
    @blp.response(202, description="The update that reverts the drift started.")
    def post(self, stack_name: str, stack_id: str, detection_id: str) -> Any:
        """Update the detection's drifted resources back to the template."""
        stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
        return {"drift_revert": drift_revert.revert(ctx(), stack, detection_id)}, 202
