"""Version discovery: ``GET /`` (and ``GET /v1/``) answer as heat-api's versions controller:
``300 Multiple Choices`` with ``{"versions": [{"id": "v1.0", "status": "CURRENT", "links":
[{"rel": "self", "href": "http://<host>/v1/"}]}]}`` (keystoneauth's discovery reads this).
Other versions are negotiated in front of the app: :mod:`app.api.version_negotiation`."""
from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from app.api.blueprint import Blueprint
from app.api.version_negotiation import versions_body
from app.api.views_common import json_response

blp = Blueprint("versions", __name__, description="API version discovery.")


def versions_document() -> dict[str, Any]:
    return versions_body(request.host_url)


@blp.route("/")
class Versions(MethodView):
    @blp.response(300, description="The API versions.")
    def get(self) -> Any:
        """List the API versions."""
        return json_response(versions_document(), 300)


@blp.route("/v1/")
class VersionV1(MethodView):
    @blp.response(300, description="The API versions.")
    def get(self) -> Any:
        """List the API versions (the unscoped v1 root)."""
        return json_response(versions_document(), 300)
