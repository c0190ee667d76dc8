"""OS::Heat::DeployedServer through the API in noauth mode: no cloud call, the uuid as physical
id, the transport's os-collect-config in its live metadata and attribute (Heat's
server_base._populate_deployments_metadata), a transport update, delete."""
from __future__ import annotations

import re
from typing import Any

import pytest


@pytest.fixture()
def api(db):  # type: ignore[no-untyped-def]
    from app.api import create_app
    return create_app(db).test_client()


def _template(transport: str | None = None, name: str | None = None) -> dict[str, Any]:
    props: dict[str, Any] = {}
    if transport:
        props["software_config_transport"] = transport
    if name:
        props["name"] = name
    return {"heat_template_version": "2018-08-31",
            "resources": {"server": {"type": "OS::Heat::DeployedServer", "properties": props}},
            "outputs": {"occ": {"value": {"get_attr": ["server", "os_collect_config"]}},
                        "name": {"value": {"get_attr": ["server", "name"]}}}}


def _outputs(api: Any, base: str) -> dict[str, Any]:
    st = api.get(base).get_json()["stack"]
    assert st["stack_status"].endswith("_COMPLETE"), st["stack_status_reason"]
    return {o["output_key"]: o.get("output_value") for o in st["outputs"]}


def test_poll_server_cfn_is_the_default(api):
    resp = api.post("/v1/admin/stacks", json={"stack_name": "ds", "template": _template()})
    assert resp.status_code == 201, resp.get_json()
    stack_id = resp.get_json()["stack"]["id"]
    base = f"/v1/admin/stacks/ds/{stack_id}"
    outs = _outputs(api, base)
    occ = outs["occ"]
    assert occ["collectors"] == ["cfn", "local"]
    assert occ["cfn"]["metadata_url"] == "http://127.0.0.1:8000/v1/"
    assert occ["cfn"]["stack_name"] == "ds" and occ["cfn"]["path"] == "server.Metadata"
    assert re.fullmatch(r"[0-9a-f]{32}", occ["cfn"]["access_key_id"])
    assert occ["cfn"]["secret_access_key"]
    assert re.fullmatch(r"ds-server-[a-z2-7]{12}", outs["name"])
    res = api.get(f"{base}/resources/server").get_json()["resource"]
    assert re.fullmatch(r"[0-9a-f-]{36}", res["physical_resource_id"])
    meta = api.get(f"{base}/resources/server/metadata").get_json()["metadata"]
    assert meta == {"deployments": [], "os-collect-config": occ}

    # a new transport: Heat sets the old transport's keys to None and adds the new one's
    resp = api.patch(base, json={"template": _template("POLL_SERVER_HEAT", "box")})
    assert resp.status_code == 202, resp.get_json()
    outs = _outputs(api, base)
    occ = outs["occ"]
    assert occ["collectors"] == ["heat", "local"]
    assert set(occ["cfn"].values()) == {None}
    heat = occ["heat"]
    assert heat["stack_id"] == f"ds/{stack_id}" and heat["resource_name"] == "server"
    assert heat["project_id"] == "admin" and heat["password"] and heat["user_id"]
    assert heat["region_name"] == "RegionOne"
    assert outs["name"] == "box"
    assert api.delete(base).status_code == 204
    assert api.get(base).get_json()["stack"]["stack_status"] == "DELETE_COMPLETE"


def test_transports_without_a_service_here_poll_locally(api):
    for transport in ("POLL_TEMP_URL",):   # ZAQAR_MESSAGE: tests/types_api/test_zaqar_signals.py
        name = f"ds-{transport.lower().replace('_', '-')}"
        resp = api.post("/v1/admin/stacks", json={"stack_name": name,
                                                  "template": _template(transport)})
        assert resp.status_code == 201, resp.get_json()
        outs = _outputs(api, f"/v1/admin/stacks/{name}/{resp.get_json()['stack']['id']}")
        assert outs["occ"] == {"collectors": ["local"]}
