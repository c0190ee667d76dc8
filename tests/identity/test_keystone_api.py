"""The Orchestration API in keystone mode, against the sandbox's Keystone and a real one:
keystonemiddleware validates X-Auth-Token; Heat's fault bodies for 401 and 403; the tenant-local
rule; Heat's policy on every route; a trust per stack, stored encrypted, deleted with the stack.

Expected values follow heat-api: ``_policy_enforce`` (403 for another project's URL unless
``context_is_admin``), ``stack_get`` (another project's stack is not found, except for admins),
heat/policies/*.py (readers list and show, members create and delete).
"""
from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from tests.identity.conftest import World, unique

TEMPLATE = {"heat_template_version": "2018-08-31",
            "parameters": {"length": {"type": "number", "default": 8}},
            "resources": {"word": {"type": "OS::Heat::RandomString",
                                   "properties": {"length": {"get_param": "length"}}}},
            "outputs": {"value": {"value": {"get_attr": ["word", "value"]}}}}


def headers(token: str | None) -> dict[str, str]:
    return {"X-Auth-Token": token} if token is not None else {}


def create(api: Any, world: World, user: str = "alice", name: str | None = None) -> dict:
    token = world.token(user)
    project = world.project_of(user)
    resp = api.post(f"/v1/{project}/stacks", headers=headers(token),
                    json={"stack_name": name or unique("s"), "template": TEMPLATE})
    assert resp.status_code == 201, resp.get_json()
    stack = resp.get_json()["stack"]
    show = api.get(f"/v1/{project}/stacks/{stack['id']}", headers=headers(token),
                   follow_redirects=True)
    assert show.status_code == 200
    body = show.get_json()["stack"]
    return {"id": body["id"], "name": body["stack_name"], "project": project, "token": token,
            "status": body["stack_status"]}


NO_SNAPSHOT = "00000000-0000-0000-0000-000000000000"


