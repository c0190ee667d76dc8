"""app.api — the Orchestration API v1, wire-compatible with heat-api (port 8004).

More in docs/code/api.md (app.api).
"""
from __future__ import annotations

import inspect
import json as _json
import uuid
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any, cast

from flask import Flask, current_app, g, request
from flask_smorest import Api  # type: ignore[import-untyped]
from werkzeug.exceptions import HTTPException

from app import auth, config, errors, logs
from app.api import (
    abandon,
    actions,
    build_info,
    change_sets,
    drift,
    engine_services,
    events,
    exports,
    faults,
    guards,
    json_out,
    live,
    nul_check,
    outputs,
    resource_health,
    resource_types,
    resources,
    signals,
    snapshots,
    software,
    stack_update,
    stacks,
    template_versions,
    timeline,
    validate,
    version_negotiation,
    versions,
)
from app.api.blueprint import DECODED_BODY, is_json_body, is_json_media
from app.api.params import loads_body
from app.api.routing import LazyBuildRule
from app.api.schemas import FaultSchema
from app.convergence.dispatch import Dispatcher
from app.services import serving

API_TITLE = "Stoker Orchestration API"
API_VERSION = "v1"


class StokerApi(Api):
    """flask-smorest's Api whose HTTP error handler answers (and documents) Heat's fault body.

    Its OpenAPI document is built when first read (``/v1/openapi.json``), not as each blueprint
    is registered: documenting the views was three quarters of building the application.
    """

    ERROR_SCHEMA = FaultSchema
    _spec_kwargs_held: dict[str, Any] | None = None
    _undocumented: list[tuple[Any, str, Any]]
    _built: Any = None

    def _init_spec(self, **kwargs: Any) -> None:
        self._spec_kwargs_held, self._undocumented = kwargs, []

    @property
    def spec(self) -> Any:
        if self._spec_kwargs_held is not None:
            kwargs, self._spec_kwargs_held = self._spec_kwargs_held, None
            pending, self._undocumented = self._undocumented, []
            Api._init_spec(self, **kwargs)  # reads self.spec: nothing to document yet
            self._undocumented = pending
        for blp, name, parameters in self._undocumented:
            blp.register_views_in_doc(self, self._app, self._built, name=name,
                                      parameters=parameters)
            self._built.tag({"name": name, "description": blp.description})
        self._undocumented = []
        return self._built

    @spec.setter
    def spec(self, value: Any) -> None:
        self._built = value

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append((blp, name, parameters))

    def handle_http_exception(self, error: Any) -> Any:
        return faults.http_exception(error)


class _Flask(Flask):
    """Flask, its views and hooks being plain functions: :meth:`ensure_sync` hands a function
    back without Flask's ``inspect.iscoroutinefunction`` (ten times a request); its URL rules
    compile their builders on first use (:class:`~app.api.routing.LazyBuildRule`)."""

    url_rule_class = LazyBuildRule

    def ensure_sync(self, func: Any) -> Any:
        code = getattr(func, "__code__", None)
        if code is not None and not code.co_flags & inspect.CO_COROUTINE:
            return func
        return super().ensure_sync(func)


def _blueprints() -> list[Any]:
    return [versions.blp, stacks.blp, stack_update.blp, outputs.blp, resources.blp, events.blp,
            validate.blp, template_versions.blp, resource_types.blp, build_info.blp,
            signals.blp, actions.blp, resource_health.blp, engine_services.blp, abandon.blp,
            snapshots.blp, software.blp, change_sets.blp, change_sets.new_blp, guards.blp,
            drift.blp, timeline.blp, exports.blp]


