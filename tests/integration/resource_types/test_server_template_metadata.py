"""A software-config server's template ``metadata`` (Heat's ``self.t.metadata()``, the first
live metadata of a resource) stays in its live metadata beside ``deployments`` and
``os-collect-config`` (server_base ``_populate_deployments_metadata`` adds to
``metadata_get(True)``); Heat's ``Server.validate`` refuses a ``deployments`` key there for
``user_data_format: SOFTWARE_CONFIG``. Through the API in noauth mode (SQLite, in-process)."""
from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture()
def api(db):  # type: ignore[no-untyped-def]
    from app.api import create_app
    return create_app(db).test_client()


def test_a_deployed_servers_template_metadata_is_kept_beside_its_deployments(api):
    template = {"heat_template_version": "2018-08-31", "resources": {
        "word": {"type": "OS::Heat::Value", "properties": {"value": "blue"}},
        "server": {"type": "OS::Heat::DeployedServer",
                   "metadata": {"role": "web", "colour": {"get_attr": ["word", "value"]}}}}}
    resp = api.post("/v1/admin/stacks", json={"stack_name": "tm", "template": template})
    assert resp.status_code == 201, resp.get_json()
    base = f"/v1/admin/stacks/tm/{resp.get_json()['stack']['id']}"
    st = api.get(base).get_json()["stack"]
    assert st["stack_status"] == "CREATE_COMPLETE", st["stack_status_reason"]
    meta = api.get(f"{base}/resources/server/metadata").get_json()["metadata"]
    assert set(meta) == {"role", "colour", "deployments", "os-collect-config"}
    assert (meta["role"], meta["colour"], meta["deployments"]) == ("web", "blue", [])
    assert meta["os-collect-config"]["collectors"] == ["cfn", "local"]


def _server(fmt: str) -> dict[str, Any]:
    return {"heat_template_version": "2018-08-31", "resources": {"server": {
        "type": "OS::Nova::Server", "metadata": {"deployments": []},
        "properties": {"image": "cirros", "flavor": "m1.tiny", "user_data_format": fmt}}}}


def test_deployments_in_a_software_config_servers_template_metadata_is_refused(api):
    resp = api.post("/v1/admin/stacks", json={"stack_name": "dm",
                                              "template": _server("SOFTWARE_CONFIG")})
    assert resp.status_code == 400, resp.get_json()
    error = resp.get_json()["error"]
    assert error["type"] == "StackValidationFailed"
    assert error["message"] == ("deployments key not allowed in resource metadata with "
                                "user_data_format of SOFTWARE_CONFIG")
    assert api.get("/v1/admin/stacks").get_json()["stacks"] == []
    # /validate runs no resource's own validate() (Heat's validate_template checks the
    # template only)
    for fmt in ("RAW", "SOFTWARE_CONFIG"):
        resp = api.post("/v1/admin/validate", json={"template": _server(fmt)})
        assert resp.status_code == 200, resp.get_json()
