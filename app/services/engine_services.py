"""The engine services (Heat's ``list_services``, ``heat/engine/service.py``, formatted as
``heat/common/service_utils.py`` ``format_service``), from the workers' heartbeats (table
``worker_heartbeat``: one row per worker process, ``engine_id`` = ``host:pid``).

Each service is ``{"id", "binary": "heat-engine", "engine_id", "host", "hostname",
"topic": "engine", "report_interval", "created_at", "updated_at", "deleted_at": null,
"status"}``; ``report_interval`` is ``heartbeat_seconds`` and ``status`` is ``"up"`` when the last
heartbeat is at most two intervals old, else ``"down"`` (Heat's rule). ``id`` is a UUID derived
from the engine id (stable across calls). The heartbeat table keeps the last beat only, so
``created_at`` and ``updated_at`` are both that time (ISO 8601, naive UTC, as Heat's JSON
serializer prints its datetimes).
"""
from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import select

from app import config
from app.models import WorkerHeartbeat, read_session, utcnow

_NAMESPACE = uuid.UUID("5c0c1a36-3d55-4f0e-9a4b-7b6f2b0e9d11")


def _iso(value: dt.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(dt.UTC).replace(tzinfo=None)
    return value.isoformat()


def list_services() -> list[dict[str, Any]]:
    """Every engine that has written a heartbeat, oldest engine id first. O(engines)."""
    interval = int(config.get().heartbeat_seconds)
    now = utcnow()
    with read_session() as s:
        beats = list(s.execute(select(WorkerHeartbeat).order_by(WorkerHeartbeat.engine_id))
                     .scalars())
    out = []
    for b in beats:
        host = b.engine_id.rsplit(":", 1)[0]
        seen = b.last_seen.replace(tzinfo=None) if b.last_seen.tzinfo else b.last_seen
        up = (now - seen).total_seconds() <= 2 * interval
        out.append({"id": str(uuid.uuid5(_NAMESPACE, b.engine_id)), "binary": "heat-engine",
                    "engine_id": b.engine_id, "host": host, "hostname": host,
                    "topic": "engine", "report_interval": interval,
                    "created_at": _iso(b.last_seen), "updated_at": _iso(b.last_seen),
                    "deleted_at": None, "status": "up" if up else "down"})
    return out
