"""The tables: raw templates, stacks, resources, events, sync points and worker heartbeats.

Names follow Heat's database (``heat/db/models.py``) where Heat has one: ``raw_template``,
``stack.current_traversal``, ``resource.engine_id`` / ``atomic_key`` (the compare-and-swap lock),
``sync_point``. Columns that hold JSON hold plain JSON.
"""
from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.models.base import Base, UTCDateTime, utcnow

# a stack the default GET /stacks lists: not deleted, not a nested stack
_LIVE_TOP = text("deleted_at IS NULL AND parent_id IS NULL")


def new_id() -> str:
    return str(uuid.uuid4())


class RawTemplate(Base):
    """A template as sent (``template``), with its files map and merged environment; stored
    once per content (``content_hash``, :mod:`app.models.raw_templates`) and never changed."""
    __tablename__ = "raw_template"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    template: Mapped[dict[str, Any]] = mapped_column(JSON)
    files: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    environment: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # SHA-256 of the three as canonical JSON; None on rows stored before it existed
    content_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True,
                                                     unique=True)


class Stack(Base):
    """A stack. ``action``/``status`` form Heat's ``stack_status``; ``current_traversal`` is the id
    of the traversal that owns the stack's resources (newest wins); ``pending_nodes`` counts the
    nodes of that traversal that may still run (the stack-level sync point)."""
    __tablename__ = "stack"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(255))
    tenant: Mapped[str] = mapped_column(String(255), index=True)
    username: Mapped[str] = mapped_column(String(255), default="")
    user_id: Mapped[str] = mapped_column(String(255), default="")
    raw_template_id: Mapped[int] = mapped_column(ForeignKey("raw_template.id"))
    # the template an UPDATE rolls back to (Heat's prev_raw_template_id); None when none
    prev_raw_template_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    parameters_show: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    description: Mapped[str] = mapped_column(Text, default="")
    action: Mapped[str] = mapped_column(String(32), default="CREATE")
    status: Mapped[str] = mapped_column(String(32), default="IN_PROGRESS")
    status_reason: Mapped[str] = mapped_column(Text, default="")
    disable_rollback: Mapped[bool] = mapped_column(Boolean, default=True)
    timeout_mins: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tags: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    parent_id: Mapped[str | None] = mapped_column(String(36), nullable=True, index=True)
    nested_depth: Mapped[int] = mapped_column(Integer, default=0)
    current_traversal: Mapped[str] = mapped_column(String(36), default="")
    pending_nodes: Mapped[int] = mapped_column(Integer, default=0)
    traversal_started_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    failed: Mapped[bool] = mapped_column(Boolean, default=False)
    outputs: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    # a nested stack's link to its parent: {"resource_id", "resource_name", "traversal",
    # "is_update", "facade": {metadata, deletion_policy, update_policy}}
    nested_info: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # a delete is refused while set here or on an ancestor (CloudFormation's termination
    # protection); the stack policy document checked before an update, None: all allowed
    termination_protection: Mapped[bool] = mapped_column(Boolean, default=False,
                                                         server_default=text("false"))
    stack_policy: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        # A live stack's name is unique in its tenant; a deleted stack's name can be reused.
        Index("uq_stack_live_name", "tenant", "name", unique=True,
              sqlite_where=text("deleted_at IS NULL"), postgresql_where=text("deleted_at IS NULL")),
        # GET /stacks in its default order (a project's, every project's), purge by age
        Index("ix_stack_tenant_created", "tenant", "created_at", "id"),
        Index("ix_stack_created", "created_at", "id"),
        # the default listing (live, top-level stacks, newest first) read in index order: the
        # planner takes these even where the table was never analyzed, where the full indexes
        # lose to a scan and sort of every live stack
        Index("ix_stack_live_top_created", "created_at", "id",
              sqlite_where=_LIVE_TOP, postgresql_where=_LIVE_TOP),
        Index("ix_stack_live_top_tenant_created", "tenant", "created_at", "id",
              sqlite_where=_LIVE_TOP, postgresql_where=_LIVE_TOP),
        Index("ix_stack_deleted_at", "deleted_at"),
        # a template's referrers (purge, the previous template's release)
        Index("ix_stack_raw_template", "raw_template_id"),
        Index("ix_stack_prev_raw_template", "prev_raw_template_id"),
    )

    @property
    def stack_status(self) -> str:
        return f"{self.action}_{self.status}"


