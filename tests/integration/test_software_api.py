"""The software_configs and software_deployments API on PostgreSQL (no workers needed): Heat's
shapes (heat/engine/api.py ``format_software_config`` / ``format_software_deployment``), status
codes (create 200, delete 204), 404 ``NotFound`` with Heat's wording for unknown ids
(heat/db/api.py), 400 for bad bodies, and a deployment's derived config in its server's
metadata list sorted by config name (service_software_config.py)."""
from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.integration
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


@pytest.fixture()
def api(engine_settings):  # type: ignore[no-untyped-def]
    from app.cli.wsgi import create_app
    client = create_app(engine_settings).test_client()
    client.environ_base["HTTP_X_PROJECT_ID"] = "sw"
    client.environ_base["HTTP_X_ROLES"] = "member"   # not an admin: sees its project's only
    return client


def _config(api, **body):  # type: ignore[no-untyped-def]
    resp = api.post("/v1/sw/software_configs", json=body)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["software_config"]


def test_an_empty_body_makes_an_empty_config(api):
    created = _config(api)  # as Heat 27 answers POST {}
    assert {k: created[k] for k in ("name", "group", "config", "inputs", "outputs",
                                    "options")} == {"name": None, "group": None, "config": None,
                                                    "inputs": [], "outputs": [], "options": {}}


def test_config_create_show_list_delete(api):
    created = _config(api, name="c1", group="script", config="#!/bin/sh\necho hi",
                      inputs=[{"name": "foo"}, {"name": "bar", "type": "Number", "default": 1,
                                                "replace_on_change": True}],
                      outputs=[{"name": "result", "description": "the result"}],
                      options={"a": 1})
    assert set(created) == {"id", "name", "group", "creation_time", "config", "inputs",
                            "outputs", "options"}
    assert ISO.match(created["creation_time"])
    # InputConfig/OutputConfig.as_dict: defaults filled in, replace_on_change only when true
    assert created["inputs"] == [{"name": "foo", "type": "String"},
                                 {"name": "bar", "type": "Number", "default": 1,
                                  "replace_on_change": True}]
    assert created["outputs"] == [{"name": "result", "description": "the result",
                                   "type": "String", "error_output": False}]
    assert (created["config"], created["options"], created["group"]) == \
        ("#!/bin/sh\necho hi", {"a": 1}, "script")
    shown = api.get(f"/v1/sw/software_configs/{created['id']}")
    assert shown.status_code == 200 and shown.get_json() == {"software_config": created}
    listed = api.get("/v1/sw/software_configs").get_json()["software_configs"]
    assert listed == [{k: created[k] for k in ("id", "name", "group", "creation_time")}]
    other = _config(api, name="c2")
    page = api.get(f"/v1/sw/software_configs?limit=1&marker={created['id']}").get_json()
    assert [c["id"] for c in page["software_configs"]] == [other["id"]]
    assert api.get("/v1/sw/software_configs?limit=x").status_code == 400
    gone = api.delete(f"/v1/sw/software_configs/{created['id']}")
    assert gone.status_code == 204 and gone.data == b""
    missing = api.get(f"/v1/sw/software_configs/{created['id']}")
    assert missing.status_code == 404
    assert missing.get_json()["error"]["type"] == "NotFound"
    assert missing.get_json()["error"]["message"] == \
        f"Software config with id {created['id']} not found"
    assert api.delete(f"/v1/sw/software_configs/{created['id']}").status_code == 404


def test_bad_config_bodies_are_400_and_store_nothing(api):
    assert api.post("/v1/sw/software_configs", data="[1]",
                    content_type="application/json").status_code == 400
    bad_inputs = api.post("/v1/sw/software_configs", json={"inputs": {"name": "x"}})
    assert bad_inputs.status_code == 400
    assert bad_inputs.get_json()["error"]["message"] == \
        "Software Config I/O Schema must be in a list"
    not_maps = api.post("/v1/sw/software_configs", json={"outputs": ["x"]})
    assert not_maps.get_json()["error"]["message"] == "Software Config I/O Schema must be a dict"
    no_name = api.post("/v1/sw/software_configs", json={"inputs": [{"type": "String"}]})
    assert no_name.status_code == 400
    bad_type = api.post("/v1/sw/software_configs", json={"inputs": [{"name": "a",
                                                                      "type": "Float"}]})
    assert bad_type.status_code == 400
    assert api.get("/v1/sw/software_configs").get_json() == {"software_configs": []}


