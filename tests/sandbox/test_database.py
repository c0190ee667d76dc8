"""Trove v1.0 of the sandbox (catalog type ``database``, the project in the URL): instances
(BUILD -> ACTIVE), resize by flavor and by volume, databases, users and grants, clusters,
Trove's error bodies and project scoping."""
from __future__ import annotations

from typing import Any

from tests.sandbox.conftest import wait_for

TROVE = {"service_type": "database", "interface": "public"}


def _call(conn: Any, method: str, path: str, **kw: Any) -> Any:
    return conn.session.request(path, method, endpoint_filter=TROVE, raise_exc=False, **kw)


def _status(conn: Any, iid: str) -> str:
    return str(_call(conn, "GET", f"/instances/{iid}").json()["instance"]["status"])


def test_an_instance_is_built_resized_and_given_databases_and_users(conn: Any, demo_conn: Any,
                                                                   sandbox: Any, no_leaks: None) -> None:
    sandbox.admin("PUT", "behaviour", json={"delays": {"db_build": 0.2, "db_resize": 0.1, "db_delete": 0.1}})
    assert _call(conn, "GET", "/datastores/mysql/versions").json()["versions"][0]["name"] == "5.7.29"
    missing = _call(conn, "POST", "/instances", json={"instance": {"name": "x", "flavorRef": "nope",
                                                                    "volume": {"size": 1}}})
    assert missing.status_code == 404 and missing.json()["itemNotFound"]["message"] == \
        "Flavor nope could not be found."
    made = _call(conn, "POST", "/instances", json={"instance": {
        "name": "db1", "flavorRef": "2", "volume": {"size": 1}, "databases": [{"name": "app"}],
        "users": [{"name": "u1", "password": "pw", "databases": [{"name": "app"}]}],
        "datastore": {"type": "mysql", "version": "8.0"}}})
    assert made.status_code == 200
    iid = made.json()["instance"]["id"]
    assert made.json()["instance"]["status"] == "BUILD"
    busy = _call(conn, "POST", f"/instances/{iid}/databases", json={"databases": [{"name": "b"}]})
    assert busy.status_code == 409
    wait_for(lambda: _status(conn, iid) == "ACTIVE")
    assert _call(demo_conn, "GET", f"/instances/{iid}").status_code == 404
    same = _call(conn, "POST", f"/instances/{iid}/action", json={"resize": {"flavorRef": "2"}})
    assert same.status_code == 400 and "No change was requested" in same.text
    assert _call(conn, "POST", f"/instances/{iid}/action", json={"resize": {"flavorRef": "3"}}).status_code == 202
    assert _status(conn, iid) == "RESIZE"
    wait_for(lambda: _status(conn, iid) == "ACTIVE")
    smaller = _call(conn, "POST", f"/instances/{iid}/action", json={"resize": {"volume": {"size": 1}}})
    assert smaller.status_code == 400
    _call(conn, "POST", f"/instances/{iid}/action", json={"resize": {"volume": {"size": 2}}})
    wait_for(lambda: _status(conn, iid) == "ACTIVE")
    shown = _call(conn, "GET", f"/instances/{iid}").json()["instance"]
    assert (shown["flavor"]["id"], shown["volume"]["size"]) == ("3", 2)
    _call(conn, "POST", f"/instances/{iid}/databases", json={"databases": [{"name": "b"}]})
    _call(conn, "PUT", f"/instances/{iid}/users/u1/databases", json={"databases": [{"name": "b"}]})
    user = _call(conn, "GET", f"/instances/{iid}/users/u1").json()["user"]
    assert user["databases"] == [{"name": "app"}, {"name": "b"}]
    assert _call(conn, "DELETE", f"/instances/{iid}").status_code == 202
    wait_for(lambda: _call(conn, "GET", f"/instances/{iid}").status_code == 404)


def test_a_cluster_is_ready_when_its_members_are_active(conn: Any, sandbox: Any, no_leaks: None) -> None:
    sandbox.admin("PUT", "behaviour", json={"delays": {"db_build": 0.2, "db_delete": 0.1}})
    made = _call(conn, "POST", "/clusters", json={"cluster": {
        "name": "c", "datastore": {"type": "mysql"},
        "instances": [{"flavorRef": "2", "volume": {"size": 1}}] * 2}})
    cid = made.json()["cluster"]["id"]
    assert made.json()["cluster"]["task"]["name"] == "BUILDING"
    done = wait_for(lambda: (c := _call(conn, "GET", f"/clusters/{cid}").json()["cluster"])["task"]["name"]
                    == "NONE" and c)
    assert [m["status"] for m in done["instances"]] == ["ACTIVE", "ACTIVE"] and len(done["ip"]) == 2
    assert _call(conn, "DELETE", f"/clusters/{cid}").status_code == 202
    wait_for(lambda: _call(conn, "GET", f"/clusters/{cid}").status_code == 404)
