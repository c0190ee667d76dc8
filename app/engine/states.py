"""Actions and statuses of stacks and resources, as Heat names them (``ACTION_STATUS``)."""
from __future__ import annotations

import enum


class Action(str, enum.Enum):
    INIT = "INIT"
    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    ROLLBACK = "ROLLBACK"
    SUSPEND = "SUSPEND"
    RESUME = "RESUME"
    CHECK = "CHECK"
    ADOPT = "ADOPT"
    SNAPSHOT = "SNAPSHOT"
    RESTORE = "RESTORE"


class Status(str, enum.Enum):
    IN_PROGRESS = "IN_PROGRESS"
    COMPLETE = "COMPLETE"
    FAILED = "FAILED"


def stack_reason(action: str, status: str) -> str:
    """Heat's stack status reason on completion, e.g. ``Stack CREATE completed successfully``."""
    if status == Status.COMPLETE:
        return f"Stack {action} completed successfully"
    if status == Status.IN_PROGRESS:
        return f"Stack {action} started"
    return f"Stack {action} failed"
