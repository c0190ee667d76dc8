"""A stack's tags as ``stack_tag`` rows (Heat's ``stack_tag`` table), written with the stack's
``tags`` column so that the listing's tag filters read an index."""
from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, insert
from sqlalchemy.orm import Session

from app.models.tables import StackTag


def set_tags(s: Session, stack_id: str, tags: Sequence[str] | None, *, new: bool = False) -> None:
    """Make ``stack_tag`` hold exactly ``tags`` (duplicates once) for the stack, inside the
    caller's transaction; ``new``: the stack has no rows yet (no delete issued)."""
    if not new:
        s.execute(delete(StackTag).where(StackTag.stack_id == stack_id))
    unique = list(dict.fromkeys(tags or ()))
    if unique:
        s.execute(insert(StackTag), [{"stack_id": stack_id, "tag": t} for t in unique])