def test_another_projects_config_is_not_found_but_an_admin_sees_it(api):
    created = _config(api, name="mine")
    api.environ_base["HTTP_X_PROJECT_ID"] = "other"
    assert api.get(f"/v1/other/software_configs/{created['id']}").status_code == 404
    assert api.get("/v1/other/software_configs").get_json() == {"software_configs": []}
    api.environ_base["HTTP_X_ROLES"] = "admin"  # Heat's admin context: every project's,
    listed = api.get("/v1/other/software_configs").get_json()["software_configs"]
    assert [(c["id"], c["project"]) for c in listed] == [(created["id"], "sw")]  # with it


def test_deployments_create_show_update_metadata_delete(api):
    cfg_b = _config(api, name="b-config", group="script", config="echo b")
    cfg_a = _config(api, name="a-config", group="script", config="echo a")
    resp = api.post("/v1/sw/software_deployments", json={
        "config_id": cfg_b["id"], "server_id": "srv-1", "input_values": {"x": 1},
        "action": "CREATE", "status": "IN_PROGRESS", "status_reason": "Deploy data available"})
    assert resp.status_code == 200, resp.get_json()
    sd = resp.get_json()["software_deployment"]
    assert set(sd) == {"id", "server_id", "config_id", "input_values", "output_values",
                       "action", "status", "status_reason", "creation_time"}
    assert (sd["server_id"], sd["config_id"], sd["input_values"], sd["output_values"],
            sd["status"]) == ("srv-1", cfg_b["id"], {"x": 1}, None, "IN_PROGRESS")
    second = api.post("/v1/sw/software_deployments", json={
        "config_id": cfg_a["id"], "server_id": "srv-1", "action": "CREATE",
        "status": "COMPLETE"}).get_json()["software_deployment"]
    meta = api.get("/v1/sw/software_deployments/metadata/srv-1")
    assert meta.status_code == 200
    assert [m["name"] for m in meta.get_json()["metadata"]] == ["a-config", "b-config"]
    assert meta.get_json()["metadata"][0] == cfg_a
    listed = api.get("/v1/sw/software_deployments?server_id=srv-1").get_json()
    assert [d["id"] for d in listed["software_deployments"]] == [sd["id"], second["id"]]
    assert api.get("/v1/sw/software_deployments?server_id=nope").get_json() == \
        {"software_deployments": []}
    put = api.put(f"/v1/sw/software_deployments/{sd['id']}", json={
        "status": "COMPLETE", "output_values": {"deploy_stdout": "ok"}, "action": None})
    assert put.status_code == 200
    updated = put.get_json()["software_deployment"]
    assert (updated["status"], updated["output_values"], updated["action"]) == \
        ("COMPLETE", {"deploy_stdout": "ok"}, "CREATE")
    assert ISO.match(updated["updated_time"])
    assert api.get(f"/v1/sw/software_deployments/{sd['id']}").get_json() == \
        {"software_deployment": updated}
    in_use = api.delete(f"/v1/sw/software_configs/{cfg_b['id']}")
    assert in_use.status_code == 400  # Heat 27 answers 500 InvalidRestrictedAction
    assert in_use.get_json()["error"]["message"] == \
        f"Software config with id {cfg_b['id']} can not be deleted as it is referenced."
    assert api.delete(f"/v1/sw/software_deployments/{sd['id']}").status_code == 204
    missing = api.get(f"/v1/sw/software_deployments/{sd['id']}")
    assert missing.status_code == 404
    assert missing.get_json()["error"]["message"] == f"Deployment with id {sd['id']} not found"
    assert api.put(f"/v1/sw/software_deployments/{sd['id']}",
                   json={"status": "FAILED"}).status_code == 404
    assert api.delete(f"/v1/sw/software_deployments/{sd['id']}").status_code == 404


