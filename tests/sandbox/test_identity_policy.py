"""Keystone's policy answers in the sandbox for a project member (``demo``), as Keystone's
default policies give them: 403 ``You are not authorized to perform the requested action:
identity:<action>.`` where a member may not look (never an empty 200 that reads as "no such
thing"), and their own user, project, domain, projects and trusts readable."""
from __future__ import annotations

from typing import Any

import pytest
import requests
from openstack import exceptions


@pytest.fixture()
def keystone(sandbox: Any, demo_conn: Any) -> Any:
    """``keystone(method, path, token=None, **kw) -> (status, body)``; the demo user's token."""
    def call(method: str, path: str, token: str | None = None, **kwargs: Any) -> tuple[int, Any]:
        resp = requests.request(method, f"{sandbox.auth_url}{path}", timeout=10,
                                headers={"X-Auth-Token": token or demo_conn.auth_token,
                                         **kwargs.pop("headers", {})}, **kwargs)
        return resp.status_code, (resp.json() if resp.content else None)
    return call


def forbidden(action: str) -> dict[str, Any]:
    return {"error": {"code": 403, "title": "Forbidden",
                      "message": f"You are not authorized to perform the requested action: identity:{action}."}}


@pytest.mark.parametrize("path, action", [
    ("/roles?name=admin", "list_roles"), ("/roles", "list_roles"), ("/users", "list_users"),
    ("/projects", "list_projects"), ("/domains", "list_domains"),
    ("/role_assignments", "list_role_assignments"), ("/services", "list_services"),
    ("/endpoints", "list_endpoints"), ("/OS-TRUST/trusts", "list_trusts"),
])
def test_a_member_may_not_list(keystone: Any, path: str, action: str) -> None:
    assert keystone("GET", path) == (403, forbidden(action))


def test_the_issue_case_through_openstacksdk(demo_conn: Any, conn: Any) -> None:
    """``GET /v3/roles?name=...``: 403 for a member (a caller sees "not allowed", not "no such
    role"); the admin finds it."""
    with pytest.raises(exceptions.ForbiddenException):
        list(demo_conn.identity.roles(name="admin"))
    assert [r.name for r in conn.identity.roles(name="admin")] == ["admin"]


def test_a_member_reads_itself_its_project_and_its_domain(keystone: Any, sandbox: Any) -> None:
    ids = sandbox.admin("GET", "ids")["ids"]
    assert keystone("GET", f"/users/{ids['user:demo']}")[0] == 200
    assert keystone("GET", f"/projects/{ids['project:demo']}")[0] == 200
    assert keystone("GET", "/domains/default")[0] == 200
    status, out = keystone("GET", f"/users/{ids['user:demo']}/projects")
    assert status == 200 and [p["name"] for p in out["projects"]] == ["demo"]
    assert keystone("GET", "/regions")[0] == 200
    assert keystone("GET", f"/users/{ids['user:admin']}") == (403, forbidden("get_user"))
    assert keystone("GET", f"/projects/{ids['project:admin']}") == (403, forbidden("get_project"))
    assert keystone("GET", f"/roles/{ids['role:admin']}") == (403, forbidden("get_role"))
    assert keystone("GET", f"/users/{ids['user:admin']}/projects") == (403, forbidden("list_user_projects"))
    assert keystone("GET", f"/projects/{ids['project:demo']}/users/{ids['user:demo']}/roles") == (
        403, forbidden("list_grants"))
    assert keystone("HEAD", f"/projects/{ids['project:demo']}/users/{ids['user:demo']}/roles/"
                            f"{ids['role:member']}")[0] == 403
    assert keystone("POST", "/projects", json={"project": {"name": "mine"}}) == (
        403, forbidden("create_project"))


def test_trusts_are_for_their_trustor_and_trustee(keystone: Any, sandbox: Any, conn: Any) -> None:
    ids = sandbox.admin("GET", "ids")["ids"]
    trust = conn.identity.create_trust(trustor_user_id=ids["user:admin"], trustee_user_id=ids["user:stoker"],
                                       project_id=ids["project:admin"], roles=[{"name": "member"}],
                                       impersonation=False)
    try:
        assert keystone("GET", f"/OS-TRUST/trusts/{trust.id}") == (403, forbidden("get_trust"))
        assert keystone("GET", f"/OS-TRUST/trusts?trustor_user_id={ids['user:admin']}") == (
            403, forbidden("list_trusts_for_trustor"))
        status, out = keystone("GET", f"/OS-TRUST/trusts?trustee_user_id={ids['user:demo']}")
        assert status == 200 and out["trusts"] == []
        assert keystone("DELETE", f"/OS-TRUST/trusts/{trust.id}") == (403, forbidden("delete_trust"))
        assert keystone("GET", "/OS-TRUST/trusts/nope")[0] == 404
    finally:
        conn.identity.delete_trust(trust)


def test_a_member_validates_only_its_own_tokens(keystone: Any, demo_conn: Any, conn: Any) -> None:
    """Keystone's ``rule:token_subject``: a user may validate its own token; another user's
    needs admin or the ``service`` role (keystonemiddleware's user)."""
    mine = demo_conn.auth_token
    assert keystone("GET", "/auth/tokens", headers={"X-Subject-Token": mine})[0] == 200
    assert keystone("GET", "/auth/tokens", headers={"X-Subject-Token": conn.auth_token}) == (
        403, forbidden("validate_token"))
    assert keystone("HEAD", "/auth/tokens", headers={"X-Subject-Token": conn.auth_token})[0] == 403
    status, _ = keystone("GET", "/auth/tokens", token=conn.auth_token, headers={"X-Subject-Token": mine})
    assert status == 200
