"""The nested-stack driver: template resources, nested stacks, groups and scaling groups.

More in docs/code/convergence.md (app.convergence.nested.stacks).
"""
from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import select

from app import config, errors
from app.convergence import plugins, runtime, traversal, wakeups
from app.convergence.nested import kinds
from app.convergence.nested.group_driver import GroupDriver
from app.convergence.nested.groups import (
    GROUP,
    SCALING,
    STACK,
    TEMPLATE,
    plain,
    requested_removals,
)
from app.convergence.steps import signals
from app.convergence.steps.snapshots import RESTORE_DATA, restore_template
from app.convergence.store import attrdata
from app.convergence.store.rows import ResourceRow
from app.engine.states import Action, Status
from app.models import RawTemplate, Stack, read_session, session
from app.resource_types import aws_elb, base, failures, heat_stack
from app.templates.type_resolution import nested_environment


def driver_for(r: ResourceRow, st: Any, properties: dict[str, Any] | None,
               loaded: Any = None) -> Any:
    """The plugin-shaped driver of row ``r``: a :class:`NestedResource` for a nested kind,
    else the registry plugin (:func:`app.convergence.plugins.registry_plugin`; a wait
    condition is given :func:`app.convergence.steps.signals.pull_handle` for its handle's queue)."""
    if r.nested_kind:
        return NestedResource(st, r, properties, loaded)
    plugin: Any = plugins.registry_plugin(r, st, properties)
    if hasattr(type(plugin), "pull_signals_of"):   # a wait condition: its handle's queue
        plugin.pull_signals_of = functools.partial(signals.pull_handle, st)
    return plugin


def facade(rdef: Any) -> dict[str, Any]:
    """A nested stack's view of its parent resource (``resource_facade``): plain JSON."""
    return {"metadata": plain(rdef.metadata), "deletion_policy": rdef.deletion_policy,
            "update_policy": plain(rdef.update_policy)}