def routes(project: str, st: dict, events: list[str] | None = None) -> list[tuple[str, str, Any]]:
    """(method, path, body) for every route of the API under ``/v1/{project}`` (``st``: a
    stack of that project, or ids that are not this project's)."""
    s = f"/v1/{project}/stacks/{st['name']}/{st['id']}"
    body = {"stack_name": unique("x"), "template": TEMPLATE}
    event = (events or ["none"])[0]
    arn = f"arn:openstack:heat::{project}:stacks/{st['name']}/{st['id']}"
    return [
        ("GET", f"/v1/{project}/stacks", None),
        ("POST", f"/v1/{project}/stacks", body),
        ("POST", f"/v1/{project}/stacks/preview", body),
        ("GET", f"/v1/{project}/stacks/detail", None),
        ("GET", f"/v1/{project}/stacks/{st['name']}", None),
        ("GET", f"/v1/{project}/stacks/{arn}", None),
        ("GET", s, None),
        ("PUT", s, {"template": TEMPLATE}),
        ("PATCH", s, {"parameters": {"length": 9}}),
        ("DELETE", s, None),
        ("GET", f"{s}/template", None),
        ("GET", f"{s}/environment", None),
        ("GET", f"{s}/files", None),
        ("PUT", f"{s}/preview", {"template": TEMPLATE}),
        ("PATCH", f"{s}/preview", {"parameters": {"length": 10}}),
        ("GET", f"{s}/outputs", None),
        ("GET", f"{s}/outputs/value", None),
        ("GET", f"{s}/resources", None),
        ("GET", f"{s}/resources/word", None),
        ("GET", f"{s}/events", None),
        ("GET", f"{s}/resources/word/events", None),
        ("GET", f"{s}/resources/word/events/{event}", None),
        ("GET", f"{s}/live/graph", None),
        ("GET", f"{s}/live/events", None),
        ("POST", f"/v1/{project}/validate", {"template": TEMPLATE}),
        ("GET", f"/v1/{project}/template_versions", None),
        ("GET", f"/v1/{project}/template_versions/heat_template_version.2018-08-31/functions",
         None),
        ("GET", f"/v1/{project}/resource_types", None),
        ("GET", f"/v1/{project}/resource_types/OS::Heat::RandomString", None),
        ("GET", f"/v1/{project}/resource_types/OS::Heat::RandomString/template", None),
        ("GET", f"/v1/{project}/build_info", None),
        ("GET", f"/v1/{project}/services", None),
        ("POST", f"{s}/actions", {"check": None}),
        ("PATCH", f"{s}/resources/word", {"mark_unhealthy": False}),
        ("GET", f"{s}/resources/word/metadata", None),
        ("POST", f"{s}/resources/word/signal", None),
        ("GET", f"{s}/snapshots", None),
        ("POST", f"{s}/snapshots", {"name": "snap"}),
        ("GET", f"{s}/snapshots/{NO_SNAPSHOT}", None),
        ("DELETE", f"{s}/snapshots/{NO_SNAPSHOT}", None),
        ("POST", f"{s}/snapshots/{NO_SNAPSHOT}/restore", None),
        ("DELETE", f"{s}/abandon", None),
        ("GET", f"{s}/export", None),
        ("GET", f"/v1/{project}/software_configs", None),
        ("POST", f"/v1/{project}/software_configs", {"name": "c", "group": "script",
                                                     "config": "#!/bin/sh"}),
        ("GET", f"/v1/{project}/software_configs/{NO_SNAPSHOT}", None),
        ("DELETE", f"/v1/{project}/software_configs/{NO_SNAPSHOT}", None),
        ("GET", f"/v1/{project}/software_deployments", None),
        ("POST", f"/v1/{project}/software_deployments", {"config_id": NO_SNAPSHOT,
                                                         "server_id": NO_SNAPSHOT}),
        ("GET", f"/v1/{project}/software_deployments/{NO_SNAPSHOT}", None),
        ("PUT", f"/v1/{project}/software_deployments/{NO_SNAPSHOT}", {"status": "COMPLETE"}),
        ("DELETE", f"/v1/{project}/software_deployments/{NO_SNAPSHOT}", None),
        ("GET", f"/v1/{project}/software_deployments/metadata/{NO_SNAPSHOT}", None),
        # Stoker's routes beyond Heat
        ("POST", f"/v1/{project}/change_sets", {"stack_name": unique("c"), "name": "c",
                                                 "template": TEMPLATE}),
        ("GET", f"{s}/change_sets", None),
        ("POST", f"{s}/change_sets", {"name": "c", "template": TEMPLATE}),
        ("GET", f"{s}/change_sets/c", None),
        ("DELETE", f"{s}/change_sets/c", None),
        ("POST", f"{s}/change_sets/c/execute", None),
        ("GET", f"{s}/termination_protection", None),
        ("PUT", f"{s}/termination_protection", {"termination_protection": False}),
        ("GET", f"{s}/policy", None),
        ("PUT", f"{s}/policy", {"stack_policy": {"Statement": [
            {"Effect": "Allow", "Action": "Update:*", "Principal": "*", "Resource": "*"}]}}),
        ("GET", f"{s}/drift", None),
        ("POST", f"{s}/drift", None),
        ("GET", f"{s}/drift/{NO_SNAPSHOT}", None),
        ("POST", f"{s}/drift/{NO_SNAPSHOT}/revert", None),
        ("POST", f"{s}/drift/{NO_SNAPSHOT}/revert/preview", None),
        ("GET", f"{s}/timeline", None),
        ("GET", f"/v1/{project}/exports", None),
    ]


def call(api: Any, method: str, path: str, body: Any, token: str | None) -> Any:
    return api.open(path, method=method, json=body, headers=headers(token))


def assert_fault(resp: Any, code: int, heat_type: str) -> None:
    assert resp.status_code == code, (resp.status_code, resp.get_data(as_text=True)[:300])
    fault = resp.get_json()
    assert fault["code"] == code and fault["title"] in ("Unauthorized", "Forbidden")
    assert fault["error"]["type"] == heat_type and fault["error"]["message"]
    assert set(fault) == {"code", "title", "explanation", "error"}


def test_the_matrix_covers_every_route(api, world):
    """The matrix below walks every ``/v1/{tenant_id}`` route and method of the API."""
    from flask import Flask
    app: Flask = api.application
    wanted = {(m, r.rule) for r in app.url_map.iter_rules() if "<tenant_id>" in r.rule
              for m in (r.methods or set()) - {"HEAD", "OPTIONS"}}
    covered = set()
    st = {"name": "n", "id": "i"}
    for method, path, _ in routes("p", st):
        with app.test_request_context(path, method=method):
            from flask import request
            covered.add((method, request.url_rule.rule))
    # the lookup forms accept every method; one of them is enough to show the rule guards it
    lookups = {(m, r) for m, r in wanted if r.endswith(("<stack_name>", "<arn:stack_arn>"))
               and m != "GET"}
    sub = {("POST", "/v1/<tenant_id>/stacks/<stack_name>/<stack_id>")}
    assert wanted - covered == lookups | sub


