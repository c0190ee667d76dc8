"""Drift detections (``drift_detection``): one row per detection of a stack.

``status`` is DETECTION_IN_PROGRESS, DETECTION_COMPLETE or DETECTION_FAILED (AWS's words);
``stack_drift_status`` DRIFTED, IN_SYNC or UNKNOWN once complete; ``counts`` the number of
resources of each drift status; ``resources`` each resource's result (see
:mod:`app.services.drift`).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, UTCDateTime, utcnow
from app.models.tables import new_id


class DriftDetection(Base):
    """One drift detection of stack ``stack_id`` (nested stacks included)."""
    __tablename__ = "drift_detection"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    tenant: Mapped[str] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(32), default="DETECTION_IN_PROGRESS")
    status_reason: Mapped[str] = mapped_column(Text, default="")
    stack_drift_status: Mapped[str | None] = mapped_column(String(32), nullable=True)
    counts: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    resources: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (Index("ix_drift_detection_stack", "stack_id", "created_at"),)
