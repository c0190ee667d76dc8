"""Nested stacks as use cases: the runtime's :class:`app.convergence.nested.child_stacks.ChildStacks` port.

A child stack is created and updated exactly as the API's create and update do (template,
environment and parameter checks, limits, the stored template), so the runtime asks this module
instead of importing the use cases (imports point one way: services -> convergence).
"""
from __future__ import annotations

from typing import Any

from app.context import RequestContext
from app.engine.states import Action
from app.models import Stack, session
from app.services import export_guard, snapshots, stack_policy, stacks, updates


class ServiceChildStacks:
    """Creates and updates child stacks through :mod:`app.services.stacks` / ``updates``."""

    def create(self, parent: Any, name: str, template: Any, params: dict[str, Any],
               files: dict[str, Any], environment: dict[str, Any], depth: int,
               info: dict[str, Any], timeout_mins: int | None = None,
               adopt_resources: dict[str, Any] | None = None) -> str:
        """As :func:`app.services.stacks.create_stack`, in the parent's tenant (an ADOPT of
        ``adopt_resources`` when given).

        :raises errors.StackExists: and the errors of a create."""
        return stacks.create_stack_id(RequestContext(tenant_id=parent.tenant), stack_name=name,
                                       template=template, parameters=params, files=files,
                                       environment=environment, parent_id=parent.id,
                                       nested_depth=depth, nested_info=info,
                                       timeout_mins=timeout_mins,
                                       adopt_resources=adopt_resources)

    def update(self, parent: Any, child: Stack, template: Any, params: dict[str, Any],
               files: dict[str, Any], environment: dict[str, Any],
               info: dict[str, Any], restore: dict[str, Any] | None = None) -> None:
        """As :func:`app.services.updates.update_stack` for the child (its ``nested_info``
        stored with it), held against the child's own stack policy as CloudFormation holds a
        nested stack's update (a parent's policy governs only its own resources; a rollback
        is not held); with ``restore`` (the child's data in a snapshot) a RESTORE that keeps
        generated values as :func:`app.services.snapshots.restore_snapshot` does.
        :raises: the errors of an update's checks; errors.Conflict
            ``UpdateDeniedByStackPolicy`` when the child's policy denies a change."""
        prep = updates.prepare_update(RequestContext(tenant_id=parent.tenant), child,
                                         template=template, parameters=params, files=files,
                                         environment=environment)
        if restore is None and getattr(parent, "action", None) != Action.ROLLBACK:
            stack_policy.check(child, prep)
            export_guard.check(child, prep)
        with session() as s:
            row = s.get(Stack, child.id, with_for_update=True)
            assert row is not None
            row.nested_info = info
            if restore is None:
                updates.apply(s, row, prep)
            else:
                snapshots.restore_generated(s, child.id, prep, restore.get("resources") or {})
                updates.apply(s, row, prep, Action.RESTORE)
