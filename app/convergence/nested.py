"""Nested stacks: template resources (provider templates) and OS::Heat::ResourceGroup.

A nested resource's create makes a child stack (a stack row with ``parent_id``, its own
traversal); its node then WAITS (the ``Wait`` outcome) for the child to finish: the child's
traversal end wakes it (:func:`app.convergence.wakeups.child_finished`), a slow safety poll being
the only timer. Its reference id and attributes come from the child: a template resource's
attributes are the child's outputs and its reference id is the child's ARN (or an
``OS::stack_id`` output), as Heat's TemplateResource; a group's attributes are computed from
member outputs the group's child template declares. Depth is limited by
``max_nested_stack_depth`` (Heat's "Recursion depth exceeds N.").

Creating and updating the child are API use cases (validation, limits, the stored template):
the runtime reaches them through the port :class:`app.convergence.child_stacks.ChildStacks`,
which ``app.services`` installs, so that imports keep pointing one way.
"""
from __future__ import annotations

import functools
import json
from typing import Any

from sqlalchemy import select

from app import config, errors
from app.convergence import (
    attrdata,
    group_batches,
    plugins,
    scaling_group,
    signals,
    traversal,
    wakeups,
)
from app.convergence.child_stacks import port
from app.convergence.groups import (
    DEPLOYMENT_GROUPS,
    GROUP,
    RESOURCE_CHAIN,
    SCALING,
    STACK,
    TEMPLATE,
    chain_names,
    chain_template,
    deployment_names,
    deployment_template,
    group_template,
    kind,
    requested_removals,
    skiplist_update,
)
from app.convergence.nested_groups import GroupDriver
from app.convergence.plugins import NestedFailed
from app.convergence.rows import ResourceRow
from app.convergence.snapshots import RESTORE_DATA, restore_template
from app.engine.rolling import batches as rolling_batches
from app.engine.states import Action, Status
from app.models import RawTemplate, Stack, read_session, session
from app.resource_types import aws_elb, base, failures, heat_stack
from app.templates import global_templates
from app.templates.type_resolution import nested_environment


def driver_for(r: ResourceRow, st: Any, properties: dict[str, Any] | None,
               loaded: Any = None) -> Any:
    """The plugin-shaped driver of row ``r``: a :class:`NestedResource` for a nested kind,
    else the registry plugin (:func:`app.convergence.plugins.registry_plugin`; a wait
    condition is given :func:`app.convergence.signals.pull_handle` for its handle's queue)."""
    if r.nested_kind():
        return NestedResource(st, r, properties, loaded)
    plugin: Any = plugins.registry_plugin(r, st, properties)
    if hasattr(type(plugin), "pull_signals_of"):   # a wait condition: its handle's queue
        plugin.pull_signals_of = functools.partial(signals.pull_handle, st)
    return plugin