def test_no_token_and_a_bad_token_are_401_on_every_route(api, world):
    project = world.projects["alpha"]
    for method, path, body in routes(project, {"name": "n", "id": "i"}):
        for token in (None, "not-a-token", "gAAAAABmalformed" + "x" * 100):
            resp = call(api, method, path, body, token)
            assert_fault(resp, 401, "HTTPUnauthorized")
            assert resp.headers["WWW-Authenticate"].startswith("Keystone uri=")


def test_versions_need_no_token(api, world):
    assert api.get("/").status_code == 300
    assert api.get("/v1/").status_code == 300


def test_another_projects_url_is_403_on_every_route(api, world):
    stack = create(api, world)
    bob = world.token("bob")
    for method, path, body in routes(stack["project"], stack):
        assert_fault(call(api, method, path, body, bob), 403, "HTTPForbidden")


def test_another_projects_stack_is_not_found(api, world):
    stack = create(api, world)
    bob, beta = world.token("bob"), world.projects["beta"]
    checked = 0
    for method, path, body in routes(beta, stack):
        if f"/{stack['id']}" not in path and stack["name"] not in path or ":stacks/" in path:
            continue  # an ARN redirects to its own project's URL, where bob gets 403
        if path.endswith(("/abandon", "/export")):
            continue  # off by default: Heat's NotSupported comes before the stack's lookup
        resp = call(api, method, path, body, bob)
        assert resp.status_code == 404, (method, path, resp.status_code)
        checked += 1
    assert checked == 43
    # the stack is untouched by all of that
    resp = api.get(f"/v1/{stack['project']}/stacks/{stack['name']}/{stack['id']}",
                   headers=headers(stack["token"]))
    assert resp.get_json()["stack"]["stack_status"] == "CREATE_COMPLETE"


def test_a_reader_lists_and_shows_but_may_not_change(api, world):
    stack = create(api, world)
    rita = world.token("rita")
    s = f"/v1/{stack['project']}/stacks/{stack['name']}/{stack['id']}"
    assert api.get(f"/v1/{stack['project']}/stacks", headers=headers(rita)).status_code == 200
    assert api.get(s, headers=headers(rita)).status_code == 200
    assert api.get(f"{s}/resources", headers=headers(rita)).status_code == 200
    refused = [("POST", f"/v1/{stack['project']}/stacks",
                {"stack_name": unique("r"), "template": TEMPLATE}),
               ("DELETE", s, None), ("PATCH", s, {"parameters": {"length": 3}}),
               ("POST", f"/v1/{stack['project']}/validate", {"template": TEMPLATE})]
    for method, path, body in refused:
        assert_fault(call(api, method, path, body, rita), 403, "HTTPForbidden")
    names = [x["stack_name"] for x in api.get(f"/v1/{stack['project']}/stacks",
                                              headers=headers(rita)).get_json()["stacks"]]
    assert stack["name"] in names and len(names) == len(set(names))


def test_admins_see_every_project(api, world):
    stack = create(api, world)
    admin, admin_project = world.token("admin"), world.projects["admin"]
    # context_is_admin: another project's stack by id, and the global listing
    resp = api.get(f"/v1/{admin_project}/stacks/{stack['name']}/{stack['id']}",
                   headers=headers(admin))
    assert resp.status_code == 200 and resp.get_json()["stack"]["id"] == stack["id"]
    alice = world.token("alice")
    assert_fault(api.get(f"/v1/{stack['project']}/stacks?global_tenant=true",
                         headers=headers(alice)), 403, "HTTPForbidden")


def test_a_revoked_token_is_401_at_once(api, world):
    token = world.token("alice")
    project = world.projects["alpha"]
    assert api.get(f"/v1/{project}/stacks", headers=headers(token)).status_code == 200
    world.revoke(token)
    assert_fault(api.get(f"/v1/{project}/stacks", headers=headers(token)), 401,
                 "HTTPUnauthorized")


