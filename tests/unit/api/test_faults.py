"""The single error path, request ids, body limits and the noauth request context."""
from __future__ import annotations

import json
import logging

import pytest

from app import errors
from app.services import stacks
from tests.unit.api.conftest import BASE
from tests.unit.api.shapes import REQUEST_ID


def _assert_fault(resp, status, heat_type):
    body = resp.get_json()
    assert resp.status_code == status and body["code"] == status
    assert body["error"]["type"] == heat_type and body["error"]["traceback"] is None
    assert set(body) == {"code", "title", "explanation", "error"}
    assert REQUEST_ID.match(resp.headers["x-openstack-request-id"])
    return body


def test_unknown_route_is_404_fault(api):
    _assert_fault(api.get("/v1/admin/nowhere"), 404, "HTTPNotFound")


def test_wrong_method_is_405_fault_with_allow(api):
    resp = api.delete("/v1/admin/stacks")
    _assert_fault(resp, 405, "HTTPMethodNotAllowed")
    assert "GET" in resp.headers["Allow"] and "POST" in resp.headers["Allow"]


def test_malformed_json_is_400(api):
    resp = api.post("/v1/admin/stacks", data="{nope", content_type="application/json")
    body = _assert_fault(resp, 400, "HTTPBadRequest")
    assert "Expecting property name" in body["error"]["message"]


def test_body_over_max_json_body_size_is_request_limit_exceeded(api, settings):
    size = settings.max_json_body_size + 1
    resp = api.post("/v1/admin/stacks", data="{" + " " * (size - 2) + "}",
                    content_type="application/json")
    body = _assert_fault(resp, 400, "RequestLimitExceeded")
    assert body["error"]["message"] == (
        f"Request limit exceeded: JSON body size ({size} bytes) exceeds maximum allowed size "
        f"({settings.max_json_body_size} bytes).")


def test_schema_type_errors_are_400(api):
    resp = api.post("/v1/admin/stacks", json={"stack_name": "x", "template": {},
                                              "parameters": [1]})
    body = _assert_fault(resp, 400, "HTTPBadRequest")
    assert "parameters" in body["error"]["message"]


def test_unexpected_error_is_500_without_traceback(api, world, monkeypatch, caplog):
    def boom(*_a, **_k):
        raise KeyError("secret detail")
    monkeypatch.setattr(world, "get_stack", boom)
    monkeypatch.setattr(stacks, "get_stack", boom)
    with caplog.at_level(logging.ERROR):
        resp = api.get(BASE)
    body = _assert_fault(resp, 500, "HTTPInternalServerError")
    assert "secret" not in json.dumps(body)
    assert "Traceback" in caplog.text or any(r.exc_info for r in caplog.records)


def test_an_unreachable_database_is_a_503_that_may_be_retried(api, world, monkeypatch):
    import psycopg
    from sqlalchemy import exc as sa_exc

    def refused(*_a, **_k):
        try:
            psycopg.connect("postgresql://nobody@127.0.0.1:1/none", connect_timeout=2)
        except psycopg.OperationalError as exc:
            raise sa_exc.OperationalError("SELECT 1", {}, exc) from exc
    monkeypatch.setattr(world, "get_stack", refused)
    monkeypatch.setattr(stacks, "get_stack", refused)
    resp = api.get(BASE)
    body = _assert_fault(resp, 503, "DBConnectionError")
    assert body["title"] == "Service Unavailable"
    assert body["error"]["message"] == "The database is unavailable; try again later."
    assert resp.headers["Retry-After"] == "1"


def test_other_database_errors_stay_500(api, world, monkeypatch):
    from sqlalchemy import exc as sa_exc

    def integrity(*_a, **_k):
        raise sa_exc.IntegrityError("INSERT", {}, Exception("duplicate key"))
    monkeypatch.setattr(world, "get_stack", integrity)
    monkeypatch.setattr(stacks, "get_stack", integrity)
    _assert_fault(api.get(BASE), 500, "HTTPInternalServerError")


@pytest.mark.parametrize("exc,status,heat_type", [
    (errors.TemplateError("bad", heat_type="InvalidTemplateVersion"), 400,
     "InvalidTemplateVersion"),
    (errors.ParameterError("missing", heat_type="UserParameterMissing"), 400,
     "UserParameterMissing"),
    (errors.RequestLimitExceeded("too many"), 400, "RequestLimitExceeded"),
    (errors.Conflict("busy", heat_type="ActionInProgress"), 409, "ActionInProgress"),
    (errors.Forbidden("no"), 403, "Forbidden"),
])
def test_stoker_errors_keep_status_and_type(api, monkeypatch, exc, status, heat_type):
    def fail(*_a, **_k):
        raise exc
    monkeypatch.setattr(stacks, "list_stacks", fail)
    body = _assert_fault(api.get("/v1/admin/stacks"), status, heat_type)
    assert body["error"]["message"] == exc.message