def facade(rdef: Any) -> dict[str, Any]:
    """A nested stack's view of its parent resource (``resource_facade``): plain JSON."""
    return {"metadata": _plain(rdef.metadata), "deletion_policy": rdef.deletion_policy,
            "update_policy": _plain(rdef.update_policy)}


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

    def handle_create(self, traversal_id: str, adopt: dict[str, Any] | None = None) -> str:
        """Create the child stack (through the ``ChildStacks`` port); a redelivered create adopts
        the child made the first time. With ``adopt`` (the child's adopt data: Heat's
        ``handle_adopt``) the child adopts its ``resources`` instead, all at once (no
        ``batch_create``), a scaling group's child from the data's own template.
        :returns: the child's id.

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
        batched: dict[str, Any] | None = None
        timeout: int | None = None
        template: Any
        if kind(rdef) == GROUP and self.r.impl() == RESOURCE_CHAIN:
            self.data["nested"] = GROUP
            self.data["members"] = chain_names(self.properties)
            template = chain_template(self.properties,
                                      definition.referenced_attributes(self.r.name))
            params: dict[str, Any] = {}
        elif kind(rdef) == GROUP and self.r.impl() in DEPLOYMENT_GROUPS:
            self.data["nested"] = GROUP
            self.data["members"] = deployment_names(self.properties)
            template = deployment_template(self.r.impl(), self.properties,
                                           definition.referenced_attributes(self.r.name))
            params = {}
        elif kind(rdef) == GROUP:
            self.data["nested"] = GROUP
            skip = skiplist_update(self.properties, [], False, [], {})
            self.data["name_blacklist"] = skip
            paths = definition.referenced_attributes(self.r.name)
            count = int(self.properties.get("count", 1) or 0)
            batch = group_batches.policy(_plain(rdef.update_policy), "batch_create")
            if batch and count and adopt is None:
                batched = self._plan(rolling_batches(count, 0, batch["max_batch_size"], 0),
                                     batch["pause_time"])
                cap, new = batched["batches"][0]
                template, self.data["members"] = group_batches.batch_template(
                    self.properties, skip, cap, new, [], paths)
            else:
                template = group_template(self.properties, paths, skip)
                self.data["members"] = list(template["resources"])
            params = {}
        elif kind(rdef) == SCALING:
            self.data["nested"] = SCALING
            self.data["scaling_impl"] = getattr(rdef, "implementation", rdef.type)
            template, _ = scaling_group.template(
                self._member(), [], scaling_group.initial_size(self.properties, self._impl()), 0,
                definition.referenced_attributes(self.r.name))
            if adopt is not None and isinstance(adopt.get("template"), dict):
                template = adopt["template"]
            params = {}
        elif kind(rdef) == STACK:  # OS::Heat::Stack, AWS::CloudFormation::Stack
            self.data["nested"] = STACK
            template, params, timeout = self._stack_source(self.properties, files)
        else:
            self.data["nested"] = TEMPLATE
            template = global_templates.provider(files, rdef.template)
            params = global_templates.child_params(self.properties)
        if timeout is None:   # Heat's create_with_template: the parent stack's timeout
            timeout = getattr(self.st, "timeout_mins", None)
        info = {"resource_id": self.r.id, "resource_name": self.r.name,
                "traversal": traversal_id, "is_update": True, "facade": facade(rdef)}
        try:
            resources = None if adopt is None else dict(adopt.get("resources") or {})
            self.resource_id = port().create(self.st, self.child_name(), template, params,
                                              files, env, depth, info, timeout_mins=timeout,
                                              adopt_resources=resources)
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
            return batched  # type: ignore[return-value]
        return self.resource_id or ""

    # -- update ------------------------------------------------------------------------------
    def handle_update(self, traversal_id: str, props: dict[str, Any]) -> str:
        """Update the child stack to the new definition (Heat always updates a nested stack
        and lets its resources decide what changes); a group's members follow ``count``. In a
        restore, with the child's part of the snapshot in ``data`` (``RESTORE_DATA``), the
        child is restored to it instead, all at once
        (:func:`app.convergence.snapshots.restore_template`).

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
        batched: dict[str, Any] | None = None
        template: Any
        if kind(rdef) == GROUP and self.r.impl() == RESOURCE_CHAIN:
            self.data["members"] = chain_names(props)
            template = chain_template(props, definition.referenced_attributes(self.r.name))
            params: dict[str, Any] = {}
        elif kind(rdef) == GROUP and self.r.impl() in DEPLOYMENT_GROUPS:
            self.data["members"] = deployment_names(props)
            template = deployment_template(self.r.impl(), props,
                                           definition.referenced_attributes(self.r.name))
            params = {}
        elif kind(rdef) == GROUP:
            old = group_batches.members(child.id)
            skip = skiplist_update(props, self._skiplist(old_props), True,
                                   [n for n, _, _ in old], group_batches.refs_of(child))
            self.data["name_blacklist"] = skip
            paths = definition.referenced_attributes(self.r.name)
            roll = group_batches.policy(_plain(rdef.update_policy), "rolling_update")
            batches = rolling_batches(
                int(props.get("count", 1) or 0), group_batches.current_capacity(old, skip),
                roll["max_batch_size"], roll["min_in_service"]) \
                if roll and props.get("resource_def") != old_props.get("resource_def") else []
            if batches:
                assert roll is not None
                batched = self._plan(batches, roll["pause_time"])
                template, self.data["members"] = group_batches.batch_template(
                    props, skip, *batches[0], old, paths)
            else:
                template = group_template(props, paths, skip)
                self.data["members"] = list(template["resources"])
            params = {}
        elif kind(rdef) == SCALING:
            batched = self._plan(*scaling_group.update_batches(
                self._impl(), props, old_props, group_batches.members(child.id),
                _plain(rdef.update_policy)))
            cap, new = batched["batches"][0]
            template, _ = scaling_group.template(self._member(), group_batches.members(child.id), cap,
                                                 new, definition.referenced_attributes(self.r.name))
            params = {}
        elif kind(rdef) == STACK:
            template, params, _ = self._stack_source(props, files)
        else:
            template = global_templates.provider(files, rdef.template)
            params = global_templates.child_params(props)
        restore = self.data.pop(RESTORE_DATA, None)
        if isinstance(restore, dict):
            template, batched = restore_template(restore), None
        self._update_child(child, template, params, files, env, traversal_id,
                           restore if isinstance(restore, dict) else None)
        if batched is not None:
            batched.update(ct=self._child_traversal(), pt=traversal_id)
            return batched  # type: ignore[return-value]
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
        port().update(self.st, child, template, params, files, env, info, restore=restore)

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

    def _failure(self, child: Any, action: str) -> NestedFailed:
        """A failed child's reason: Heat's ``ResourceInError`` for an OS::Heat::Stack
        (``Went to status CREATE_FAILED due to "<reason>"``, remote_stack.py), the child's
        own failure under this resource's path for the others."""
        if self.r.impl() == heat_stack.OS_STACK:
            where = failures.format_path(("resources", self.r.name))
            return NestedFailed(f"ResourceInError: {where}: Went to status "
                                f"{child.action}_{child.status} due to "
                                f"\"{child.status_reason}\"")
        return NestedFailed(failures.nested_failure_reason(child.status_reason, action,
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
            raise NestedFailed(failures.nested_failure_reason(child.status_reason, Action.DELETE,
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

def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str)) if value is not None else None