def test_bad_deployment_bodies(api):
    # as Heat 27: an unknown or missing config is its 404 (Heat's message shows "{}" for the
    # id, a formatting bug; the id here); no server_id is a 400 (Heat: 500 DBError)
    unknown = api.post("/v1/sw/software_deployments", json={"config_id": "nope",
                                                            "server_id": "s"})
    assert unknown.status_code == 404
    assert unknown.get_json()["error"] == {"type": "NotFound", "traceback": None,
                                           "message": "Software config with id nope not found"}
    assert api.post("/v1/sw/software_deployments", json={"server_id": "s"}).status_code == 404
    cfg = _config(api, name="c")
    no_server = api.post("/v1/sw/software_deployments", json={"config_id": cfg["id"]})
    assert no_server.status_code == 400
    defaults = api.post("/v1/sw/software_deployments", json={
        "config_id": cfg["id"], "server_id": "s"}).get_json()["software_deployment"]
    assert (defaults["input_values"], defaults["action"], defaults["status"],
            defaults["status_reason"]) == ({}, None, None, "None")  # Heat's str(None)
    assert api.put(f"/v1/sw/software_deployments/{defaults['id']}",
                   json={"config_id": "nope"}).status_code == 404
    assert api.post("/v1/sw/software_deployments", data="x",
                    content_type="application/json").status_code == 400
    assert [d["id"] for d in api.get("/v1/sw/software_deployments").get_json()[
        "software_deployments"]] == [defaults["id"]]


@pytest.mark.parametrize("body,message", [
    ({"name": "a", "group": ["x"]}, 'Invalid value for "group": must be a string'),
    ({"name": {"a": 1}}, 'Invalid value for "name": must be a string'),
    ({"name": 5}, 'Invalid value for "name": must be a string'),
    ({"name": "n" * 256}, 'Invalid value for "name": must be a string of at most 255 '
                          'characters'),
    ({"name": "a", "options": "x"}, 'Invalid value for "options": must be a map'),
])
def test_config_fields_of_the_wrong_type_are_400_not_500(api, body, message):
    """Heat's columns (``String(255)``, ``Json``) refuse these with a 500 from the database;
    a 400 naming the field here, and nothing stored."""
    resp = api.post("/v1/sw/software_configs", json=body)
    assert resp.status_code == 400
    assert resp.get_json()["error"]["message"] == message
    assert api.get("/v1/sw/software_configs").get_json() == {"software_configs": []}


def test_deployment_fields_of_the_wrong_type_are_400(api):
    cfg = _config(api, name="c")
    for body, message in [
            ({"config_id": cfg["id"], "server_id": ["x"]},
             'Invalid value for "server_id": must be a string'),
            ({"config_id": cfg["id"], "server_id": "s", "input_values": "str"},
             'Invalid value for "input_values": must be a map'),
            ({"config_id": cfg["id"], "server_id": "s", "action": 5},
             'Invalid value for "action": must be a string')]:
        resp = api.post("/v1/sw/software_deployments", json=body)
        assert resp.status_code == 400 and resp.get_json()["error"]["message"] == message
    assert api.get("/v1/sw/software_deployments").get_json() == {"software_deployments": []}
    made = api.post("/v1/sw/software_deployments", json={
        "config_id": cfg["id"], "server_id": "s"}).get_json()["software_deployment"]
    bad = api.put(f"/v1/sw/software_deployments/{made['id']}", json={"output_values": [1]})
    assert bad.status_code == 400
    assert bad.get_json()["error"]["message"] == \
        'Invalid value for "output_values": must be a map'
    assert api.get(f"/v1/sw/software_deployments/{made['id']}").get_json()[
        "software_deployment"]["output_values"] in (None, {})
