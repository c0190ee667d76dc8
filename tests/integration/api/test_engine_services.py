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
    services = [x for x in r.get_json()["services"]  # this process beats too, if it stepped
                if x["engine_id"] in ("hostA:101", "hostB:202")]
    assert [(x["engine_id"], x["status"]) for x in services] == [("hostA:101", "up"),
                                                                 ("hostB:202", "down")]
    a = services[0]
    assert set(a) == {"id", "binary", "engine_id", "host", "hostname", "topic",
                      "report_interval", "created_at", "updated_at", "deleted_at", "status"}
    assert (a["binary"], a["topic"], a["host"], a["hostname"], a["report_interval"],
            a["deleted_at"]) == ("heat-engine", "engine", "hostA", "hostA", interval, None)
    again = client.get("/v1/t1/services").get_json()["services"]
    assert [x["id"] for x in again if x["engine_id"] == "hostA:101"] == [a["id"]]  # stable
