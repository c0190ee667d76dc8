"""The credentials a stack's deferred work runs with: its Keystone trust (Heat's ``user_creds``).

One row per root stack created in keystone mode; nested stacks use their root's. ``trust_id``
holds the trust id encrypted (``app.auth.crypto``, Fernet), never in the clear.
"""
from __future__ import annotations

import datetime as dt

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, UTCDateTime, utcnow


class UserCreds(Base):
    """A stack's trust: ``trust_id`` (ciphertext), its trustor and project."""
    __tablename__ = "user_creds"
    stack_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    trust_id: Mapped[str] = mapped_column(Text)
    trustor_user_id: Mapped[str] = mapped_column(String(255))
    tenant: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
