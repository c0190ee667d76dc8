"""Stack outputs (heat-api's ``list_outputs`` / ``show_output``).

``GET /stacks/{name}/{id}/outputs`` lists keys and descriptions without values;
``GET .../outputs/{key}`` shows one with ``output_value`` (and ``output_error`` when it failed to
resolve); an unknown key is a 404 ``NotFound`` "Specified output key ... not found.".
"""
from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app import errors
from app.api import formats
from app.api.blueprint import Blueprint
from app.api.views_common import ctx, services

blp = Blueprint("outputs", __name__, url_prefix="/v1/<tenant_id>/stacks/<stack_name>/<stack_id>",
                description="Stack outputs.")


def _outputs(stack_name: str, stack_id: str) -> list[dict[str, Any]]:
    stack = services.stacks.get_stack(ctx(), stack_name, stack_id)
    return list(services.stacks.stack_outputs(stack))


@blp.route("/outputs")
class Outputs(MethodView):
    @blp.response(200, description='{"outputs": [{"output_key", "description"}]}')
    def get(self, stack_name: str, stack_id: str) -> Any:
        """List a stack's outputs (no values)."""
        return {"outputs": [formats.output_summary(o) for o in _outputs(stack_name, stack_id)]}


@blp.route("/outputs/<output_key>")
class Output(MethodView):
    @blp.response(200, description='{"output": {"output_key", "description", "output_value"}}')
    def get(self, stack_name: str, stack_id: str, output_key: str) -> Any:
        """Show one output with its value."""
        for output in _outputs(stack_name, stack_id):
            if output["output_key"] == output_key:
                return {"output": formats.output_detail(output)}
        raise not_found(output_key)


def not_found(output_key: str) -> errors.NotFound:
    """Heat's 404 ``NotFound`` "Specified output key ... not found." for ``output_key``."""
    return errors.NotFound("Output", output_key, heat_type="NotFound",
                           message=f"Specified output key {output_key} not found.")
