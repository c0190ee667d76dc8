"""Stack snapshots (Heat's ``snapshot`` table): a stack's data at one moment, to restore later.

``data`` is the stack's abandon data (``app.convergence.store.stack_data``) with its resources;
``action`` / ``status`` are the snapshot's own (CREATE IN_PROGRESS → COMPLETE or FAILED).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, UTCDateTime, utcnow
from app.models.tables import new_id


class Snapshot(Base):
    """One snapshot of stack ``stack_id``; its id is also the SNAPSHOT traversal's id."""
    __tablename__ = "snapshot"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"), index=True)
    tenant: Mapped[str] = mapped_column(String(255))
    name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    action: Mapped[str] = mapped_column(String(32), default="CREATE")
    status: Mapped[str] = mapped_column(String(32), default="IN_PROGRESS")
    status_reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
