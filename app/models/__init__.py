"""SQLAlchemy models and queries; Alembic migrations live in ``app/models/migrations``."""
from app.models.base import (
    Base,
    after_commit,
    autocommit,
    concurrent_writers,
    for_update,
    get_engine,
    init,
    isotime,
    read_session,
    session,
    side_engine,
    utcnow,
)
from app.models.change_sets import ChangeSet
from app.models.connect import nul_refused, surrogate_refused, unavailable
from app.models.drift import DriftDetection
from app.models.exports import StackExport as StackExport
from app.models.exports import StackImport as StackImport
from app.models.reads import first_row, read_connection, rows
from app.models.snapshots import Snapshot
from app.models.software import SoftwareConfig, SoftwareDeployment
from app.models.tables import (
                               Event,
                               RawTemplate,
                               Resource,
                               Stack,
                               StackTag,
                               SyncInput,
                               SyncPoint,
                               WorkerHeartbeat,
                               new_id,
)
from app.models.user_creds import UserCreds

__all__ = [
                               "Base",
                               "ChangeSet",
                               "DriftDetection",
                               "Event",
                               "RawTemplate",
                               "Resource",
                               "Snapshot",
                               "SoftwareConfig",
                               "SoftwareDeployment",
                               "Stack",
                               "StackTag",
                               "SyncInput",
                               "SyncPoint",
                               "UserCreds",
                               "WorkerHeartbeat",
                               "after_commit",
                               "autocommit",
                               "concurrent_writers",
                               "first_row",
                               "for_update",
                               "get_engine",
                               "init",
                               "isotime",
                               "new_id",
                               "nul_refused",
                               "read_connection",
                               "read_session",
                               "rows",
                               "session",
                               "side_engine",
                               "surrogate_refused",
                               "unavailable",
                               "utcnow",
]
