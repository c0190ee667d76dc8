"""SQLAlchemy models and queries; Alembic migrations live in ``app/models/migrations``."""
from app.models.base import Base, after_commit, get_engine, init, read_session, session, utcnow
from app.models.tables import (
                               Event,
                               RawTemplate,
                               Resource,
                               Stack,
                               SyncInput,
                               SyncPoint,
                               WorkerHeartbeat,
                               new_id,
)

__all__ = [
                               "Base",
                               "Event",
                               "RawTemplate",
                               "Resource",
                               "Stack",
                               "SyncInput",
                               "SyncPoint",
                               "WorkerHeartbeat",
                               "after_commit",
                               "get_engine",
                               "init",
                               "new_id",
                               "read_session",
                               "session",
                               "utcnow",
]
