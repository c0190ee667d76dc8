"""heat-api-cfn's signal endpoints (``heat/api/cfn/v1/signal.py``): ``PUT
/v1/waitcondition/<arn>`` (an AWS wait condition handle's pre-signed URL: answers ``{"resource":
<name>, "metadata": {...}}``, the handle's signals after this one) and ``POST /v1/signal/<arn>``
(200, no body).

More in docs/code/cfn.md (app.cfn.signals).
"""
from __future__ import annotations

import json
import time
import uuid
from typing import Any

from flask import Blueprint, Response, request

from app import config, errors
from app.cfn import faults, signing
from app.context import RequestContext
from app.resource_types import _ec2sign
from app.services import signals, stacks

blp = Blueprint("cfn_signals", __name__)


def _body() -> Any:
    """The signal's details: the body when Heat's deserializer takes it (see module doc).

    :raises faults.ValidationError: a body taken as JSON that does not parse."""
    data = faults.read_body(request)
    content_type = request.mimetype or "application/json"
    if content_type.startswith("text/plain"):
        content_type = "application/json"
    if content_type not in ("JSON", "application/json") or not data.startswith(b"{"):
        return None
    try:
        return json.loads(data)
    except ValueError:
        raise faults.ValidationError("Malformed JSON body") from None


def wants_json() -> bool:
    """``ContentType=JSON`` in the query: answers are JSON (heat-api-cfn's ``Resource``)."""
    return request.args.get("ContentType") == "JSON"


def json_error(err: faults.CfnError) -> Response:
    """``err`` as heat-api-cfn serialises a ``HeatAPIException`` for ``ContentType=JSON``:
    ``{"ErrorResponse": {"Error": {"Type", "Code", "Message"}}}`` with its HTTP status."""
    doc = {"ErrorResponse": {"Error": {"Type": err.err_type, "Code": err.title,
                                       "Message": err.message}}}
    return Response(json.dumps(doc), status=err.code, mimetype="application/json")


def _authorised(arn_text: str) -> tuple[RequestContext, Any, str]:
    """The signalling context, stack and resource name, once the URL's signature checks out.

    :raises faults.CfnError: as the module says; 404 ``NotFound`` for an ARN that names no
        resource."""
    params = request.args.to_dict()
    if not params.get("Signature"):
        raise faults.IncompleteSignature()
    if not params.get("AWSAccessKeyId"):
        raise faults.MissingAuthenticationToken()
    arn = _ec2sign.parse_arn(arn_text)
    if arn is None:
        raise faults.NotFound()
    settings = config.get()
    path = request.script_root + request.path
    if settings.auth_strategy == "keystone":
        ctx = signing.authenticate(settings, params=params, headers=dict(request.headers),
                                   host=request.host, verb=request.method, path=path,
                                   body=faults.read_body(request),
                                   request_id=f"req-{uuid.uuid4()}")
        try:
            stack = stacks.get_by_id(ctx, arn.stack_id)
        except errors.NotFound:
            raise faults.AccessDenied() from None  # another project's credential
    else:
        ctx = RequestContext(tenant_id=arn.tenant)
        stack = stacks.get_by_id(ctx, arn.stack_id)
    keys = signals.signing_keys(stack, arn.resource_name)
    if keys is None or keys[0] != params["AWSAccessKeyId"] or stack.name != arn.stack_name:
        raise faults.SignatureDoesNotMatch()
    if settings.auth_strategy != "keystone":
        if not _ec2sign.verify(keys[1], request.method, request.host, path, params):
            raise faults.SignatureDoesNotMatch()
        if _ec2sign.expired(params, settings.ec2_auth_ttl * 60.0, time.time()):
            raise faults.AccessDenied()
    return ctx, stack, arn.resource_name


@blp.route("/v1/waitcondition/<path:arn>", methods=["PUT"])
def update_waitcondition(arn: str) -> Response:
    """Signal an AWS wait condition handle (its pre-signed URL)."""
    ctx, stack, name = _authorised(arn)
    signals.signal(ctx, stack, name, _body())
    body = {"resource": name, "metadata": signals.metadata(ctx, stack, name)}
    return Response(json.dumps(body), status=200, mimetype="application/json")


@blp.route("/v1/signal/<path:arn>", methods=["POST"])
def signal(arn: str) -> Response:
    """Signal a resource through its pre-signed URL (alarms, scaling policies)."""
    ctx, stack, name = _authorised(arn)
    signals.signal(ctx, stack, name, _body())
    if wants_json():
        return Response("null", status=200, mimetype="application/json")
    return Response(status=200)
