"""Listing and counting stacks, in the database, as Heat's ``stack_get_all`` / ``stack_count_all``
(``heat/db/api.py``: ``_query_stack_get_all``, ``_filter_and_page_query``, ``_paginate_query``).

More in docs/code/services.md (app.services.stack_list).
"""
from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    and_,
    bindparam,
    case,
    false,
    func,
    not_,
    or_,
    select,
    true,
)

from app import config, errors
from app.context import RequestContext
from app.models import Stack, StackTag, read_connection, read_session, rows

#: the table's columns: the query is built and run in SQLAlchemy Core (no ORM compile step)
_S = Stack.__table__.c
#: the columns a summary row (``GET /stacks``) reads: plain rows, no ORM instance per stack
_SUMMARY = (_S.id, _S.name, _S.tenant, _S.username, _S.description, _S.action, _S.status,
            _S.status_reason, _S.created_at, _S.updated_at, _S.deleted_at, _S.parent_id, _S.tags)

#: Heat's sort keys (``rpc_api`` names) → columns (heat/db/api.py ``sort_key_map``)
SORT_KEYS = {"stack_name": _S.name, "stack_status": _S.status,
             "creation_time": _S.created_at, "updated_time": _S.updated_at}
SORT_DIRS = ("asc", "desc")
#: filter names → columns (Heat's legacy names and the stack keys it filters on)
FILTER_COLUMNS = {"stack_name": _S.name, "name": _S.name, "id": _S.id,
                  "status": _S.status, "action": _S.action, "stack_action": _S.action,
                  "tenant": _S.tenant, "username": _S.username,
                  "stack_owner": _S.username, "owner_id": _S.parent_id,
                  "parent": _S.parent_id, "stack_status_reason": _S.status_reason,
                  "disable_rollback": _S.disable_rollback,
                  "timeout_mins": _S.timeout_mins, "stack_user_project_id": _S.tenant}


def _tagged(tags: Sequence[str]) -> Any:
    """The ids of the stacks holding at least one of ``tags`` (read from ``stack_tag``'s
    index on ``(tag, stack_id)``)."""
    return select(StackTag.stack_id).where(StackTag.tag.in_(list(dict.fromkeys(tags))))


def _has_all(tags: Sequence[str]) -> ColumnElement[bool]:
    """The stack holds every one of ``tags``: one index probe per tag (as Heat joins
    ``stack_tag`` once per tag), which the planner estimates better than a grouped count."""
    return and_(*(_S.id.in_(_tagged([t])) for t in dict.fromkeys(tags)))


def _tag_filters(q: Select[Any], tags: Sequence[str] | None, tags_any: Sequence[str] | None,
                 not_tags: Sequence[str] | None, not_tags_any: Sequence[str] | None,
                 hidden: Sequence[str]) -> Select[Any]:
    """Heat's tag filters (``_query_stack_get_all``): ``tags`` every one, ``tags_any`` at least
    one, ``not_tags`` not every one, ``not_tags_any`` none (an untagged stack passes both)."""
    if tags:
        q = q.where(_has_all(tags))
    if tags_any:
        q = q.where(_S.id.in_(_tagged(tags_any)))
    if not_tags:
        q = q.where(not_(_has_all(not_tags)))
    if not_tags_any:
        q = q.where(_S.id.not_in(_tagged(not_tags_any)))
    if hidden:
        q = q.where(_S.id.not_in(_tagged(hidden)))
    return q


def _hidden(show_hidden: bool) -> tuple[str, ...]:
    """The tags that hide a stack from a listing (``hidden_stack_tags``), none with
    ``show_hidden``."""
    return () if show_hidden else tuple(
        t.strip() for t in config.get().hidden_stack_tags.split(",") if t.strip())


def _base(columns: Sequence[Any], every_project: bool, show_deleted: bool,
          show_nested: bool) -> Select[Any]:
    """``columns`` of the stacks in scope: the project's (``:tenant``, bound at execution)
    unless ``every_project``, live unless ``show_deleted``, top-level unless ``show_nested``."""
    q = select(*columns)
    if not every_project:
        q = q.where(_S.tenant == bindparam("tenant"))
    if not show_deleted:
        q = q.where(_S.deleted_at.is_(None))
    if not show_nested:
        q = q.where(_S.parent_id.is_(None))
    return q


def _scoped(ctx: RequestContext, *, global_tenant: bool = False, show_deleted: bool = False,
            show_nested: bool = False, show_hidden: bool = False,
            filters: dict[str, Any] | None = None, tags: Sequence[str] | None = None,
            tags_any: Sequence[str] | None = None, not_tags: Sequence[str] | None = None,
            not_tags_any: Sequence[str] | None = None, columns: Sequence[Any] = (Stack,)
            ) -> Select[Any]:
    """The stacks a listing selects (``:tenant`` bound at execution)."""
    q = _base(columns, ctx.is_admin or global_tenant, show_deleted, show_nested)
    for key, value in (filters or {}).items():
        values = value if isinstance(value, list) else [value]
        col = FILTER_COLUMNS.get(key)
        if col is not None:
            if key == "disable_rollback":
                values = [str(v).lower() == "true" for v in values]
            q = q.where(col.in_(values))
        elif key == "stack_status":
            q = q.where((_S.action + "_" + _S.status).in_(values))
    return _tag_filters(q, tags, tags_any, not_tags, not_tags_any, _hidden(show_hidden))


