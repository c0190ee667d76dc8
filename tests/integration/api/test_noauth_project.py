"""noauth mode: one view of a project. As heat's noauth middleware
(``heat/common/noauth.py``: the project is ``X-Auth-Project``, default ``admin``) and heat-api's
``registered_policy_enforce`` (an admin's URL tenant is replaced by its own project; a non-admin
naming another project gets 403), ``/v1/admin`` (the README's URL) and ``/v1/<project id>`` (the
sandbox catalog's endpoint) reach the same stacks."""
from __future__ import annotations

from typing import Any

T = {"heat_template_version": "2018-08-31",
     "resources": {"v": {"type": "OS::Heat::Value", "properties": {"value": 1}}}}
PROJECT_ID = "5f0c3b0e8a2d4b7f9e61c2a4d8b0e1f3"  # what the sandbox catalog puts in the URL


def _create(client: Any, url: str, name: str, **headers: str) -> Any:
    resp = client.post(f"{url}/stacks", json={"stack_name": name, "template": T},
                       headers=headers)
    assert resp.status_code == 201, resp.get_json()
    return resp


def _names(client: Any, url: str, **headers: str) -> list[str]:
    resp = client.get(f"{url}/stacks", headers=headers)
    assert resp.status_code == 200, resp.get_json()
    return sorted(s["stack_name"] for s in resp.get_json()["stacks"])


def test_the_readme_url_and_the_catalog_url_show_the_same_stacks(client):
    _create(client, "/v1/admin", "from-readme")
    _create(client, f"/v1/{PROJECT_ID}", "from-catalog")
    assert _names(client, "/v1/admin") == _names(client, f"/v1/{PROJECT_ID}") == [
        "from-catalog", "from-readme"]


def test_links_name_the_stack_project_and_lookups_work_from_either_url(client):
    resp = _create(client, f"/v1/{PROJECT_ID}", "linked")
    assert "/v1/admin/stacks/linked/" in resp.headers["Location"]
    found = client.get(f"/v1/{PROJECT_ID}/stacks/linked")
    assert found.status_code == 302 and "/v1/admin/stacks/linked/" in found.headers["Location"]
    stack_id = resp.get_json()["stack"]["id"]
    shown = client.get(f"/v1/{PROJECT_ID}/stacks/linked/{stack_id}").get_json()["stack"]
    assert shown["id"] == stack_id and shown["stack_status"] == "CREATE_COMPLETE"


def test_a_project_header_selects_another_project(client):
    _create(client, "/v1/admin", "in-admin")
    _create(client, "/v1/beta", "in-beta", **{"X-Auth-Project": "beta"})
    member = {"X-Roles": "member"}
    assert _names(client, "/v1/admin", **member) == ["in-admin"]
    assert _names(client, "/v1/beta", **member, **{"X-Project-Id": "beta"}) == ["in-beta"]
    # an admin's list has every project's stacks, each naming its project (Heat: the tenant
    # filter is skipped for context_is_admin, include_project)
    listed = client.get("/v1/admin/stacks").get_json()["stacks"]
    assert sorted((s["stack_name"], s["project"]) for s in listed) == [
        ("in-admin", "admin"), ("in-beta", "beta")]


def test_a_non_admin_on_another_project_url_is_forbidden(client):
    member = {"X-Roles": "member", "X-Project-Id": "beta"}
    resp = client.get("/v1/admin/stacks", headers=member)
    body = resp.get_json()
    assert resp.status_code == 403 and body["error"]["type"] == "HTTPForbidden"
    assert client.get("/v1/beta/stacks", headers=member).status_code == 200


def test_a_non_admin_does_not_see_another_project_stack_by_id(client):
    resp = _create(client, "/v1/admin", "private")
    stack_id = resp.get_json()["stack"]["id"]
    member = {"X-Roles": "member", "X-Project-Id": "beta"}
    got = client.get(f"/v1/beta/stacks/private/{stack_id}", headers=member)
    assert got.status_code == 404 and got.get_json()["error"]["type"] == "EntityNotFound"