class StackTag(Base):
    """One tag of a stack (Heat's ``stack_tag``), the index ``GET /stacks?tags=...`` filters
    by; ``stack.tags`` keeps the list in the order it was given, for display."""
    __tablename__ = "stack_tag"
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"),
                                          primary_key=True)
    tag: Mapped[str] = mapped_column(String(255), primary_key=True)

    __table_args__ = (Index("ix_stack_tag_tag", "tag", "stack_id"),)


class Resource(Base):
    """A resource of a stack. ``properties_data`` is the resolved properties used at create
    (needed to delete); ``rsrc_data`` the plugin's persisted data; ``handle`` the in-progress
    action's handle; ``attr_data`` the reference id and the attributes dependents and outputs use.
    ``engine_id`` + ``atomic_key`` form the compare-and-swap lock."""
    __tablename__ = "resource"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    uuid: Mapped[str] = mapped_column(String(36), default=new_id, unique=True)
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    type: Mapped[str] = mapped_column(String(255))
    action: Mapped[str] = mapped_column(String(32), default="INIT")
    status: Mapped[str] = mapped_column(String(32), default="COMPLETE")
    status_reason: Mapped[str] = mapped_column(Text, default="")
    physical_resource_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    requires: Mapped[list[Any]] = mapped_column(JSON, default=list)
    deletion_policy: Mapped[str] = mapped_column(String(32), default="Delete")
    properties_data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    rsrc_data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    handle: Mapped[Any] = mapped_column(JSON, nullable=True)
    attr_data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    poll_attempt: Mapped[int] = mapped_column(Integer, default=0)
    engine_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    atomic_key: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (UniqueConstraint("stack_id", "name", name="uq_resource_stack_name"),)


class Event(Base):
    """One state change of a resource (or of the stack itself, named after the stack)."""
    __tablename__ = "event"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)  # order
    uuid: Mapped[str] = mapped_column(String(36), default=new_id, unique=True)      # API id
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    resource_name: Mapped[str] = mapped_column(String(255))
    physical_resource_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    resource_type: Mapped[str] = mapped_column(String(255), default="")
    action: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(32))
    status_reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index("ix_event_stack", "stack_id", "id"),)


class SyncPoint(Base):
    """Fan-in of one node of a traversal: ``expected`` predecessors, ``done`` of them reported.
    ``entity_id`` is the resource id of the node; ``is_update`` selects forward (True) or reverse
    (False) nodes, as in Heat's ``sync_point`` table."""
    __tablename__ = "sync_point"
    entity_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    traversal_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    is_update: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    stack_id: Mapped[str] = mapped_column(String(36), index=True)
    expected: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(16), default="WAITING")  # WAITING|FIRED|SKIPPED
    # a DONE node already subtracted from the stack's pending_nodes (PostgreSQL subtracts it in
    # a statement of its own after the node's transaction: syncpoints.count_finished)
    counted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))
    # the nodes this one reports to, ``[[entity_id, is_update], ...]``, when the traversal
    # mixes directions (UPDATE); None: derived from the template / the rows' ``requires``
    succ: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)


class SyncInput(Base):
    """What one predecessor passed on to a node (keyed by predecessor, so a redelivered task
    is not counted twice): ``{"ref": reference id, "attrs": {...}}``."""
    __tablename__ = "sync_input"
    entity_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    traversal_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    is_update: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    pred_key: Mapped[str] = mapped_column(String(300), primary_key=True)
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class WorkerHeartbeat(Base):
    """Liveness of one engine (worker process): an engine whose ``last_seen`` is older than
    ``engine_lease_seconds`` is dead, and its locks are taken over (:mod:`app.convergence.store.lease`)."""
    __tablename__ = "worker_heartbeat"
    engine_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    last_seen: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
