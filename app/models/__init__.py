"""SQLAlchemy models and queries; Alembic migrations live in ``app/models/migrations``."""
from app.models.base import Base, after_commit, read_session, session, init, get_engine, utcnow
from app.models.tables import (Event, RawTemplate, Resource, Stack, SyncInput, SyncPoint,
                               WorkerHeartbeat, new_id)

__all__ = ["Base", "after_commit", "read_session", "session", "init", "get_engine", "utcnow", "Event",
           "RawTemplate", "Resource", "Stack", "SyncInput", "SyncPoint", "WorkerHeartbeat", "new_id"]
