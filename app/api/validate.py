"""``POST /v1/{tenant_id}/validate`` (heat-api's ``validate_template``).

Body as for stack create (``template``, ``files``, ``environment``, ``environment_files``,
``parameters``); query ``show_nested`` and ``ignore_errors`` (comma separated error codes).
200 with Heat's body (``Description``, ``Parameters``, ``ParameterGroups``, ``Environment``...);
an invalid template is a 400 whose ``error.type`` is ``HTTPBadRequest`` whatever the cause,
because heat-api turns the engine's ``{"Error": message}`` into ``HTTPBadRequest(message)``.
With ``show_all_errors=true`` (not Heat's) the same 400 also lists every error found in one
pass in ``error.errors`` (``[{"message", "type", "path", "line", "column"}]``, see
:func:`app.services.validation.all_errors`); the default response is Heat's.
"""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app import errors
from app.api.all_errors import asked, listing_all
from app.api.blueprint import Blueprint
from app.api.params import extract_bool
from app.api.schemas import ValidateBody
from app.api.stacks import instantiation_args
from app.api.views_common import ctx, services

#: one schema instance for every request (a class would be instantiated per request)
VALIDATE_BODY = ValidateBody()

blp = Blueprint("validate", __name__, url_prefix="/v1/<tenant_id>",
                description="Template validation.")


@blp.route("/validate")
class Validate(MethodView):
    @blp.arguments(VALIDATE_BODY, error_status_code=400)
    @blp.response(200, description="The template's description, parameters and environment.")
    def post(self, body: dict[str, Any]) -> Any:
        """Validate a template without creating a stack."""
        asked()   # a bad show_all_errors is a 400 before anything else
        show_nested = extract_bool("show_nested", request.args["show_nested"]) \
            if request.args.get("show_nested") else False
        ignore = request.args.get("ignore_errors")
        args = instantiation_args(body)
        # heat-api checks the size before the engine: RequestLimitExceeded, as on create
        services.validation.check_limits(args["template"], args["files"])
        try:
            result = services.validation.validate_template(
                ctx(), **args, show_nested=show_nested,
                ignore_errors=ignore.split(",") if ignore else None)
        except errors.StokerError as exc:
            if exc.http_status >= 500:
                raise
            raise listing_all(errors.BadRequest(exc.message), exc, args, strict=False) from exc
        if isinstance(result, dict) and "Error" in result:
            raise errors.BadRequest(str(result["Error"]))
        return result