def test_a_token_of_a_deleted_project_is_401(api, world):
    kc = world.admin()
    roles = {r.name: r for r in kc.roles.list()}
    project = kc.projects.create(unique("gone"), domain="default")
    user = kc.users.create(unique("carl"), domain="default", password="sandbox",
                           default_project=project)
    kc.roles.grant(roles["member"], user=user, project=project)
    kc.roles.grant(roles["reader"], user=user, project=project)
    from keystoneauth1 import session
    from keystoneauth1.identity import v3
    token = session.Session(auth=v3.Password(
        auth_url=world.auth_url, username=user.name, password="sandbox", user_domain_id="default",
        project_id=project.id)).get_token()
    assert api.get(f"/v1/{project.id}/stacks", headers=headers(token)).status_code == 200
    kc.projects.update(project, enabled=False)
    kc.projects.delete(project)
    assert_fault(api.get(f"/v1/{project.id}/stacks", headers=headers(token)), 401,
                 "HTTPUnauthorized")


def _stored_trust(stack_id: str) -> Any:
    from app.models import UserCreds, read_session
    with read_session() as s:
        return s.execute(select(UserCreds).where(UserCreds.stack_id == stack_id)).scalar()


def test_a_trust_lives_as_long_as_its_stack_and_is_stored_encrypted(api, world, ks_settings):
    from app.auth import crypto
    stack = create(api, world)
    assert stack["status"] == "CREATE_COMPLETE"
    row = _stored_trust(stack["id"])
    trust_id = crypto.decrypt(ks_settings.auth_encryption_key, row.trust_id)
    assert trust_id not in row.trust_id and len(trust_id) == 32
    assert row.trustor_user_id == world.users["alice"][0]
    assert world.trust_exists(trust_id)
    from keystoneclient.v3 import client
    trust = client.Client(session=world.session("alice")).trusts.get(trust_id)
    assert trust.trustee_user_id == _service_user_id(world)
    assert trust.impersonation is True and trust.project_id == stack["project"]
    assert {r["name"] for r in trust.roles} >= {"member", "reader"}
    resp = api.delete(f"/v1/{stack['project']}/stacks/{stack['name']}/{stack['id']}",
                      headers=headers(world.token("alice")))
    assert resp.status_code == 204
    show = api.get(f"/v1/{stack['project']}/stacks/{stack['id']}",
                   headers=headers(world.token("alice")), follow_redirects=True)
    assert show.get_json()["stack"]["stack_status"] == "DELETE_COMPLETE"
    assert not world.trust_exists(trust_id)
    assert _stored_trust(stack["id"]) is None


def _service_user_id(world: World) -> str:
    kc = world.admin()
    return str(next(u.id for u in kc.users.list(name="stoker")))


def test_the_trust_scoped_session_acts_as_the_owner_after_the_token_is_revoked(
        api, world, ks_settings):
    from app.auth import crypto
    from app.clients import trust_session
    stack = create(api, world)
    world.revoke(stack["token"])
    trust_id = crypto.decrypt(ks_settings.auth_encryption_key, _stored_trust(stack["id"]).trust_id)
    sess = trust_session(ks_settings, trust_id)
    assert sess.get_user_id() == world.users["alice"][0]  # impersonation
    assert sess.get_project_id() == stack["project"]


