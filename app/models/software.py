"""Software configs and deployments (Heat's ``software_config`` and ``software_deployment``
tables, ``heat/db/models.py``).

A config is immutable once stored: ``config`` holds Heat's ``{"config", "inputs", "outputs",
"options"}`` document. A deployment applies one config (``config_id``) to one server
(``server_id``: the server's physical id) with ``input_values``; the server signals back its
``output_values``, which set ``status`` (IN_PROGRESS, COMPLETE, FAILED).
"""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, UTCDateTime, utcnow
from app.models.tables import new_id


class SoftwareConfig(Base):
    """One software config of project ``tenant``."""
    __tablename__ = "software_config"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str | None] = mapped_column(String(255), nullable=True)
    group: Mapped[str | None] = mapped_column(String(255), nullable=True)
    config: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    tenant: Mapped[str] = mapped_column(String(64), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)


class SoftwareDeployment(Base):
    """One deployment of config ``config_id`` to server ``server_id``."""
    __tablename__ = "software_deployment"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    config_id: Mapped[str] = mapped_column(ForeignKey("software_config.id"), index=True)
    server_id: Mapped[str] = mapped_column(String(36), index=True)
    input_values: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    output_values: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    action: Mapped[str | None] = mapped_column(String(255), nullable=True)
    status: Mapped[str | None] = mapped_column(String(255), nullable=True)
    status_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    tenant: Mapped[str] = mapped_column(String(64), index=True)
    stack_user_project_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
