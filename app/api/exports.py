"""Cross-stack exports of a project (not in Heat): ``GET /v1/{tenant}/exports``.

Answers ``{"exports": [{"name", "value", "stack_id", "stack_name", "output_key"}]}`` sorted
by name: every output a live stack of the project exports (CFN ``Export: {Name: ...}``, or
``export: {name: ...}`` in Stoker's HOT version ``stoker-2026-12-01``), as CloudFormation's
ListExports. The rules an import puts on its export are :mod:`app.services.exports`'.
"""
from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.api.views_common import ctx
from app.services import exports

blp = Blueprint("exports", __name__, url_prefix="/v1/<tenant_id>",
                description="Cross-stack exports of the project.")


@blp.route("/exports")
class Exports(MethodView):
    @blp.response(200, description="The project's exports.")
    def get(self) -> Any:
        """The project's exports, by name."""
        return {"exports": exports.list_exports(ctx())}
