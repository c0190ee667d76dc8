"""app.cfn — heat-api-cfn on port 8000: the CloudFormation-compatible query API.

More in docs/code/cfn.md (app.cfn).
"""
from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from app import auth, config, errors, models
from app.cfn import (
    change_set_actions,
    drift_actions,
    export_actions,
    faults,
    guard_actions,
    recovery_actions,
    resource_actions,
    signals,
    signing,
    stack_actions,
    xml,
)
from app.context import RequestContext
from app.convergence.dispatch import Dispatcher
from app.services import serving

LOG = logging.getLogger(__name__)
XML_TYPE = "application/xml"  # heat-api-cfn's Content-Type for every answer

Handler = Callable[[RequestContext, Mapping[str, str]], Any]

# Heat's ``heat.api.cfn.v1.API._actions``, and CloudFormation's drift and export actions.
ACTIONS: dict[str, Handler] = {
    "CreateStack": stack_actions.create,
    "UpdateStack": stack_actions.update,
    "DeleteStack": stack_actions.delete,
    "DescribeStacks": stack_actions.describe,
    "ListStacks": stack_actions.list_,
    "CancelUpdateStack": stack_actions.cancel_update,
    "GetTemplate": stack_actions.get_template,
    "ValidateTemplate": stack_actions.validate,
    "EstimateTemplateCost": stack_actions.estimate_cost,
    "DescribeStackEvents": resource_actions.events,
    "DescribeStackResource": resource_actions.describe_resource,
    "DescribeStackResources": resource_actions.describe_resources,
    "ListStackResources": resource_actions.list_resources,
    "CreateChangeSet": change_set_actions.create,
    "DescribeChangeSet": change_set_actions.describe,
    "ExecuteChangeSet": change_set_actions.execute,
    "DeleteChangeSet": change_set_actions.delete,
    "ListChangeSets": change_set_actions.list_,
    "RollbackStack": recovery_actions.rollback,
    "ContinueUpdateRollback": recovery_actions.continue_rollback,
    # beyond Heat: AWS CloudFormation's stack guards
    "UpdateTerminationProtection": guard_actions.update_termination_protection,
    "SetStackPolicy": guard_actions.set_policy,
    "GetStackPolicy": guard_actions.get_policy,
    "DetectStackDrift": drift_actions.detect,
    "DescribeStackDriftDetectionStatus": drift_actions.status,
    "DescribeStackResourceDrifts": drift_actions.resource_drifts,
    "DetectStackResourceDrift": drift_actions.resource_drift,
    "ListExports": export_actions.list_exports,
    "ListImports": export_actions.list_imports,
}


def _blueprints() -> list[Any]:
    """Blueprints served beside the query API: the signal endpoints."""
    return [signals.blp]


def create_app(settings: config.Settings | None = None, *,
               dispatcher: Dispatcher | None = None) -> Flask:
    """Build the CFN API application and the process around it: its runtime is composed here
    (:func:`app.services.wiring.compose`) and made the process's.

    :param settings: configuration; default the process-wide :func:`app.config.get`. When given,
        it is installed as the process-wide settings so that the services see the same ones.
    :param dispatcher: how stack work is enqueued (``app.cli.wsgi:create_cfn_app()`` hands
        Celery's); None: the in-process one, only under ``always_eager``.
    :raises app.errors.StokerError: no dispatcher outside ``always_eager`` (``NoDispatcher``);
        identity settings that cannot work (app.auth.check_settings).
    Initialises the database engine for ``settings.database_url`` (no schema changes).
    """
    settings = serving.prepare(settings, dispatcher)
    app = Flask("stoker.cfn", static_folder=None)
    app.config.update(MAX_CONTENT_LENGTH=settings.max_json_body_size, STOKER_SETTINGS=settings)
    app.add_url_rule("/", "root", _root, methods=["GET", "POST"])
    app.add_url_rule("/v1", "query", _query, methods=["GET", "POST"], strict_slashes=False)
    for blp in _blueprints():
        app.register_blueprint(blp)
    app.register_error_handler(Exception, _error)
    app.after_request(_stamp_request_id)
    return app


def _request_id() -> str:
    if "request_id" not in g:
        g.request_id = f"req-{uuid.uuid4()}"
    return str(g.request_id)


def _root() -> Response:
    if "Action" in request.values:
        return _query()
    from flask import json
    root = request.url_root.rstrip("/")
    body = {"versions": [{"id": "v1.0", "status": "CURRENT",
                          "links": [{"rel": "self", "href": f"{root}/v1/"}]}]}
    return Response(json.dumps(body), status=300, mimetype="application/json")


