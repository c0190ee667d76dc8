"""Change sets: an update (or a first create) of one stack planned ahead, its per-resource
changes shown, and applied later exactly as planned (CloudFormation's change sets; Heat has
none).

``request`` holds the checked request (template, files, environment, parameters, timeout,
rollback, tags) the execution runs; ``changes`` the planned changes (JSON, the services'
shape); ``fingerprint`` the stack's state it was planned against (template id, parameters,
updated time). ``status``: CREATE_COMPLETE or FAILED (with ``status_reason``);
``execution_status``: AVAILABLE, EXECUTE_IN_PROGRESS, EXECUTE_COMPLETE, EXECUTE_FAILED, OBSOLETE
or UNAVAILABLE, as AWS names them.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, UTCDateTime, utcnow
from app.models.tables import new_id


class ChangeSet(Base):
    """One change set of stack ``stack_id``; its name is unique within the stack."""
    __tablename__ = "change_set"
    __table_args__ = (UniqueConstraint("stack_id", "name", name="uq_change_set_stack_name"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"), index=True)
    tenant: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str] = mapped_column(Text, default="")
    change_set_type: Mapped[str] = mapped_column(String(16), default="UPDATE")
    status: Mapped[str] = mapped_column(String(32), default="CREATE_COMPLETE")
    status_reason: Mapped[str] = mapped_column(Text, default="")
    execution_status: Mapped[str] = mapped_column(String(32), default="AVAILABLE")
    request: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    changes: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
