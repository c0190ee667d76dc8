"""keystonemiddleware's auth_token, configured as a service would be, validates user tokens
against the sandbox's Keystone (GET /v3/auth/tokens with a service token)."""
from __future__ import annotations

import json

import pytest
from werkzeug.test import Client

auth_token = pytest.importorskip("keystonemiddleware.auth_token")


def echo_identity(environ, start_response):
    keys = ("HTTP_X_IDENTITY_STATUS", "HTTP_X_USER_NAME", "HTTP_X_PROJECT_ID", "HTTP_X_ROLES",
            "HTTP_X_TRUST_ID")
    start_response("200 OK", [("Content-Type", "application/json")])
    return [json.dumps({k: environ.get(k) for k in keys}).encode()]


@pytest.fixture(scope="module")
def protected(sandbox):
    conf = {"auth_type": "password", "auth_url": sandbox.auth_url, "username": "stoker", "password": "sandbox",
            "project_name": "service", "user_domain_name": "Default", "project_domain_name": "Default",
            "www_authenticate_uri": sandbox.auth_url, "delay_auth_decision": "false", "include_service_catalog": "true",
            "service_token_roles_required": "true", "log_name": "sandbox-test"}
    return Client(auth_token.AuthProtocol(echo_identity, conf))


def test_user_token_is_validated(protected, demo_conn):
    token = demo_conn.session.get_token()
    resp = protected.get("/", headers={"X-Auth-Token": token})
    assert resp.status_code == 200
    identity = resp.get_json()
    assert identity["HTTP_X_IDENTITY_STATUS"] == "Confirmed"
    assert identity["HTTP_X_USER_NAME"] == "demo" and identity["HTTP_X_PROJECT_ID"] == demo_conn.current_project_id
    assert "member" in identity["HTTP_X_ROLES"].split(",")


def test_bad_token_is_refused(protected):
    resp = protected.get("/", headers={"X-Auth-Token": "not-a-token"})
    assert resp.status_code == 401
    assert "Keystone uri=" in resp.headers.get("WWW-Authenticate", "")
