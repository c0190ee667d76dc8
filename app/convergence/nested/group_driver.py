"""The group half of the nested driver: batched changes of a ResourceGroup or an autoscaling
group (one child traversal per batch, pauses between them), the cooldown an autoscaling
group's create or update starts, and the group attributes computed from the member outputs.
Mixed into :class:`app.convergence.nested.stacks.NestedResource` (see :mod:`.group_batches`,
:mod:`.scaling_group`).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app import errors
from app.convergence import runtime, timeouts
from app.convergence.nested import group_batches, scaling_group
from app.convergence.nested.groups import (
    DEPLOYMENT_GROUPS,
    RESOURCE_CHAIN,
    SCALING,
    deployment_member_attr,
    member_names,
)
from app.convergence.store import attrdata
from app.models import RawTemplate, Stack, read_session
from app.resource_types import failures
from app.templates.type_resolution import nested_environment


class GroupDriver:
    """Group methods of the nested driver (the attributes are the driver's)."""

    st: Any
    r: Any
    loaded: Any
    properties: dict[str, Any]
    data: dict[str, Any]
    resource_id: str | None
    pause_left: float | None
    _refs: dict[str, Any] | None = None

    def _child(self) -> Any:
        raise NotImplementedError

    def _update_child(self, child: Stack, template: Any, params: dict[str, Any],
                      files: dict[str, Any], env: dict[str, Any], traversal_id: str) -> None:
        raise NotImplementedError

    def _impl(self) -> str:
        return str(self.data.get("scaling_impl") or scaling_group.OS_ASG)

    def _member(self) -> dict[str, Any]:
        """A scaling group's member snippet from its current properties."""
        return scaling_group.member_of(self._impl(), self.properties, self.st.id,
                                       str(self.resource_id or self.r.name))

    def _plan(self, batches: list[tuple[int, int]], pause: float,
              paused: int | None = None) -> dict[str, Any]:
        try:
            return group_batches.plan(batches, pause, timeouts.limit_seconds(
                getattr(self.st, "timeout_mins", None)), paused)
        except ValueError as exc:
            raise errors.ResourceFailure(str(exc)) from exc

    def _child_traversal(self) -> str | None:
        child = self._child()
        return child.current_traversal if child is not None else None

    def _next_batch(self, handle: dict[str, Any]) -> bool:
        """Step a batched group change (see :mod:`.group_batches`): start the next batch
        once the running one completed and its pause passed. :returns: whether all batches
        are done. :raises failures.NestedFailed: a batch failed."""
        child = self._child()
        state = group_batches.batch_state(handle, child)
        if state == "failed":
            raise failures.NestedFailed(failures.nested_failure_reason(
                child.status_reason, child.action, ("resources", self.r.name)))
        if state == "pause":
            self.pause_left = group_batches.pause_left(handle)
        if state != "next":
            return state == "done"
        definition = self.loaded.definition
        with read_session() as s:
            files = dict(s.execute(select(RawTemplate.files).where(
                RawTemplate.id == self.st.raw_template_id)).scalar() or {})
        handle["i"] = int(handle["i"]) + 1
        cap, new = handle["batches"][handle["i"]]
        paths = definition.referenced_attributes(self.r.name)
        if self.data.get("nested") == SCALING:
            template, _ = scaling_group.template(self._member(), group_batches.members(child.id),
                                                 int(cap), int(new), paths)
        else:
            template, self.data["members"] = group_batches.batch_template(
                self.properties, list(self.data.get("name_blacklist") or []),
                int(cap), int(new), group_batches.members(child.id), paths)
        self._update_child(child, template, {}, files,
                           nested_environment(definition, self.r.name),
                           str(handle.get("pt") or self.st.current_traversal))
        handle["ct"] = self._child_traversal()
        return False

    def _scaled(self, done: bool) -> bool:
        """An autoscaling group's create or update completed: its cooldown starts (Heat's
        ``_finished_scaling(cooldown, "ExactCapacity : <size>")``)."""
        if done and self.data.get("nested") == SCALING and self.resource_id:
            size = len([n for n, _, failed in group_batches.members(self.resource_id)
                        if not failed])
            self.data["scaling"] = scaling_group.finished(
                self.data.get("scaling") or {},
                scaling_group.cooldown_of(self._impl(), self.properties),
                f"ExactCapacity : {size}")
            names = list(self.properties.get("LoadBalancerNames") or [])
            if names:  # Heat's _lb_reload
                runtime.current().group_completed(str(self.st.id), int(self.r.id), names)
        return done

    def _scaling_value(self, path: tuple[Any, ...], outs: dict[str, Any]) -> Any:
        members = group_batches.members(self.resource_id) if self.resource_id else []
        return scaling_group.value(
            path, [n for n, _, _ in members], [n for n, _, failed in members if not failed],
            lambda n, a: (outs.get(f"{n}|{a}") or {}).get("output_value"), self.r.name)

    def _member_refs(self) -> dict[str, Any]:
        """The members' reference ids (:func:`group_batches.member_refs`), read once a step."""
        refs = self._refs
        if refs is None:
            refs = self._refs = group_batches.member_refs(self.resource_id)
        return refs

    def _group_value(self, path: tuple[Any, ...], outs: dict[str, Any]) -> Any:
        """A ResourceGroup attribute, as Heat's ``ResourceGroup.get_attribute``: ``refs`` and
        ``refs_map`` index the whole list or map; a member attribute's path (``[g, value, 1]``,
        ``[g, attributes, value, 1]``) indexes each member's value (the group's outputs are
        ``get_attr [<member>, <attr>, *path]``, ``_nested_output_defns``), a list or map of
        one value per member. A group whose child stack was never made (its create failed
        validating the members) reads null for every member of ``count`` (not only of a first
        batch; ``_resource_names``), and ``resource.<n>`` reads null
        (``grouputils.get_rsrc_attr``: no nested stack, no member; a ResourceChain still refuses
        a name it does not have, ``ResourceChain.get_attribute``)."""
        names = list(self.data.get("members") or [])
        if not self.resource_id and self.r.impl() != RESOURCE_CHAIN:  # all names, not a batch's
            names = member_names(self.properties, list(self.data.get("name_blacklist") or []))

        def out(n: str, a: str) -> Any:
            if a == "ref":
                return self._member_refs().get(n)
            return (outs.get(f"{n}|{a}") or {}).get("output_value")

        head = str(path[0])
        if self.r.impl() in DEPLOYMENT_GROUPS and head not in ("refs", "refs_map", "show"):
            attr = deployment_member_attr(str(path[1]) if head == "attributes" and len(path) > 1
                                          else head)  # Heat's: a map of member -> attribute
            return attrdata.walk({n: out(n, attr) for n in names},
                                 path[2:] if head == "attributes" else path[1:])
        if head == "refs":
            return attrdata.walk([out(n, "ref") for n in names], path[1:])
        if head == "refs_map":
            return attrdata.walk({n: out(n, "ref") for n in names}, path[1:])
        if head == "removed_rsrc_list":
            return attrdata.walk(sorted(self.data.get("name_blacklist") or []), path[1:])
        if head == "attributes" and len(path) > 1:
            return {n: attrdata.walk(out(n, str(path[1])), path[2:]) for n in names}
        if head.startswith("resource."):
            rest = head[len("resource."):]
            idx, _, attr = rest.partition(".")
            if idx not in names and (self.resource_id or self.r.impl() == RESOURCE_CHAIN):
                return attrdata.error(  # a chain checks its names first (get_attribute)
                    f"Member '{idx}' not found in group resource '{self.r.name}'.")
            if not self.resource_id:
                return None
            if attr:
                return attrdata.walk(out(idx, attr), path[1:])
            if len(path) > 1:
                return attrdata.walk(out(idx, str(path[1])), path[2:])
            return out(idx, "ref")
        return [attrdata.walk(out(n, head), path[1:]) for n in names]
