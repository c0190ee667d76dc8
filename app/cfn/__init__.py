"""app.cfn — heat-api-cfn on port 8000: the CloudFormation-compatible query API.

``build_app()`` builds the app; the one entry to serve is ``'app.cli.wsgi:create_cfn_app()'``
(the Procfile's ``cfn`` line, started by ``stoker up`` on ``Settings.cfn_port``), which also
installs Celery's dispatcher. Requests are AWS query requests: form
POST or GET to ``/v1`` (also ``/``) with ``Action=<name>&Version=2010-05-15`` and the action's
parameters, signed with EC2 signature version 4 or 2 (:mod:`app.cfn.signing`). Per request:

1. the body is size-checked (``Settings.max_json_body_size`` → ``RequestLimitExceeded``);
2. the signature is checked (Keystone's ec2tokens in keystone mode; any key in noauth) and
   becomes the :class:`app.context.RequestContext` — before the action is looked at, as Heat's
   ``EC2Token`` middleware sits before its router;
3. in keystone mode, Heat's ``cloudformation:<Action>`` policy rule (:mod:`app.auth.policy`,
   overridable by ``STOKER_POLICY_FILE``) for the token's credentials on the token's project: a
   reader lists and describes, a member also creates, updates and deletes, a
   ``heat_stack_user`` may only DescribeStackResource; a refusal is ``AccessDenied`` (403,
   ``Action <Action> not allowed for user``), as heat-api-cfn's ``StackController._enforce``;
4. the action (:data:`ACTIONS`) calls the services and is answered as
   ``<ActionResponse><ActionResult>...`` XML (:mod:`app.cfn.xml`); any error as AWS's
   ``<ErrorResponse>`` (:mod:`app.cfn.faults`), with Heat's HTTP status.

``GET /`` without an Action answers the version document. The wait-condition and signal
endpoints (``PUT /v1/waitcondition/<arn>``, ``POST /v1/signal/<arn>``) belong beside these, as
blueprints registered by :func:`build_app` (see :func:`_blueprints`).
"""
from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from app import auth, config, errors, models
from app.cfn import faults, resource_actions, signals, signing, stack_actions, xml
from app.context import RequestContext
from app.services import engine

LOG = logging.getLogger(__name__)
XML_TYPE = "application/xml"  # heat-api-cfn's Content-Type for every answer

Handler = Callable[[RequestContext, Mapping[str, str]], Any]

# Heat's ``heat.api.cfn.v1.API._actions``.
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
}


def _blueprints() -> list[Any]:
    """Blueprints served beside the query API: the signal endpoints."""
    return [signals.blp]


def build_app(settings: config.Settings | None = None) -> Flask:
    """Build the CFN API application (served through ``app.cli.wsgi:create_cfn_app()``, which
    installs Celery's dispatcher first).

    :raises app.errors.StokerError: no dispatcher installed outside ``always_eager``; identity
        settings that cannot work (app.auth.check_settings).

    :param settings: configuration; default the process-wide :func:`app.config.get`. When given,
        it is installed as the process-wide settings so that the services see the same ones.
    Initialises the database engine for ``settings.database_url`` (no schema changes).
    """
    if settings is None:
        settings = config.get()
    else:
        config.set_current(settings)
    auth.check_settings(settings)  # keystone mode: a key and a policy that load, or a clear error
    engine.require_dispatcher(settings)
    models.init(settings.database_url)
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
    body = request.get_data(cache=True)  # before the form is parsed: the signature needs it
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
    result = handler(ctx, params)
    return _xml(xml.to_xml(xml.response(action, result, _request_id())), 200)


def _enforce(settings: config.Settings, ctx: RequestContext, action: str) -> None:
    """Heat's ``cloudformation:<action>`` rule for ``ctx`` (keystone mode; noauth allows all).

    The target is the token's own project (the CFN API has no tenant in its URL; the services
    keep every request to ``ctx.tenant_id``).

    :raises faults.AccessDenied: the policy refuses (also a token of the wrong scope).
    :raises faults.InternalFailure: the check itself failed (``Error authorizing action``).
    """
    from app import auth
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
