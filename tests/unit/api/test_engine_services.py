"""``GET /v1/{tenant}/services``: the engine workers from their heartbeats, in Heat's shape
(heat/common/service_utils.py format_service: "up" within two report intervals)."""
from __future__ import annotations

import datetime as dt
from typing import Any

from app import config
from app.models import WorkerHeartbeat, session, utcnow


def test_services_lists_engines_up_and_down(client: Any) -> None:
    interval = config.get().heartbeat_seconds
    with session() as s:
        s.add(WorkerHeartbeat(engine_id="hostA:101", last_seen=utcnow()))
        s.add(WorkerHeartbeat(engine_id="hostB:202",
                              last_seen=utcnow() - dt.timedelta(seconds=3 * interval)))
    r = client.get("/v1/t1/services")
    assert r.status_code == 200
    services = r.get_json()["services"]
    assert [(x["engine_id"], x["status"]) for x in services] == [("hostA:101", "up"),
                                                                 ("hostB:202", "down")]
    a = services[0]
    assert set(a) == {"id", "binary", "engine_id", "host", "hostname", "topic",
                      "report_interval", "created_at", "updated_at", "deleted_at", "status"}
    assert (a["binary"], a["topic"], a["host"], a["hostname"], a["report_interval"],
            a["deleted_at"]) == ("heat-engine", "engine", "hostA", "hostA", interval, None)
    assert client.get("/v1/t1/services").get_json()["services"][0]["id"] == a["id"]  # stable


def test_services_are_for_system_admins_under_heats_policy(tmp_path: Any) -> None:
    """Heat's ``service:index``: system-scoped admins only (heat/policies/service.py)."""
    from app.auth import policy
    policy.reset()
    try:
        ks = config.load({}, data_dir=str(tmp_path), auth_strategy="keystone")
        base = {"user_id": "u" * 32, "project_id": "p" * 32, "is_admin_project": True}
        project_admin = dict(base, roles=["admin", "member", "reader"], system_scope=None)
        system_admin = dict(base, project_id=None, roles=["admin", "member", "reader"],
                            system_scope="all")
        assert not policy.check(ks, "service:index", project_admin, "p" * 32)
        assert policy.check(ks, "service:index", system_admin, "p" * 32)
    finally:
        policy.reset()
