"""Raw templates stored once per content: a stack's template, files and merged environment are
hashed, and a stack created or updated with content already stored points at that row (Heat
stores one row per create and per update). A row is removed only when no stack, live or
deleted, names it as its current or previous template.

On PostgreSQL a reused row is locked ``FOR KEY SHARE`` until the caller's transaction ends, and
the removal locks its rows ``FOR UPDATE SKIP LOCKED``: a removal never takes a row that a
create or update is about to point at, and a reuse never finds a row being removed.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam, delete, exists, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.models.base import concurrent_writers, for_update
from app.models.tables import RawTemplate, Stack


def content_hash(template: Any, files: Any, environment: Any) -> str:
    """SHA-256 (64 hex digits) of the three mappings as canonical JSON (sorted keys)."""
    text = json.dumps([template, files or {}, environment or {}], sort_keys=True,
                      separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


_T = RawTemplate.__table__
#: the row of a content (``:digest``), and the same locked ``FOR KEY SHARE`` (PostgreSQL)
_BY_HASH = select(_T.c.id).where(_T.c.content_hash == bindparam("digest"))
_BY_HASH_LOCKED = _BY_HASH.with_for_update(read=True, key_share=True)


def _existing(s: Session, digest: str) -> int | None:
    """Run on the session's connection (SQLAlchemy Core: no ORM step for one id), built once."""
    q = _BY_HASH_LOCKED if concurrent_writers() else _BY_HASH
    found = s.connection().execute(q, {"digest": digest}).scalar()
    return None if found is None else int(found)


def store(s: Session, template: dict[str, Any], files: dict[str, Any] | None,
          environment: dict[str, Any] | None) -> int:
    """The id of the raw template row holding this content: an existing one (locked against
    removal until the transaction ends) or one inserted now. ``content_hash`` is unique, so of
    two transactions storing the same new content one inserts and the other reuses its row.
    Cost: one or two indexed statements."""
    digest = content_hash(template, files, environment)
    values = {"template": template, "files": dict(files or {}),
              "environment": dict(environment or {}), "content_hash": digest}
    insert = pg_insert if s.get_bind().dialect.name == "postgresql" else sqlite_insert
    while True:
        found = _existing(s, digest)
        if found is not None:
            return found
        new = s.execute(insert(RawTemplate).values(**values).on_conflict_do_nothing(
            index_elements=["content_hash"]).returning(RawTemplate.id)).scalar()
        if new is not None:
            return int(new)
        # another transaction stored it meanwhile: reuse it (or, removed since, store it again)


def _unreferenced(ids: list[int]) -> Any:
    return select(RawTemplate.id).where(
        RawTemplate.id.in_(ids),
        ~exists().where(or_(Stack.raw_template_id == RawTemplate.id,
                            Stack.prev_raw_template_id == RawTemplate.id)))


def drop_unreferenced(s: Session, template_ids: Iterable[int | None]) -> int:
    """Delete those of ``template_ids`` that no stack (deleted or not) names as its current or
    previous template. :returns: rows deleted."""
    ids = sorted({int(t) for t in template_ids if t is not None})
    if not ids:
        return 0
    gone = list(s.execute(for_update(_unreferenced(ids), skip_locked=True)).scalars())
    if not gone:
        return 0
    result = s.execute(delete(RawTemplate).where(RawTemplate.id.in_(gone)))
    return max(0, int(getattr(result, "rowcount", 0) or 0))
