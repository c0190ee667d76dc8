"""Which cloud resources a delete keeps: an abandon keeps them all, the rollback of a failed
adopt keeps what was taken over (Heat's ``Stack.adopt`` rollback "enters the same flow as
abandon": ``delete(action=ROLLBACK, abandon=True)``, ``heat/engine/stack.py``).

Both mark rows ``deletion_policy = "Retain"`` across the stack and its descendants, in the
caller's transaction, before the reverse traversal starts; a nested-stack resource still
deletes its child stack from Stoker (whose own rows are marked the same way), so no child is
left behind.
"""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.engine.states import Action
from app.models import Resource


def _mark(s: Session, stack_id: str, keep: Callable[[Resource], bool]) -> None:
    todo = [stack_id]
    while todo:
        sid = todo.pop()
        for r in s.execute(select(Resource).where(Resource.stack_id == sid)).scalars():
            if (r.rsrc_data or {}).get("nested"):
                if r.physical_resource_id:
                    todo.append(r.physical_resource_id)
            elif keep(r):
                r.deletion_policy = "Retain"


def retain_all(s: Session, stack_id: str) -> None:
    """Every cloud resource of the stack and of its descendants is kept (abandon).
    O(descendant resources)."""
    _mark(s, stack_id, lambda r: True)


def retain_adopted(s: Session, stack_id: str) -> None:
    """The resources the stack (and its descendants) took over, action ADOPT, are kept; what
    the adopt created (a nested stack the adopt data did not hold, as Heat's ``handle_adopt``
    with no data creates it) is deleted, so a failed adopt leaves the cloud as it found it.
    O(descendant resources)."""
    _mark(s, stack_id, lambda r: r.action == Action.ADOPT)