def test_every_response_has_a_fresh_request_id(api):
    a = api.get("/v1/admin/stacks").headers["x-openstack-request-id"]
    b = api.get("/v1/admin/stacks").headers["x-openstack-request-id"]
    assert REQUEST_ID.match(a) and a != b


def test_noauth_context_from_headers_project_not_url(api, world):
    # heat's noauth middleware: the project is X-Auth-Project / X-Project-Id, else "admin";
    # the URL's tenant must be that project for non-admins (registered_policy_enforce)
    api.get("/v1/proj-1/stacks", headers={"X-Auth-Token": "anything", "X-User-Id": "u-1",
                                          "X-User-Name": "alice", "X-Roles": "member,reader",
                                          "X-Project-Id": "proj-1"})
    ctx = world.called("list_stacks")["ctx"]
    assert ctx.tenant_id == "proj-1" and ctx.user_id == "u-1" and ctx.username == "alice"
    assert ctx.roles == ("member", "reader") and ctx.auth_token == "anything"
    assert REQUEST_ID.match(ctx.request_id) and not ctx.is_admin
    api.get("/v1/proj-2/stacks")  # an admin (the default role): the URL's tenant is replaced
    ctx = world.called("list_stacks")["ctx"]
    assert (ctx.tenant_id, ctx.user_id, ctx.username, ctx.auth_token, ctx.is_admin) == (
        "admin", "admin", "admin", None, True)


def test_context_request_id_is_the_response_request_id(api, world):
    resp = api.get("/v1/admin/stacks")
    assert world.called("list_stacks")["ctx"].request_id == \
        resp.headers["x-openstack-request-id"]


def test_unknown_auth_strategy_is_refused_at_start(settings, world):
    from app.api import create_app
    from app.auth import AuthConfigError
    with pytest.raises(AuthConfigError, match="noauth, keystone, not 'kerberos'"):
        create_app(settings.replace(auth_strategy="kerberos"))


def test_status_lines_use_standard_reason_phrases(api):
    assert api.get("/v1/admin/stacks/cap1795939567").status == "302 Found"
    assert api.get("/").status == "300 Multiple Choices"
    assert api.get("/v1/admin/nowhere").status == "404 Not Found"


def test_json_body_rules_follow_heat(api, world):
    body = json.dumps({"stack_name": "plain", "template": {"heat_template_version": "2018-08-31"}})
    assert api.post("/v1/admin/stacks", data=body, content_type="text/plain").status_code == 201
    assert world.called("create_stack")["stack_name"] == "plain"
    resp = api.post("/v1/admin/stacks", data=body, content_type="application/x-www-form-urlencoded")
    assert resp.get_json()["error"]["message"] == "No stack name specified"


@pytest.mark.parametrize(("method", "path", "body"), [
    ("patch", BASE, "[]"), ("patch", BASE, '"str"'), ("put", BASE, "1"),
    ("post", f"{BASE}/snapshots", "[1]"), ("post", "/v1/admin/stacks", "[]"),
    ("post", f"{BASE}/actions", "null"), ("post", "/v1/admin/validate", '["x"]'),
])
def test_a_json_body_that_is_not_an_object_is_400(api, method, path, body):
    """Routes that read an object refuse any other JSON value with heat-api's HTTPBadRequest
    (before, ``[]`` read as no body: a PATCH ran a no-op update, a snapshot was taken)."""
    resp = getattr(api, method)(path, data=body, content_type="application/json")
    fault = _assert_fault(resp, 400, "HTTPBadRequest")
    assert "malformed or otherwise incorrect" in fault["error"]["message"]


def test_a_body_of_another_media_type_still_reads_as_no_body(api, monkeypatch):
    """heat-api's ``has_body``: a non-JSON Content-Type is no body at all, not a 400."""
    from app.services import snapshots
    names = []

    def create_snapshot(ctx, stack_name, stack_id, name):
        names.append(name)
        return {"id": "snap-1", "name": name, "status": "IN_PROGRESS"}
    monkeypatch.setattr(snapshots, "create_snapshot", create_snapshot)
    resp = api.post(f"{BASE}/snapshots", data="[1]", content_type="application/xml")
    assert resp.status_code == 200 and names == [None]  # the snapshot made, with no name read


def test_a_factory_outside_always_eager_needs_a_dispatcher(settings):
    """Without a dispatcher outside ``always_eager`` the API factories refuse to build
    (``NoDispatcher``, naming the served entry) instead of serving an API whose every create
    would fail; the served entries (``app.cli.wsgi``) hand them Celery's."""
    import app.api
    import app.cfn
    from app.cli import wsgi
    from app.convergence import runtime
    from app.tasks.dispatcher import CeleryDispatcher
    production = settings.replace(always_eager=False)
    for build in (app.api.create_app, app.cfn.create_app):
        with pytest.raises(errors.StokerError, match="app.cli.wsgi:create_app") as refused:
            build(production)
        assert refused.value.heat_type == "NoDispatcher"
    for entry in (wsgi.create_app, wsgi.create_cfn_app):
        runtime.configure(None)
        entry(production)
        assert isinstance(runtime.dispatcher(), CeleryDispatcher)
