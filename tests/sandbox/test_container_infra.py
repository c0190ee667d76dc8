"""Magnum v1 of the sandbox (catalog type ``container-infra``): cluster templates and clusters,
their asynchronous statuses, JSON-patch updates, Magnum's error bodies and project scoping."""
from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.sandbox.conftest import wait_for

MAGNUM = {"service_type": "container-infra", "interface": "public"}


def _call(conn: Any, method: str, path: str, **kw: Any) -> Any:
    return conn.session.request(path, method, endpoint_filter=MAGNUM,
                                raise_exc=False, **kw)


@pytest.fixture()
def keypair(conn: Any) -> Any:
    name = f"k-{uuid.uuid4().hex[:6]}"
    conn.compute.create_keypair(name=name)
    yield name
    conn.compute.delete_keypair(name)


def _template(conn: Any, keypair: str, **extra: Any) -> dict[str, Any]:
    resp = _call(conn, "POST", "/clustertemplates", json={
        "name": f"ct-{uuid.uuid4().hex[:6]}", "coe": "kubernetes", "image_id": "fedora-40",
        "keypair_id": keypair, "external_network_id": "public", **extra})
    assert resp.status_code == 201, resp.text
    return resp.json()


def test_a_cluster_is_built_resized_and_deleted(conn: Any, keypair: str, sandbox: Any, no_leaks: None) -> None:
    sandbox.admin("PUT", "behaviour", json={"delays": {"cluster_create": 0.3, "cluster_update": 0.2,
                                                        "cluster_delete": 0.1}})
    ct = _template(conn, keypair)
    assert ct["cluster_distro"] == "fedora" and ct["uuid"]
    created = _call(conn, "POST", "/clusters", json={"name": "c1", "cluster_template_id": ct["name"],
                                                       "node_count": 1})
    assert created.status_code == 202
    cid = created.json()["uuid"]
    assert _call(conn, "GET", f"/clusters/{cid}").json()["status"] == "CREATE_IN_PROGRESS"
    done = wait_for(lambda: (c := _call(conn, "GET", f"/clusters/{cid}").json())["status"]
                    == "CREATE_COMPLETE" and c)
    assert done["api_address"].startswith("https://") and len(done["node_addresses"]) == 1
    refused = _call(conn, "PATCH", f"/clusters/{cid}", json=[{"op": "replace", "path": "/master_count",
                                                              "value": 3}])
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["detail"] == "cannot change cluster property(ies) master_count."
    in_use = _call(conn, "DELETE", f"/clustertemplates/{ct['uuid']}")
    assert in_use.status_code == 400 and "referenced by one or multiple clusters" in in_use.text
    resized = _call(conn, "PATCH", f"/clusters/{cid}", json=[{"op": "replace", "path": "/node_count",
                                                              "value": 3}])
    assert resized.status_code == 202
    assert _call(conn, "GET", f"/clusters/{cid}").json()["status"] == "UPDATE_IN_PROGRESS"
    done = wait_for(lambda: (c := _call(conn, "GET", f"/clusters/{cid}").json())["status"]
                    == "UPDATE_COMPLETE" and c)
    assert done["node_count"] == 3 and len(done["node_addresses"]) == 3
    assert _call(conn, "DELETE", f"/clusters/{cid}").status_code == 204
    wait_for(lambda: _call(conn, "GET", f"/clusters/{cid}").status_code == 404)
    assert _call(conn, "DELETE", f"/clustertemplates/{ct['uuid']}").status_code == 204


def test_errors_are_magnums_and_other_projects_see_nothing(conn: Any, demo_conn: Any, keypair: str,
                                                             no_leaks: None) -> None:
    missing = _call(conn, "GET", "/clustertemplates/nope")
    assert missing.status_code == 404
    error = missing.json()["errors"][0]
    assert error["status"] == 404 and error["detail"] == "ClusterTemplate nope could not be found."
    bad = _call(conn, "POST", "/clustertemplates", json={"coe": "kubernetes", "image_id": "nope"})
    assert bad.status_code == 404 and "Image nope could not be found." in bad.text
    ct = _template(conn, keypair)
    assert _call(demo_conn, "GET", f"/clustertemplates/{ct['uuid']}").status_code == 404
    patched = _call(conn, "PATCH", f"/clustertemplates/{ct['uuid']}",
                    json=[{"op": "replace", "path": "/public", "value": True}])
    assert patched.status_code == 200 and patched.json()["public"] is True
    assert _call(demo_conn, "GET", f"/clustertemplates/{ct['uuid']}").status_code == 200
    assert _call(conn, "DELETE", f"/clustertemplates/{ct['uuid']}").status_code == 204
