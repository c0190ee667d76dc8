"""``GET /v1/{tenant_id}/build_info`` (heat-api's ``BuildInfoController``):
``{"api": {"revision": ...}, "engine": {"revision": ...}}``. API and engine are one code base in
Stoker, so both report the installed ``stoker`` package version."""
from __future__ import annotations

from importlib import metadata
from typing import Any

from flask.views import MethodView

from app.api.blueprint import Blueprint

blp = Blueprint("build_info", __name__, url_prefix="/v1/<tenant_id>",
                description="Build information.")


def revision() -> str:
    try:
        return metadata.version("stoker")
    except metadata.PackageNotFoundError:
        return "unknown"


@blp.route("/build_info")
class BuildInfo(MethodView):
    @blp.response(200, description='{"api": {"revision"}, "engine": {"revision"}}')
    def get(self) -> Any:
        """The revisions of the API and the engine."""
        rev = revision()
        return {"api": {"revision": rev}, "engine": {"revision": rev}}