def create_app(settings: config.Settings | None = None, *,
               dispatcher: Dispatcher | None = None) -> Flask:
    """Build the API application and the process around it: its runtime is composed here
    (:func:`app.services.wiring.compose`) and made the process's.

    :param settings: configuration; default the process-wide :func:`app.config.get`. When given,
        it is installed as the process-wide settings so that the services see the same ones.
    :param dispatcher: how stack work is enqueued (``app.cli.wsgi:create_app()`` hands Celery's);
        None: the in-process one, only under ``always_eager``.
    :raises app.errors.StokerError: no dispatcher outside ``always_eager`` (``NoDispatcher``:
        every create would fail), or identity settings that cannot work.
    Initialises the database engine for ``settings.database_url`` (no schema changes).
    """
    settings = serving.prepare(settings, dispatcher)

    app = _Flask("stoker.api")
    app.json = json_out.JSONProvider(app)
    app.config.update(
        API_TITLE=API_TITLE, API_VERSION=API_VERSION, OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/v1", OPENAPI_JSON_PATH="openapi.json",
        # Chunked bodies have no Content-Length: cap what werkzeug will read (413 beyond).
        MAX_CONTENT_LENGTH=settings.max_json_body_size * 2,
        STOKER_SETTINGS=settings,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.converters["arn"] = stacks.ArnConverter
    api = StokerApi(app)
    faults.register(app)
    for blp in _blueprints():
        api.register_blueprint(blp)
    app.register_blueprint(live.bp)  # the live stack page (HTML + server-sent events)

    app.url_value_preprocessor(nul_check.refuse_nul)  # before anything reads the URL
    app.url_value_preprocessor(_pull_tenant)
    app.before_request(_authorize)
    app.before_request(_read_body)
    app.after_request(_stamp_request_id)
    logs.setup(settings)
    logs.install_flask(app, _request_id)  # request ids in log lines and task headers
    # as Heat's pipeline: version negotiation, then authentication, then the API
    app.wsgi_app = version_negotiation.wrap(  # type: ignore[method-assign]
        auth.wrap_wsgi(app.wsgi_app, settings))
    return app


def _request_id() -> str:
    """This request's ``req-<uuid>``, made at its first use (read three times a request:
    ``g`` is looked up once here, not at each access)."""
    ns = g._get_current_object()
    rid = ns.__dict__.get("request_id")
    if rid is None:
        rid = ns.request_id = f"req-{uuid.uuid4()}"
    return str(rid)


class _Headers:
    """A request's headers as ``get(name)`` reads them, case-insensitively, from the WSGI
    environ, decoded as werkzeug's ``EnvironHeaders`` decodes them (in fewer steps)."""

    __slots__ = ("environ",)

    def __init__(self, environ: dict[str, Any]) -> None:
        self.environ = environ

    def get(self, name: str, default: str | None = None) -> str | None:
        value = self.environ.get("HTTP_" + name.upper().replace("-", "_"))
        return default if value is None else value.encode("latin1").decode(errors="replace")


def _pull_tenant(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Turn the URL's ``tenant_id`` into ``g.context`` (views never see the tenant argument)."""
    if values and "tenant_id" in values:
        settings = current_app.config["STOKER_SETTINGS"]
        headers = cast(Mapping[str, str], _Headers(request.environ))
        g.context = auth.context_from_headers(headers, values.pop("tenant_id"), settings,
                                              _request_id())


def _authorize() -> None:
    """Heat's policy rule of the matched route, for the request's context (``app.auth``)."""
    settings = current_app.config["STOKER_SETTINGS"]
    if auth.keystone_mode(settings) and "context" in g and request.url_rule is not None:
        auth.authorize(g.context, settings, request.url_rule.rule, request.method,
                       request.view_args, request.args)


def _read_body() -> None:
    """heat-api's body rules: a body is JSON when its type is JSON (or absent, or text/plain)
    and it starts with ``{``; larger than ``max_json_body_size`` → 400 RequestLimitExceeded;
    malformed → 400 HTTPBadRequest with the parser's message; a body the server cannot read
    to its end (a malformed chunk, a connection cut short) → 400 HTTPBadRequest."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    limit = current_app.config["STOKER_SETTINGS"].max_json_body_size
    length = request.content_length
    if length is not None and length > limit:
        raise errors.RequestLimitExceeded(
            f"JSON body size ({length} bytes) exceeds maximum allowed size ({limit} bytes).")
    try:
        data = request.get_data(cache=True)
    except HTTPException:  # werkzeug's own answers (a client gone: its 400)
        raise
    except Exception:  # the WSGI server's reading of the body (gunicorn: a malformed chunk's
        raise errors.BadRequest(UNREADABLE_BODY) from None  # ParseException, NoMoreData...)
    if len(data) > limit:
        raise errors.RequestLimitExceeded(
            f"JSON body size ({len(data)} bytes) exceeds maximum allowed size ({limit} bytes).")
    if not is_json_body(request):
        _refuse_non_object(data)
        return
    try:
        setattr(g, DECODED_BODY, loads_body(data))  # the view's arguments parser reuses it
    except ValueError as exc:
        raise errors.BadRequest(str(exc)) from None


UNREADABLE_BODY = errors.UNREADABLE_BODY
#: Routes whose body may be any JSON value (a signal's details are the resource's business)
_ANY_JSON_BODY = ("/signal",)
NOT_AN_OBJECT = ("The server could not comply with the request since it is either malformed "
                 "or otherwise incorrect.")


def _refuse_non_object(data: bytes) -> None:
    """A JSON body that is not an object (``[]``, ``"str"``, ``1``) where the route reads an
    object → 400 with heat-api's ``HTTPBadRequest`` explanation; bodies of another media type, or
    not JSON at all, still read as no body (heat-api's ``has_body``)."""
    text = data.strip()
    if not text or request.path.endswith(_ANY_JSON_BODY) or not is_json_media(request):
        return
    try:
        _json.loads(text)
    except ValueError:
        return
    raise errors.BadRequest(NOT_AN_OBJECT)


#: webob's status line of each standard code (werkzeug's differs for some: ``302 FOUND``)
_STATUS_LINES = {int(status): f"{status.value} {status.phrase}" for status in HTTPStatus}


def _stamp_request_id(response: Any) -> Any:
    """Every answer carries ``x-openstack-request-id``; its status line uses the standard
    reason phrase as webob's (``302 Found``, not werkzeug's ``302 FOUND``)."""
    response.headers["x-openstack-request-id"] = _request_id()
    line = _STATUS_LINES.get(response.status_code)
    if line is not None and response.status != line:
        response.status = line
    return response