def _params() -> dict[str, str]:
    """The query and form parameters, first value of each (webob's ``req.params``)."""
    return dict(request.values.to_dict())


def _query() -> Response:
    settings = _settings()
    limit = settings.max_json_body_size
    if request.content_length is not None and request.content_length > limit:
        raise faults.RequestLimitExceeded(
            f"Request body size ({request.content_length} bytes) exceeds maximum allowed size "
            f"({limit} bytes).")
    body = faults.read_body(request)  # before the form is parsed: the signature needs it
    params = _params()
    headers = {k: v for k, v in request.headers.items()}
    ctx = signing.authenticate(settings, params=params, headers=headers, host=request.host,
                               verb=request.method, path=request.script_root + request.path,
                               body=body, request_id=_request_id())
    action = params.get("Action")
    if not action:
        raise faults.MissingAction()
    handler = ACTIONS.get(action)
    if handler is None:
        raise faults.InvalidAction(f"The action {action} is not valid for this web service")
    _enforce(settings, ctx, action)
    _refuse_nul(params)
    result = handler(ctx, params)
    return _xml(xml.to_xml(xml.response(action, result, _request_id())), 200)


NUL = "\x00"
NUL_DETAIL = "a NUL character (\\x00) is not allowed in a stored value"
SURROGATE_DETAIL = "a text holds a lone surrogate (\\ud800-\\udfff), which is not valid Unicode"


def _refuse_nul(params: Mapping[str, str]) -> None:
    """A parameter whose name or value holds a NUL character names nothing and can be stored
    nowhere (PostgreSQL text cannot hold one), on either database alike.

    :raises faults.ValidationError: naming the first such parameter (400)."""
    for key, value in params.items():
        if NUL in key or NUL in value:
            raise faults.ValidationError(
                f"Invalid parameter {key!r}: a NUL character (\\x00) is not allowed")


def _enforce(settings: config.Settings, ctx: RequestContext, action: str) -> None:
    """Heat's ``cloudformation:<action>`` rule for ``ctx`` (keystone mode; noauth allows all).

    The target is the token's own project (the CFN API has no tenant in its URL; the services
    keep every request to ``ctx.tenant_id``).

    :raises faults.AccessDenied: the policy refuses (also a token of the wrong scope).
    :raises faults.InternalFailure: the check itself failed (``Error authorizing action``).
    """
    if not auth.keystone_mode(settings):
        return
    from app.auth import keystone, policy
    try:
        allowed = policy.check(settings, f"cloudformation:{action}", keystone.creds_of(ctx),
                               ctx.tenant_id)
    except Exception:
        LOG.exception("CFN policy check of %s failed", action)
        raise faults.InternalFailure(f"Error authorizing action {action}") from None
    if not allowed:
        raise faults.AccessDenied(f"Action {action} not allowed for user")


def _settings() -> config.Settings:
    from flask import current_app
    settings: config.Settings = current_app.config["STOKER_SETTINGS"]
    return settings


def _xml(body: bytes, status: int) -> Response:
    return Response(body, status=status, mimetype=XML_TYPE)


def _error(exc: Exception) -> Response:
    """Every failure as AWS error XML: CFN errors as they are, the services' errors through
    :func:`faults.from_stoker`, HTTP errors (405, 413, 404) by their status; anything else is
    logged and answered ``InternalFailure`` (500)."""
    if isinstance(exc, faults.CfnError):
        err = exc
    elif isinstance(exc, errors.StokerError):
        err = faults.from_stoker(exc)
    elif models.nul_refused(exc):  # a NUL in a value to store: the database cannot hold it
        err = faults.ValidationError(NUL_DETAIL)
    elif models.surrogate_refused(exc):  # text that is not valid Unicode: no driver encodes it
        err = faults.ValidationError(SURROGATE_DETAIL)
    elif isinstance(exc, HTTPException):
        err = {405: faults.MethodNotAllowed, 413: faults.RequestLimitExceeded,
               404: faults.NotFound}.get(exc.code or 500, faults.InternalFailure)()
    else:
        LOG.exception("CFN request failed")
        err = faults.InternalFailure()
    if request.blueprint == signals.blp.name and signals.wants_json():
        return signals.json_error(err)  # a signal URL signed with ContentType=JSON
    resp = _xml(err.body(_request_id()), err.code)
    if err.code == 405:
        resp.headers["Allow"] = "GET, POST"
    return resp


def _stamp_request_id(response: Response) -> Response:
    """Every answer carries the request id (``x-openstack-request-id`` as heat-api;
    ``x-amzn-RequestId``, where botocore reads it)."""
    response.headers["x-openstack-request-id"] = _request_id()
    response.headers["x-amzn-RequestId"] = _request_id()
    return response
