"""Nested stacks: template resources (provider templates) and OS::Heat::ResourceGroup.

A nested resource's create makes a child stack (a stack row with ``parent_id``, its own
traversal) and is polled until the child finishes; the child also wakes its parent node when its
traversal ends. Its reference id and attributes come from the child: a template resource's
attributes are the child's outputs and its reference id is the child's ARN (or an
``OS::stack_id`` output), as Heat's TemplateResource; a group's attributes are computed from
member outputs the group's child template declares. Depth is limited by
``max_nested_stack_depth`` (Heat's "Recursion depth exceeds N.").
"""
from __future__ import annotations

import copy
from typing import Any

from sqlalchemy import select

from app import config, errors
from app.context import RequestContext
from app.models import RawTemplate, Stack, read_session, session
from app.resource_types import base
from app.services import attrdata

TEMPLATE, GROUP = "template", "group"


class NestedFailed(Exception):
    """The child stack failed; ``reason`` is the parent resource's reason, Heat's wording."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def kind(rdef: Any) -> str | None:
    if getattr(rdef, "template", None):
        return TEMPLATE
    if getattr(rdef, "implementation", rdef.type) == "OS::Heat::ResourceGroup":
        return GROUP
    return None


def _substitute(value: Any, var: str, index: str) -> Any:
    if isinstance(value, str):
        return value.replace(var, index)
    if isinstance(value, dict):
        return {_substitute(k, var, index): _substitute(v, var, index) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, var, index) for v in value]
    return value


def member_props(props: dict[str, Any], index: str) -> dict[str, Any]:
    """The resolved properties of member ``index`` (index_var substituted)."""
    rdef = props.get("resource_def") or {}
    var = props.get("index_var") or "%index%"
    return dict(_substitute(copy.deepcopy(rdef.get("properties") or {}), var, index))


def member_names(props: dict[str, Any]) -> list[str]:
    """Member names in index order: ``count`` names from "0" up, skipping removed ones.

    :raises errors.ResourceFailure: more members than ``max_resources_per_stack``.
    """
    limit = config.get().max_resources_per_stack
    if int(props.get("count", 1) or 0) > limit:
        raise errors.ResourceFailure(f"You have reached the maximum resources per stack, "
                                     f"{limit}. Please delete some resources.")
    removed = {str(n) for p in props.get("removal_policies") or []
               for n in (p or {}).get("resource_list") or []}
    names: list[str] = []
    i = 0
    while len(names) < int(props.get("count", 1)):
        if str(i) not in removed:
            names.append(str(i))
        i += 1
    return names


def _member_attr(path: tuple[Any, ...]) -> str | None:
    head = str(path[0]) if path else ""
    if head in ("refs", "refs_map", "removed_rsrc_list", "show", ""):
        return None
    if head == "attributes":
        return str(path[1]) if len(path) > 1 else None
    if head.startswith("resource."):
        rest = head[len("resource."):]
        if "." in rest:
            return rest.split(".", 1)[1]
        return str(path[1]) if len(path) > 1 else None
    return head


def group_template(props: dict[str, Any], paths: set[tuple[Any, ...]]) -> dict[str, Any]:
    """The child template of a group: its members, and outputs for every member reference id
    and every member attribute the parent references (``"<member>|ref"``, ``"<member>|<attr>"``)."""
    rdef = props.get("resource_def") or {}
    var = props.get("index_var") or "%index%"
    attrs = sorted({a for p in paths if (a := _member_attr(p))})
    resources: dict[str, Any] = {}
    outputs: dict[str, Any] = {}
    for n in member_names(props):
        member: dict[str, Any] = {"type": rdef.get("type")}
        if rdef.get("properties"):
            member["properties"] = _substitute(copy.deepcopy(rdef["properties"]), var, n)
        if rdef.get("metadata"):
            member["metadata"] = _substitute(copy.deepcopy(rdef["metadata"]), var, n)
        resources[n] = member
        outputs[f"{n}|ref"] = {"value": {"get_resource": n}}
        for a in attrs:
            outputs[f"{n}|{a}"] = {"value": {"get_attr": [n, a]}}
    return {"heat_template_version": "2021-04-16", "resources": resources, "outputs": outputs}


class NestedResource:
    """The plugin-shaped driver of a nested resource (used by the engine like a plugin)."""

    def __init__(self, st: Any, r: Any, props: dict[str, Any] | None, loaded: Any = None) -> None:
        self.st, self.r, self.loaded = st, r, loaded
        self.properties = dict(props or {})
        self.resource_id: str | None = r.physical_resource_id
        self.data: dict[str, Any] = dict(r.rsrc_data or {})
        self.name = r.name

    # -- create ------------------------------------------------------------------------------
    def child_name(self) -> str:
        return f"{self.st.name}-{self.r.name}-{base.short_id(self.r.uuid)}"

    def handle_create(self, traversal_id: str) -> str:
        from app.services import stacks
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
        from app.templates.type_resolution import nested_environment
        env = nested_environment(definition, self.r.name)
        if kind(rdef) == GROUP:
            self.data["nested"] = GROUP
            self.data["members"] = member_names(self.properties)
            template: Any = group_template(self.properties,
                                           definition.referenced_attributes(self.r.name))
            params: dict[str, Any] = {}
        else:
            self.data["nested"] = TEMPLATE
            template, params = files[rdef.template], self.properties
        info = {"resource_id": self.r.id, "resource_name": self.r.name,
                "traversal": traversal_id, "is_update": True,
                "facade": {"metadata": _plain(rdef.metadata),
                           "deletion_policy": rdef.deletion_policy,
                           "update_policy": _plain(rdef.update_policy)}}
        ctx = RequestContext(tenant_id=self.st.tenant)
        try:
            child = stacks.create_stack(ctx, stack_name=self.child_name(), template=template,
                                        parameters=params, files=files, environment=env,
                                        parent_id=self.st.id, nested_depth=depth,
                                        nested_info=info)
            self.resource_id = child.id
        except errors.StackExists:  # a redelivered create: adopt the child made the first time
            with read_session() as s:
                self.resource_id = s.execute(select(Stack.id).where(
                    Stack.parent_id == self.st.id, Stack.name == self.child_name(),
                    Stack.deleted_at.is_(None))).scalar()
        return self.resource_id or ""

    # -- update ------------------------------------------------------------------------------
    def handle_update(self, traversal_id: str, props: dict[str, Any]) -> str:
        """Update the child stack to the new definition (Heat always updates a nested stack
        and lets its resources decide what changes); a group's members follow ``count``.

        :raises errors.ResourceFailure: the child stack is gone.
        """
        from app.services import updates
        definition = self.loaded.definition
        rdef = definition.resources[self.r.name]
        with read_session() as s:
            files = dict(s.execute(select(RawTemplate.files).where(
                RawTemplate.id == self.st.raw_template_id)).scalar() or {})
            child = s.get(Stack, self.resource_id) if self.resource_id else None
        if child is None or child.deleted_at is not None:
            raise errors.ResourceFailure(f"The nested stack of {self.r.name} is gone.")
        from app.templates.type_resolution import nested_environment
        env = nested_environment(definition, self.r.name)
        self.properties = dict(props)
        if kind(rdef) == GROUP:
            self.data["members"] = member_names(props)
            template: Any = group_template(props, definition.referenced_attributes(self.r.name))
            params: dict[str, Any] = {}
        else:
            template, params = files[rdef.template], props
        info = dict(child.nested_info or {})
        info.update(traversal=traversal_id, is_update=True,
                    facade={"metadata": _plain(rdef.metadata),
                            "deletion_policy": rdef.deletion_policy,
                            "update_policy": _plain(rdef.update_policy)})
        child.nested_info = info
        prep = updates.prepare_update(RequestContext(tenant_id=self.st.tenant), child,
                                      template=template, parameters=params, files=files,
                                      environment=env)
        with session() as s:
            row = s.get(Stack, child.id, with_for_update=True)
            assert row is not None
            row.nested_info = info
            updates.apply(s, row, prep)
        return self.resource_id or ""

    def check_update_complete(self, handle: Any) -> bool:
        child = self._child()
        if child is None or child.status == "IN_PROGRESS" or child.action != "UPDATE":
            if child is not None and child.status == "FAILED":
                raise NestedFailed(base.nested_failure_reason(
                    child.status_reason, "UPDATE", ("resources", self.r.name)))
            return False
        if child.status == "FAILED":
            raise NestedFailed(base.nested_failure_reason(child.status_reason, "UPDATE",
                                                          ("resources", self.r.name)))
        return True

    def _child(self) -> Any:
        if not self.resource_id:
            return None
        with read_session() as s:
            return s.get(Stack, self.resource_id)

    def check_create_complete(self, handle: Any) -> bool:
        child = self._child()
        if child is None or child.status == "IN_PROGRESS":
            return False
        if child.status == "FAILED":
            raise NestedFailed(base.nested_failure_reason(child.status_reason, "CREATE",
                                                          ("resources", self.r.name)))
        return True

    def poll_delay(self, handle: Any, attempt: int) -> float:
        return min(2.0, 0.05 * (2 ** min(attempt, 6)))

    # -- delete ------------------------------------------------------------------------------
    def handle_delete(self) -> Any:
        from app.services import traversals
        with session() as s:
            child = s.get(Stack, self.resource_id) if self.resource_id else None
            if child is None or child.deleted_at is not None:
                return None
            info = dict(child.nested_info or {})
            info.update(traversal=self.st.current_traversal, is_update=False)
            child.nested_info = info
            traversals.start_reverse(s, child, "DELETE")
        return self.resource_id

    def check_delete_complete(self, handle: Any) -> bool:
        child = self._child()
        if child is None or child.stack_status == "DELETE_COMPLETE":
            return True
        if child.status == "FAILED":
            raise NestedFailed(base.nested_failure_reason(child.status_reason, "DELETE",
                                                          ("resources", self.r.name)))
        return False

    # -- reference and attributes ------------------------------------------------------------
    def get_reference_id(self) -> str:
        child = self._child()
        if child is None:
            return self.r.name
        outs = {o["output_key"]: o for o in child.outputs or []}
        if self.data.get("nested") == TEMPLATE and "OS::stack_id" in outs:
            return str(outs["OS::stack_id"].get("output_value"))
        if self.data.get("nested") == GROUP:
            return str(child.id)
        return f"arn:openstack:heat::{child.tenant}:stacks/{child.name}/{child.id}"

    def attr_data(self, paths: set[tuple[Any, ...]]) -> dict[str, Any]:
        child = self._child()
        outs = {o["output_key"]: o for o in (child.outputs if child else None) or []}
        value = self._group_value if self.data.get("nested") == GROUP else self._output_value
        return {"ref": self.get_reference_id(), "attrs": {},
                "paths": {attrdata.path_key(p): value(p, outs) for p in paths if p}}

    def _output_value(self, path: tuple[Any, ...], outs: dict[str, Any]) -> Any:
        key = str(path[0])
        if key not in outs:
            return attrdata.error(f"The Referenced Attribute ({self.r.name} {key}) is incorrect.")
        if outs[key].get("output_error"):
            return attrdata.error(f"Error in {self.r.name} output {key}: "
                                  f"{outs[key]['output_error']}")
        return attrdata.walk(outs[key].get("output_value"), path[1:])

    def _group_value(self, path: tuple[Any, ...], outs: dict[str, Any]) -> Any:
        names = list(self.data.get("members") or [])

        def out(n: str, a: str) -> Any:
            return (outs.get(f"{n}|{a}") or {}).get("output_value")

        head = str(path[0])
        if head == "refs":
            return attrdata.walk([out(n, "ref") for n in names], path[1:])
        if head == "refs_map":
            return attrdata.walk({n: out(n, "ref") for n in names}, path[1:])
        if head == "removed_rsrc_list":
            return []
        if head == "attributes" and len(path) > 1:
            return attrdata.walk({n: out(n, str(path[1])) for n in names}, path[2:])
        if head.startswith("resource."):
            rest = head[len("resource."):]
            idx, _, attr = rest.partition(".")
            if idx not in names:
                return attrdata.error(
                    f"Member '{idx}' not found in group resource '{self.r.name}'.")
            if attr:
                return attrdata.walk(out(idx, attr), path[1:])
            if len(path) > 1:
                return attrdata.walk(out(idx, str(path[1])), path[2:])
            return out(idx, "ref")
        return attrdata.walk([out(n, head) for n in names], path[1:])


def _plain(value: Any) -> Any:
    import json
    return json.loads(json.dumps(value, default=str)) if value is not None else None


def notify_parent(s: Any, child: Stack) -> None:
    """When a child's traversal ends, wake the parent's node at once (after commit)."""
    info = child.nested_info or {}
    if not child.parent_id or "resource_id" not in info:
        return
    from app.models import after_commit
    from app.services import dispatch
    pid, tid, rid, upd = child.parent_id, info["traversal"], info["resource_id"], info["is_update"]
    after_commit(s, lambda: dispatch.get().check_resource(pid, tid, rid, upd))