@pytest.fixture
def service(world: World) -> Any:
    """A cloud service's URL that checks each request's X-Auth-Token with Keystone as
    keystonemiddleware does (Keystone's ``GET /v3/auth/tokens`` with the admin's token): 200 for
    a token Keystone honours, 401 for any other (Keystone itself may answer 404 TrustNotFound
    for a deleted trust's token; a service answers 401)."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    admin = world.session("admin")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            token = self.headers.get("X-Auth-Token", "")
            check = admin.get(f"{world.auth_url}/auth/tokens", raise_exc=False,
                              headers={"X-Subject-Token": token})
            self.send_response(200 if check.status_code == 200 else 401)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v2.0/networks"
    server.shutdown()
    server.server_close()


def _session_of_a_deleted_trust(api, world, ks_settings) -> tuple[str, Any]:
    """A new stack's trust id and a trust-scoped session that took a token before the trust
    was deleted."""
    from app.auth import crypto
    from app.clients import trust_session
    stack = create(api, world)
    trust_id = crypto.decrypt(ks_settings.auth_encryption_key, _stored_trust(stack["id"]).trust_id)
    sess = trust_session(ks_settings, trust_id)
    sess.get_token()
    world.admin().trusts.delete(trust_id)
    return trust_id, sess


def test_a_deleted_trust_fails_a_raw_request_with_the_trusts_name(api, world, ks_settings,
                                                                   service):
    """A trust deleted after its session took a token: Keystone revokes that token, the next
    request answers 401 and the session re-authenticates once, which Keystone refuses. That must
    surface as the trust's own error, also for raw REST calls (keystoneauth's ``raise_exc``)."""
    from keystoneauth1 import exceptions as ksa_exc
    trust_id, sess = _session_of_a_deleted_trust(api, world, ks_settings)
    with pytest.raises(ksa_exc.Unauthorized, match=f"trust {trust_id} is not valid"):
        sess.get(service)


def test_a_deleted_trust_is_named_to_every_thread_that_held_its_token(api, world, ks_settings,
                                                                      service, monkeypatch):
    """Threads of a worker share a trust's session. When Keystone revokes its token, the first
    thread's 401 invalidates the token and re-authenticates; a second thread's 401 then finds it
    invalidated already (keystoneauth's ``invalidate()`` answers False, so keystoneauth itself does
    not retry). That thread must still report the trust, not a bare 401 ("requires
    authentication") — the message a stack delete showed in CI."""
    from keystoneauth1 import exceptions as ksa_exc
    trust_id, sess = _session_of_a_deleted_trust(api, world, ks_settings)
    plugin, calls = sess.auth, []
    original = plugin.invalidate

    def another_thread_invalidated_it_first() -> bool:
        calls.append(1)
        if len(calls) == 1:
            plugin.auth_ref = None
            return False
        return bool(original())
    monkeypatch.setattr(plugin, "invalidate", another_thread_invalidated_it_first)
    with pytest.raises(ksa_exc.Unauthorized, match=f"trust {trust_id} is not valid"):
        sess.get(service)
    assert calls, "the 401 reached keystoneauth's re-authentication"


def test_a_failed_trust_leaves_no_stack(api, world, ks_settings, monkeypatch):
    """A role the user does not hold cannot be delegated: 403 from Keystone, no stack row."""
    from app import config
    from app.models import Stack, read_session
    monkeypatch.setattr(config, "_current", ks_settings.replace(trusts_delegated_roles="admin"))
    token, project = world.token("alice"), world.projects["alpha"]
    name = unique("nope")
    resp = api.post(f"/v1/{project}/stacks", headers=headers(token),
                    json={"stack_name": name, "template": TEMPLATE})
    assert resp.status_code in (400, 403), resp.get_json()
    assert "Could not create a trust" in resp.get_json()["error"]["message"]
    with read_session() as s:
        assert s.execute(select(Stack).where(Stack.name == name)).first() is None


def test_spoofed_identity_headers_are_ignored(api, world):
    project = world.projects["alpha"]
    spoof = {"X-Identity-Status": "Confirmed", "X-User-Id": "x", "X-Project-Id": project,
             "X-Roles": "admin,member,reader"}
    assert_fault(api.get(f"/v1/{project}/stacks", headers=spoof), 401, "HTTPUnauthorized")
    spoof["X-Auth-Token"] = world.token("rita")
    resp = api.post(f"/v1/{project}/stacks", headers=spoof,
                    json={"stack_name": unique("sp"), "template": TEMPLATE})
    assert_fault(resp, 403, "HTTPForbidden")  # rita is a reader, whatever X-Roles says


def test_a_validated_token_is_trusted_for_token_cache_time(api, ks_settings, world):
    """keystonemiddleware keeps a token it validated for ``token_cache_time`` seconds (300,
    its and Heat's default) in the process that validated it: revoked meanwhile, it is still
    accepted there; another process (here: a fresh app) asks Keystone again and gets a 401."""
    from app.api import create_app
    cached = create_app(ks_settings.replace(token_cache_time=300)).test_client()
    token, project = world.token("alice"), world.projects["alpha"]
    assert cached.get(f"/v1/{project}/stacks", headers=headers(token)).status_code == 200
    world.revoke(token)
    assert cached.get(f"/v1/{project}/stacks", headers=headers(token)).status_code == 200
    fresh = create_app(ks_settings.replace(token_cache_time=300)).test_client()
    assert_fault(fresh.get(f"/v1/{project}/stacks", headers=headers(token)), 401,
                 "HTTPUnauthorized")
