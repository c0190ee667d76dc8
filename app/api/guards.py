"""A stack's guards, beyond Heat (CloudFormation has them): termination protection and the stack
policy, in heat-api's URL and JSON style.

- ``GET .../termination_protection`` → 200 ``{"termination_protection": bool}`` (a nested
  stack's is its root's); ``PUT`` with ``{"termination_protection": bool}`` sets it on a
  top-level stack → 200, the same body. A delete is then refused with 409
  ``StackTerminationProtected`` (:mod:`app.services.protection`).
- ``GET .../policy`` → 200 ``{"stack_policy": <document or null>}``; ``PUT`` with
  ``{"stack_policy": <document, or its JSON text>}`` replaces it → 200, the stored document
  (:mod:`app.services.stack_policy`). Bad input is a 400 ``HTTPBadRequest`` and changes nothing.

The routes are under ``/v1/{tenant}/stacks/{name}/{id}``.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api.blueprint import Blueprint, is_json_body
from app.api.params import extract_bool
from app.api.views_common import ctx
from app.services import guards, protection, stack_policy, stacks

blp = Blueprint("guards", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Termination protection and stack policy (Stoker's, not Heat's).")


def _field(name: str) -> Any:
    """``name`` of the JSON object body. :raises errors.BadRequest: no such body or field."""
    body = request.get_json(silent=True) if is_json_body(request) else None
    if not isinstance(body, dict) or name not in body:
        raise errors.BadRequest(f'The request body must be a JSON object with "{name}".')
    return body[name]


@blp.route("/termination_protection")
class TerminationProtection(MethodView):
    @blp.response(200, description='{"termination_protection": true|false}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """Whether a delete of the stack is refused (a nested stack: its root's setting)."""
        st = stacks.get_stack(ctx(), stack_name, stack_id)
        return {"termination_protection": protection.is_protected(st)}

    @blp.response(200, description='{"termination_protection": true|false}, as set.')
    def put(self, stack_name: str, stack_id: str) -> Any:
        """Enable or disable termination protection of a top-level stack."""
        enabled = extract_bool("termination_protection", _field("termination_protection"))
        st = guards.set_termination_protection(ctx(), stack_name, stack_id, enabled)
        return {"termination_protection": bool(st.termination_protection)}


@blp.route("/policy")
class StackPolicy(MethodView):
    @blp.response(200, description='{"stack_policy": <document or null>}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """The stack policy checked before each update (null: every update is allowed)."""
        return {"stack_policy": stack_policy.get_policy(ctx(), stack_name, stack_id)}

    @blp.response(200, description='{"stack_policy": <the stored document>}')
    def put(self, stack_name: str, stack_id: str) -> Any:
        """Replace the stack policy (CloudFormation's grammar; the body's ``stack_policy`` is
        the document or its JSON text)."""
        document = stack_policy.set_policy(ctx(), stack_name, stack_id, _field("stack_policy"))
        return {"stack_policy": document}
