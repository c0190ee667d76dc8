"""``GET /v1/{tenant_id}/services`` (heat-api's ``ServiceController.index``):
``{"services": [...]}``, the engine workers in Heat's shape (:mod:`app.services.engine_services`).
Guarded by Heat's policy ``service:index`` (system admin) in keystone mode."""
from __future__ import annotations

from typing import Any

from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.services import engine_services as use_cases

blp = Blueprint("engine_services", __name__, url_prefix="/v1/<tenant_id>",
                description="Engine services (Heat's ServiceController).")


@blp.route("/services")
class Services(MethodView):
    @blp.response(200, description='{"services": [{"id", "binary", "engine_id", "host", '
                                   '"hostname", "topic", "report_interval", "created_at", '
                                   '"updated_at", "deleted_at", "status"}]}')
    def get(self) -> Any:
        """The engine services and whether each is up."""
        return {"services": use_cases.list_services()}
