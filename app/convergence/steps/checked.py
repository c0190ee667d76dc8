"""The end of a CHECK traversal: the stack's reason, as Heat's convergence stack check
(``heat/engine/check_resource.py`` ``check_stack_complete``, ``heat/engine/stack.py``
``_check_post_reason``).

A failed check names every resource that failed, in one reason:
``"Resource CHECK failed: server: Resource CHECK failed: NotFound: resources.server: ..."``
(each failure ``<name>: Resource CHECK failed: <its reason>``, joined by ``"; "``); when some
resource cannot check itself (no ``handle_check``, or a nested stack with one) the reason, failed or
complete, ends with ``". 'CHECK' not fully supported (see resources)"``.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.engine.states import Action, Status, stack_reason
from app.models import Resource
from app.resource_types import registry

NOT_FULLY_SUPPORTED = ". 'CHECK' not fully supported (see resources)"


def _supported(s: Session, r: Any) -> bool:
    """Heat's ``supports_check_action`` of one resource: it has ``handle_check``; a nested
    stack when every resource of its child does. O(descendant resources)."""
    data = r.rsrc_data or {}
    if data.get("nested"):
        return r.physical_resource_id is not None and _all_supported(s, r.physical_resource_id)
    cls = registry.get(str(data.get("_impl") or r.type))
    return cls is not None and callable(getattr(cls, "handle_check", None))


def _all_supported(s: Session, stack_id: str) -> bool:
    rows = s.execute(select(Resource.type, Resource.rsrc_data, Resource.physical_resource_id)
                     .where(Resource.stack_id == stack_id)).all()
    return all(_supported(s, r) for r in rows)


def final_reason(s: Session, stack_id: str, status: str, fallback: str) -> str:
    """The CHECK traversal's final reason for ``status`` (COMPLETE or FAILED); ``fallback``:
    the stack's first failure, used when no resource row is CHECK_FAILED. O(resources)."""
    rows = s.execute(select(Resource.name, Resource.type, Resource.rsrc_data, Resource.action,
                            Resource.status, Resource.status_reason,
                            Resource.physical_resource_id)
                     .where(Resource.stack_id == stack_id).order_by(Resource.id)).all()
    if status == Status.FAILED:
        failures = [f"{r.name}: Resource CHECK failed: {r.status_reason}" for r in rows
                    if (r.action, r.status) == (Action.CHECK, Status.FAILED)]
        reason = "Resource CHECK failed: " + "; ".join(failures) if failures else fallback
    else:
        reason = stack_reason(Action.CHECK, status)
    if not all(_supported(s, r) for r in rows):
        reason += NOT_FULLY_SUPPORTED
    return reason
