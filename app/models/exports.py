"""Cross-stack exports (``stack_export``) and the imports that pin them (``stack_import``).

An export row is written when its stack's outputs are stored (a finished create or update) and
holds the exported value; ``(tenant, name)`` is unique, as an export name is in an AWS account
and region. An import row says stack ``stack_id`` reads export ``export_name`` of its tenant; it
is written with the importing stack's create or update, inside the same transaction.
Rows of a deleted stack are ignored by the queries and removed with the stack (cascade).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, delete, insert, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.models.base import Base
from app.models.tables import Stack


class StackExport(Base):
    """Export ``name`` of ``tenant``: output ``output_key`` of stack ``stack_id``, its ``value``."""
    __tablename__ = "stack_export"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant: Mapped[str] = mapped_column(String(255))
    name: Mapped[str] = mapped_column(String(255))
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"))
    output_key: Mapped[str] = mapped_column(String(255))
    value: Mapped[Any] = mapped_column(JSON, nullable=True)

    __table_args__ = (Index("uq_stack_export_name", "tenant", "name", unique=True),
                      Index("ix_stack_export_stack", "stack_id"))


class StackImport(Base):
    """Stack ``stack_id`` imports export ``export_name`` of ``tenant``."""
    __tablename__ = "stack_import"
    stack_id: Mapped[str] = mapped_column(ForeignKey("stack.id", ondelete="CASCADE"),
                                          primary_key=True)
    export_name: Mapped[str] = mapped_column(String(255), primary_key=True)
    tenant: Mapped[str] = mapped_column(String(255))

    __table_args__ = (Index("ix_stack_import_name", "tenant", "export_name"),)


def _live() -> Any:
    return Stack.deleted_at.is_(None)


def exports_named(s: Session, tenant: str, names: Iterable[str]) -> dict[str, StackExport]:
    """The tenant's live stacks' exports among ``names``: ``name -> row``."""
    names = list(names)
    if not names:
        return {}
    rows = s.execute(select(StackExport).join(Stack, Stack.id == StackExport.stack_id).where(
        StackExport.tenant == tenant, StackExport.name.in_(names), _live())).scalars()
    return {r.name: r for r in rows}


def exports_of(s: Session, stack_id: str) -> dict[str, StackExport]:
    """Stack ``stack_id``'s exports: ``name -> row``."""
    rows = s.execute(select(StackExport).where(StackExport.stack_id == stack_id)).scalars()
    return {r.name: r for r in rows}


def importers(s: Session, tenant: str, names: Iterable[str],
              exclude: str | None = None) -> dict[str, list[str]]:
    """``export name -> names of the live stacks importing it`` (sorted; ``exclude``: a stack id
    left out), for the names that have importers."""
    names = list(names)
    if not names:
        return {}
    q = select(StackImport.export_name, Stack.name).join(
        Stack, Stack.id == StackImport.stack_id).where(
        StackImport.tenant == tenant, StackImport.export_name.in_(names), _live())
    if exclude is not None:
        q = q.where(StackImport.stack_id != exclude)
    out: dict[str, list[str]] = {}
    for export, stack_name in s.execute(q.order_by(Stack.name)):
        out.setdefault(export, []).append(stack_name)
    return out


def set_imports(s: Session, tenant: str, stack_id: str, names: Iterable[str], *,
                new: bool = False) -> None:
    """Make ``stack_import`` hold exactly ``names`` for the stack (the caller's transaction)."""
    if not new:
        s.execute(delete(StackImport).where(StackImport.stack_id == stack_id))
    rows = [{"stack_id": stack_id, "export_name": n, "tenant": tenant} for n in sorted(set(names))]
    if rows:
        s.execute(insert(StackImport), rows)


def set_exports(s: Session, tenant: str, stack_id: str, values: dict[str, tuple[str, Any]]) -> None:
    """Make ``stack_export`` hold exactly ``values`` (``name -> (output key, value)``) for the
    stack (the caller's transaction); a deleted stack's row of one of these names goes (the
    services refuse a name a live stack exports)."""
    s.execute(delete(StackExport).where(StackExport.stack_id == stack_id))
    if values:
        s.execute(delete(StackExport).where(StackExport.tenant == tenant,
                                            StackExport.name.in_(list(values))))
    rows = [{"tenant": tenant, "name": n, "stack_id": stack_id, "output_key": k, "value": v}
            for n, (k, v) in values.items()]
    if rows:
        s.execute(insert(StackExport), rows)


def live_exports(tenant: str) -> Any:
    """The query of the tenant's live stacks' exports with their stack's name, by name."""
    return select(StackExport, Stack.name).join(Stack, Stack.id == StackExport.stack_id).where(
        StackExport.tenant == tenant, _live()).order_by(StackExport.name)
