"""Policy answers and URL forms of the sandbox's Nova and Cinder, as the real services give them
to a project member: Nova refuses ``all_tenants`` and operator APIs with 403 naming its policy
rule (``Policy doesn't allow os_compute_api:... to be performed.``); Cinder ignores a member's
``all_tenants`` (its own volumes, 200) and accepts URLs with the project in them
(``/v3/{project_id}/volumes``), refusing another project's with 400 "Malformed request url"."""
from __future__ import annotations

from typing import Any

import pytest
import requests


@pytest.fixture()
def api(sandbox: Any, demo_conn: Any) -> Any:
    """``api(method, path, **kw) -> (status, body)`` as the demo member."""
    def call(method: str, path: str, **kwargs: Any) -> tuple[int, Any]:
        resp = requests.request(method, sandbox.url + path, timeout=10,
                                headers={"X-Auth-Token": demo_conn.auth_token}, **kwargs)
        return resp.status_code, (resp.json() if resp.content else None)
    return call


def nova_forbidden(rule: str) -> dict[str, Any]:
    return {"forbidden": {"code": 403, "message": f"Policy doesn't allow os_compute_api:{rule} to be performed."}}


@pytest.mark.parametrize("path, rule", [
    ("/compute/v2.1/servers?all_tenants=1", "servers:index:get_all_tenants"),
    ("/compute/v2.1/servers/detail?all_tenants=True", "servers:detail:get_all_tenants"),
    ("/compute/v2.1/os-hypervisors", "os-hypervisors:list"),
    ("/compute/v2.1/os-hypervisors/detail", "os-hypervisors:list-detail"),
    ("/compute/v2.1/os-services", "os-services:list"),
    ("/compute/v2.1/os-aggregates", "os-aggregates:index"),
])
def test_nova_refuses_a_member_naming_the_rule(api: Any, path: str, rule: str) -> None:
    assert api("GET", path) == (403, nova_forbidden(rule))


def test_nova_quota_of_another_project(api: Any, sandbox: Any) -> None:
    ids = sandbox.admin("GET", "ids")["ids"]
    assert api("GET", f"/compute/v2.1/os-quota-sets/{ids['project:admin']}") == (
        403, nova_forbidden("os-quota-sets:show"))
    assert api("GET", f"/compute/v2.1/os-quota-sets/{ids['project:demo']}")[0] == 200
    assert api("GET", "/compute/v2.1/servers?all_tenants=0")[0] == 200


def test_cinder_with_the_project_in_the_url(no_leaks: Any, api: Any, sandbox: Any, demo_conn: Any) -> None:
    ids = sandbox.admin("GET", "ids")["ids"]
    mine, theirs = ids["project:demo"], ids["project:admin"]
    status, out = api("POST", f"/volume/v3/{mine}/volumes", json={"volume": {"size": "1", "name": "pv"}})
    assert status == 202 and out["volume"]["size"] == 1
    vol = out["volume"]["id"]
    assert api("GET", f"/volume/v3/{mine}/volumes/{vol}")[1]["volume"]["name"] == "pv"
    assert [v["id"] for v in api("GET", "/volume/v3/volumes?all_tenants=1")[1]["volumes"]] == [vol]
    assert api("GET", f"/volume/v3/{theirs}/volumes") == (
        400, {"badRequest": {"code": 400, "message": "Malformed request url"}})
    assert api("GET", f"/volume/v3/{mine}/types")[0] == 200
    demo_conn.block_storage.wait_for_status(demo_conn.block_storage.get_volume(vol), "available", wait=5)
    assert api("DELETE", f"/volume/v3/{mine}/volumes/{vol}")[0] == 202