@functools.lru_cache(maxsize=64)
def _plain_page(every_project: bool, show_deleted: bool, show_nested: bool,
                hidden: tuple[str, ...], order: tuple[tuple[Any, bool], ...],
                limited: bool) -> Select[Any]:
    """A summary page without filters, tags or marker (``GET /stacks?limit=20`` as clients
    poll it), built once per shape: ``:tenant`` and ``:limit`` are bound at execution, and
    SQLAlchemy keeps a built statement's cache key, which it computes again for a new one."""
    q = _ordered(_tag_filters(_base(_SUMMARY, every_project, show_deleted, show_nested),
                              None, None, None, None, hidden), list(order))
    return q.limit(bindparam("limit")) if limited else q


def sort_order(sort_keys: Sequence[str] | None, sort_dir: str | None
               ) -> list[tuple[Any, bool]]:
    """``[(column, descending), ...]`` for Heat's ``sort_keys`` / ``sort_dir``, ``id`` last.

    :raises errors.BadRequest: ``ValueError`` for a sort direction other than asc/desc (Heat's
        400 from oslo.db's ``paginate_query``)."""
    cols = [SORT_KEYS[k] for k in (sort_keys or ()) if k in SORT_KEYS]
    if sort_dir is not None and sort_dir.lower() not in SORT_DIRS:
        raise errors.BadRequest(f"Unknown sort direction \"{sort_dir}\", must be one of: "
                                "asc, desc", heat_type="ValueError")
    if not cols:
        cols = [_S.created_at]
        direction = (sort_dir or "desc").lower()
    else:
        direction = (sort_dir or "asc").lower()
    desc = direction == "desc"
    return [(c, desc) for c in [*cols, _S.id]]


def _nulls(col: Any) -> Any:
    return case((col.is_(None), 1), else_=0)


def _ordered(q: Select[Any], order: list[tuple[Any, bool]]) -> Select[Any]:
    for col, desc in order:
        if col.nullable:  # NULL is larger than every value, on every database
            q = q.order_by(_nulls(col).desc() if desc else _nulls(col).asc())
        q = q.order_by(col.desc() if desc else col.asc())
    return q


def _after(col: Any, desc: bool, value: Any) -> ColumnElement[bool]:
    """Rows strictly after ``value`` in ``col``'s order (NULL largest)."""
    if value is None:
        return col.is_not(None) if desc else false()
    if desc:
        return col < value
    return or_(col > value, col.is_(None)) if col.nullable else col > value


def _same(col: Any, value: Any) -> ColumnElement[bool]:
    return col.is_(None) if value is None else col == value


def _after_marker(order: list[tuple[Any, bool]], marker: Any) -> ColumnElement[bool]:
    """The keyset condition "after the marker row" over the whole order (ends with id)."""
    values = [getattr(marker, col.key) for col, _ in order]
    terms = []
    for i, (col, desc) in enumerate(order):
        prefix = [_same(order[j][0], values[j]) for j in range(i)]
        terms.append(and_(*prefix, _after(col, desc, values[i])))
    return or_(*terms) if terms else true()


def list_stacks(ctx: RequestContext, *, show_deleted: bool = False,
                filters: dict[str, Any] | None = None, limit: int | None = None,
                marker: str | None = None, sort_keys: list[str] | None = None,
                sort_dir: str | None = None, show_nested: bool = False,
                show_hidden: bool = False, global_tenant: bool = False,
                tags: Sequence[str] | None = None, tags_any: Sequence[str] | None = None,
                not_tags: Sequence[str] | None = None,
                not_tags_any: Sequence[str] | None = None, summary: bool = False) -> list[Any]:
    """One page of stacks (see the module doc for every argument's meaning). ``summary``:
    plain rows of the columns of Heat's summary form (:data:`_SUMMARY`; reading another
    raises ``AttributeError``), else :class:`Stack` instances.

    :returns: at most ``limit`` rows (all when ``limit`` is None), in the requested order.
    :raises errors.BadRequest: a sort direction other than asc/desc.
    """
    order = sort_order(sort_keys, sort_dir)
    params = {"tenant": ctx.tenant_id, "limit": None if limit is None else max(0, int(limit))}
    if summary and not (marker or filters or tags or tags_any or not_tags or not_tags_any):
        with read_connection() as conn:
            return rows(conn, _plain_page(
                bool(ctx.is_admin or global_tenant), show_deleted, show_nested,
                _hidden(show_hidden), tuple(order), limit is not None), params)
    q = _scoped(ctx, global_tenant=global_tenant, show_deleted=show_deleted,
                show_nested=show_nested, show_hidden=show_hidden, filters=filters, tags=tags,
                tags_any=tags_any, not_tags=not_tags, not_tags_any=not_tags_any,
                columns=_SUMMARY if summary else (Stack,))
    with read_connection() as conn:
        if marker:
            row = conn.execute(select(*dict.fromkeys(col for col, _ in order))
                               .where(_S.id == marker)).first()
            if row is not None:
                q = q.where(_after_marker(order, row))
        q = _ordered(q, order)
        if limit is not None:
            q = q.limit(max(0, int(limit)))
        if summary:
            return conn.execute(q, params).all()
    with read_session() as s:
        return list(s.execute(q, params).scalars())


def count_stacks(ctx: RequestContext, **query: Any) -> int:
    """How many stacks :func:`list_stacks` would list without paging (Heat's ``count_stacks``:
    the same scope, filters and tags; ``limit``, ``marker`` and sorting are not arguments)."""
    q = _scoped(ctx, **query)
    with read_session() as s:
        return int(s.execute(select(func.count()).select_from(q.subquery()),
                             {"tenant": ctx.tenant_id}).scalar() or 0)
