"""The API over the real services: SQLite in a temp dir, tasks run in-process (``always_eager``),
so a create or delete has finished when the request returns. Shapes are compared with Heat's
recorded api-samples."""
from __future__ import annotations

import pytest

from tests.unit.api.conftest import load_sample
from tests.unit.api.shapes import assert_shape

TEMPLATE = load_sample("template_show").body  # RandomString rs -> Value v, outputs pw and msg


@pytest.fixture()
def real(client):  # type: ignore[no-untyped-def]
    """The root ``client`` (real services, migrated SQLite), requests to 127.0.0.1:8004."""
    client.application.config["SERVER_NAME"] = "127.0.0.1:8004"
    return client


def _create(real, name="cap1795939567"):  # type: ignore[no-untyped-def]
    resp = real.post("/v1/admin/stacks", json={
        "stack_name": name, "template": TEMPLATE, "parameters": {"len": 16},
        "timeout_mins": 10, "disable_rollback": True, "files": {}, "environment": {}})
    assert resp.status_code == 201, resp.get_json()
    return resp


def test_create_show_list_and_children(real):
    resp = _create(real)
    assert resp.headers["Content-Type"] == "application/json"
    assert_shape(resp.get_json(), load_sample("stack_create").body)
    href = resp.headers["Location"]
    base = href.split("127.0.0.1:8004", 1)[1]

    shown = real.get(base)
    assert shown.status_code == 200
    assert_shape(shown.get_json(), load_sample("stack_show").body)
    stack = shown.get_json()["stack"]
    assert stack["stack_status"] == "CREATE_COMPLETE", stack["stack_status_reason"]
    outputs = {o["output_key"]: o["output_value"] for o in stack["outputs"]}
    assert len(outputs["pw"]) == 16 and outputs["msg"] == f"pw={outputs['pw']}"

    lookup = real.get("/v1/admin/stacks/cap1795939567")
    assert lookup.status_code == 302 and lookup.headers["Location"] == href

    listed = real.get("/v1/admin/stacks")
    assert_shape(listed.get_json(), load_sample("stack_list").body)

    for name, path in (("resource_list", "/resources"), ("resource_show", "/resources/rs"),
                       ("event_list", "/events"), ("output_list", "/outputs"),
                       ("output_show", "/outputs/pw"), ("template_show", "/template")):
        got = real.get(base + path)
        assert got.status_code == 200, (path, got.get_json())
        assert_shape(got.get_json(), load_sample(name).body)
    env = real.get(base + "/environment").get_json()
    assert {"parameters", "parameter_defaults", "resource_registry"} <= set(env)


def test_duplicate_delete_and_show_deleted(real):
    href = _create(real).headers["Location"]
    base = href.split("127.0.0.1:8004", 1)[1]
    again = real.post("/v1/admin/stacks", json={"stack_name": "cap1795939567",
                                                "template": TEMPLATE})
    assert again.status_code == 409
    assert again.get_json() == load_sample("stack_create_dup").body

    # keystoneauth follows the lookup's 302 keeping the method (werkzeug's client would GET)
    found = real.delete("/v1/admin/stacks/cap1795939567")
    assert found.status_code == 302 and found.headers["Location"] == href
    deleted = real.delete(base)
    assert deleted.status_code == 204 and deleted.data == b""
    after = real.get(base)
    assert after.status_code == 200
    assert_shape(after.get_json(), load_sample("stack_show_after_delete").body)
    assert after.get_json()["stack"]["stack_status"] == "DELETE_COMPLETE"
    assert real.get("/v1/admin/stacks").get_json()["stacks"] == []
    assert len(real.get("/v1/admin/stacks?show_deleted=true").get_json()["stacks"]) == 1
    assert real.get("/v1/admin/stacks/cap1795939567").status_code == 404
    # as in Heat, the deleted stack's name can be reused; the old one stays readable by id
    assert _create(real).status_code == 201
    assert real.get(base).get_json()["stack"]["stack_status"] == "DELETE_COMPLETE"


def test_not_found_and_bad_template(real):
    resp = real.get("/v1/admin/stacks/nosuch")
    assert resp.get_json() == load_sample("stack_not_found").body
    bad = real.post("/v1/admin/stacks", json={
        "stack_name": "bad", "template": {"heat_template_version": "2018-08-31",
                                          "resources": {"x": {"type": "OS::Nope"}}}})
    assert bad.status_code == 400
    assert "OS::Nope" in bad.get_json()["error"]["message"]
    assert real.get("/v1/admin/stacks").get_json()["stacks"] == []


def test_heatclient_over_the_real_services(real):
    """What ``openstack stack create --wait`` / ``stack show`` / ``stack delete`` do."""
    from heatclient import client as heat_client
    from heatclient.common import event_utils
    from keystoneauth1 import session as ks_session

    from tests.unit.api.test_heatclient import WSGIAdapter

    sess = ks_session.Session()
    sess.session.mount("http://127.0.0.1:8004", WSGIAdapter(real.application))
    heat = heat_client.Client("1", endpoint="http://127.0.0.1:8004/v1/admin", session=sess)
    heat.stacks.create(stack_name="hc1", template=TEMPLATE, parameters={"len": 12},
                       disable_rollback=True, files={}, environment={})
    status, message = event_utils.poll_for_events(heat, "hc1", action="CREATE", poll_period=0)
    assert status == "CREATE_COMPLETE", message
    stack = heat.stacks.get("hc1")
    assert len(next(o["output_value"] for o in stack.outputs if o["output_key"] == "pw")) == 12
    assert sorted(r.resource_name for r in heat.resources.list("hc1")) == ["rs", "v"]
    heat.stacks.delete("hc1")
    assert heat.stacks.get(stack.id).stack_status == "DELETE_COMPLETE"