class NestedResource(GroupDriver):
    """The plugin-shaped driver of a nested resource (used by the engine like a plugin)."""

    def __init__(self, st: Any, r: Any, props: dict[str, Any] | None, loaded: Any = None) -> None:
        self.st, self.r, self.loaded = st, r, loaded
        self.properties = dict(props or {})
        self.resource_id: str | None = r.physical_resource_id
        self.data: dict[str, Any] = dict(r.rsrc_data or {})
        self.name = r.name
        #: seconds a batched group change pauses before its next batch (None: not pausing;
        #: the engine then polls after that long instead of waiting for the child)
        self.pause_left: float | None = None
        self._child_name: str | None = None

    # -- create ------------------------------------------------------------------------------
    def child_name(self) -> str:
        return f"{self.st.name}-{self.r.name}-{base.short_id(self.r.uuid)}"

    def handle_create(self, traversal_id: str, adopt: dict[str, Any] | None = None
                      ) -> str | dict[str, Any]:
        """Create the child stack (through the ``ChildStacks`` port); a redelivered create adopts
        the child made the first time. With ``adopt`` (the child's adopt data: Heat's
        ``handle_adopt``) the child adopts its ``resources`` instead, all at once (no
        ``batch_create``), a scaling group's child from the data's own template. The child's
        template comes from the resource's kind (:mod:`.kinds`).
        :returns: the child's id, or a batched create's plan (:mod:`.group_batches`).

        :raises errors.ResourceFailure: deeper than ``max_nested_stack_depth``."""
        settings = config.get()
        depth = (self.st.nested_depth or 0) + 1
        if depth > settings.max_nested_stack_depth:
            raise errors.ResourceFailure(
                f"Recursion depth exceeds {settings.max_nested_stack_depth}.")
        definition = self.loaded.definition
        rdef = definition.resources[self.r.name]
        with read_session() as s:
            files = dict(s.execute(select(RawTemplate.files).where(
                RawTemplate.id == self.st.raw_template_id)).scalar() or {})
        env = nested_environment(definition, self.r.name)
        strategy = kinds.of(rdef)
        assert strategy is not None, self.r.name
        self.data["nested"] = strategy.label
        plan = strategy.create(self, rdef, files, adopt)
        template, params, timeout, batched = plan.template, plan.params, plan.timeout, plan.batched
        if timeout is None:   # Heat's create_with_template: the parent stack's timeout
            timeout = getattr(self.st, "timeout_mins", None)
        info = {"resource_id": self.r.id, "resource_name": self.r.name,
                "traversal": traversal_id, "is_update": True, "facade": facade(rdef)}
        try:
            resources = None if adopt is None else dict(adopt.get("resources") or {})
            self.resource_id = runtime.current().child_stacks.create(
                self.st, self.child_name(), template, params, files, env, depth, info,
                timeout_mins=timeout, adopt_resources=resources)
        except errors.StokerError as exc:
            if isinstance(exc, errors.StackExists):  # a redelivered create: adopt the child
                with read_session() as s:
                    self.resource_id = s.execute(select(Stack.id).where(
                        Stack.parent_id == self.st.id, Stack.name == self.child_name(),
                        Stack.deleted_at.is_(None))).scalar()
            elif exc.heat_type == "StackValidationFailed":  # Heat's Resource.create
                raise errors.ValidationError(failures.created_validation_message(exc, self.r.name))
            else:
                raise
        if batched is not None:
            batched.update(ct=self._child_traversal(), pt=traversal_id)
            return batched
        return self.resource_id or ""

    # -- update ------------------------------------------------------------------------------
    def handle_update(self, traversal_id: str, props: dict[str, Any]) -> str | dict[str, Any]:
        """Update the child stack to the new definition (Heat always updates a nested stack
        and lets its resources decide what changes); a group's members follow ``count``. In a
        restore, with the child's part of the snapshot in ``data`` (``RESTORE_DATA``), the
        child is restored to it instead, all at once
        (:func:`app.convergence.steps.snapshots.restore_template`).

        :raises errors.ResourceFailure: the child stack is gone.
        """
        definition = self.loaded.definition
        rdef = definition.resources[self.r.name]
        with read_session() as s:
            files = dict(s.execute(select(RawTemplate.files).where(
                RawTemplate.id == self.st.raw_template_id)).scalar() or {})
            child = s.get(Stack, self.resource_id) if self.resource_id else None
        if child is None or child.deleted_at is not None:
            raise errors.ResourceFailure(f"The nested stack of {self.r.name} is gone.")
        env = nested_environment(definition, self.r.name)
        old_props, self.properties = self.properties, dict(props)
        strategy = kinds.of(rdef)
        assert strategy is not None, self.r.name
        plan = strategy.update(self, rdef, files, child, old_props, props)
        template, params, batched = plan.template, plan.params, plan.batched
        restore = self.data.pop(RESTORE_DATA, None)
        if isinstance(restore, dict):
            template, batched = restore_template(restore), None
        self._update_child(child, template, params, files, env, traversal_id,
                           restore if isinstance(restore, dict) else None)
        if batched is not None:
            batched.update(ct=self._child_traversal(), pt=traversal_id)
            return batched
        return self.resource_id or ""

    def _stack_source(self, props: dict[str, Any], files: dict[str, Any]
                      ) -> tuple[Any, dict[str, Any], int | None]:
        """A stack resource's child: its template and parameters (an ELB's from its plugin,
        which reads its instances' addresses)."""
        if self.r.impl() == aws_elb.TYPE:
            plugin = plugins.registry_plugin(self.r, self.st, props)
            values = self.loaded.definition.params.values  # Heat's self.stack.parameters
            return plugin.child_source(dict(values))  # type: ignore[no-any-return]
        return heat_stack.child_source(self.r.impl(), props, files)

    def _skiplist(self, old_props: dict[str, Any]) -> list[str]:
        """The stored name skiplist; a group created before skiplists were stored gets the
        names its old ``removal_policies`` listed (what its create skipped)."""
        if "name_blacklist" in self.data:
            return list(self.data["name_blacklist"] or [])
        return requested_removals(old_props)

    def _update_child(self, child: Stack, template: Any, params: dict[str, Any],
                      files: dict[str, Any], env: dict[str, Any], traversal_id: str,
                      restore: dict[str, Any] | None = None) -> None:
        rdef = self.loaded.definition.resources[self.r.name]
        info = dict(child.nested_info or {})
        info.update(traversal=traversal_id, is_update=True, facade=facade(rdef))
        child.nested_info = info
        runtime.current().child_stacks.update(self.st, child, template, params, files, env,
                                              info, restore=restore)

    def check_update_complete(self, handle: Any) -> bool:
        if isinstance(handle, dict) and "batches" in handle:
            return self._scaled(self._next_batch(handle))
        child = self._child()
        if child is None or child.status == Status.IN_PROGRESS \
                or child.action not in (Action.UPDATE, Action.RESTORE):
            if child is not None and child.status == Status.FAILED:
                raise self._failure(child, Action.UPDATE)
            return False
        if child.status == Status.FAILED:
            raise self._failure(child, Action(child.action))
        self._done_child = child
        return True

    def _child(self) -> Any:
        if not self.resource_id:
            return None
        with read_session() as s:
            return s.get(Stack, self.resource_id)

    def _finished_child(self) -> Any:
        """The child's row as the completion check of this step read it when it found the
        child finished (nothing changes it later in the step), else a fresh read: the
        reference id and attributes of a finished node cost no read of their own."""
        done = getattr(self, "_done_child", None)
        return done if done is not None and done.id == self.resource_id else self._child()

    def _failure(self, child: Any, action: str) -> failures.NestedFailed:
        """A failed child's reason: Heat's ``ResourceInError`` for an OS::Heat::Stack
        (``Went to status CREATE_FAILED due to "<reason>"``, remote_stack.py), the child's
        own failure under this resource's path for the others."""
        if self.r.impl() == heat_stack.OS_STACK:
            where = failures.format_path(("resources", self.r.name))
            return failures.NestedFailed(f"ResourceInError: {where}: Went to status "
                                f"{child.action}_{child.status} due to "
                                f"\"{child.status_reason}\"")
        return failures.NestedFailed(failures.nested_failure_reason(child.status_reason, action,
                                                       ("resources", self.r.name)))

    def check_create_complete(self, handle: Any) -> bool:
        if isinstance(handle, dict) and "batches" in handle:
            return self._next_batch(handle)
        child = self._child()
        if child is None or child.status == Status.IN_PROGRESS:
            return False
        if child.status == Status.FAILED:
            raise self._failure(child, Action.ADOPT if child.action == Action.ADOPT
                                else Action.CREATE)
        self._done_child = child
        return self._scaled(True)

    def wait_event(self) -> str:
        """The event this driver's node waits for: its child stack's traversal ending."""
        return wakeups.child_stack_event(self.resource_id or "")

    def poll_delay(self, handle: Any, attempt: int) -> float:
        if self.pause_left is not None:
            return self.pause_left
        return min(2.0, 0.05 * float(2 ** min(attempt, 6)))

    # -- delete ------------------------------------------------------------------------------
    def handle_delete(self) -> Any:
        """Start the child's DELETE traversal (nothing if it is gone). :returns: its id."""
        with session() as s:
            child = s.get(Stack, self.resource_id) if self.resource_id else None
            if child is None or child.deleted_at is not None:
                return None
            info = dict(child.nested_info or {})
            info.update(traversal=self.st.current_traversal, is_update=False)
            child.nested_info = info
            traversal.start_reverse(s, child, Action.DELETE)
        return self.resource_id

    def check_delete_complete(self, handle: Any) -> bool:
        child = self._child()
        if child is None or child.stack_status == f"{Action.DELETE}_{Status.COMPLETE}":
            return True
        if child.status == Status.FAILED:
            raise failures.NestedFailed(failures.nested_failure_reason(child.status_reason, Action.DELETE,
                                                          ("resources", self.r.name)))
        return False

    # -- reference and attributes ------------------------------------------------------------
    def get_reference_id(self) -> str:
        child = self._finished_child()
        if child is None:
            return str(self.r.name)
        outs = {o["output_key"]: o for o in child.outputs or []}
        if self.data.get("nested") == TEMPLATE and "OS::stack_id" in outs:
            return str(outs["OS::stack_id"].get("output_value"))
        if self.data.get("nested") in (GROUP, SCALING) or self.r.impl() == heat_stack.OS_STACK:
            return str(child.id)
        if self.r.impl() == aws_elb.TYPE:
            return str(self.r.name)
        return f"arn:openstack:heat::{child.tenant}:stacks/{child.name}/{child.id}"

    def attr_data(self, paths: set[tuple[Any, ...]]) -> dict[str, Any]:
        self._refs = None   # a group's member references: read again, once for all paths
        child = self._finished_child()
        outs = {o["output_key"]: o for o in (child.outputs if child else None) or []}
        value = {GROUP: self._group_value, SCALING: self._scaling_value,
                 STACK: self._stack_value}.get(str(self.data.get("nested")), self._output_value)
        self._child_name = child.name if child is not None else None
        return {"ref": self.get_reference_id(), "attrs": {},
                "paths": {attrdata.path_key(p): value(p, outs) for p in paths if p}}

    def _stack_value(self, path: tuple[Any, ...], outs: dict[str, Any]) -> Any:
        """OS::Heat::Stack's ``outputs`` / ``stack_name``; AWS's ``Outputs.<name>``."""
        head = str(path[0])
        if self.r.impl() == heat_stack.OS_STACK:
            if head == "outputs":
                return attrdata.walk({k: o.get("output_value") for k, o in outs.items()},
                                     path[1:])
            if head == "stack_name":
                return self._child_name
        elif self.r.impl() == aws_elb.TYPE and head in aws_elb.ATTRIBUTES:
            return aws_elb.attribute(head, {k: o.get("output_value") for k, o in outs.items()})
        elif head.startswith("Outputs."):
            return self._output_value((head[len("Outputs."):], *path[1:]), outs)
        return attrdata.error(f"The Referenced Attribute ({self.r.name} {head}) is incorrect.")

    def _output_value(self, path: tuple[Any, ...], outs: dict[str, Any]) -> Any:
        key = str(path[0])
        if key not in outs:
            return attrdata.error(f"The Referenced Attribute ({self.r.name} {key}) is incorrect.")
        if outs[key].get("output_error"):
            return attrdata.error(f"Error in {self.r.name} output {key}: "
                                  f"{outs[key]['output_error']}")
        return attrdata.walk(outs[key].get("output_value"), path[1:])

