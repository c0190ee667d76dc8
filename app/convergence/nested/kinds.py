"""The nested kinds as strategies: what child template each kind builds at create and at
update. A plugin declares its kind (``nested_kind`` on its class: ``resource_group``,
``resource_chain``, ``deployment_group``, ``scaling_group``, ``stack``); a provider template
(a type the environment maps to a template) is the ``template`` kind. The driver
(:class:`app.convergence.nested.stacks.NestedResource`) creates or updates the child with the
:class:`ChildPlan` its kind returns; batched changes carry their plan in ``batched``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from app.convergence.nested import group_batches, scaling_group
from app.convergence.nested.groups import (
    GROUP,
    SCALING,
    STACK,
    TEMPLATE,
    chain_names,
    chain_template,
    declared_kind,
    deployment_names,
    deployment_template,
    group_template,
    plain,
    skiplist_update,
)
from app.engine.rolling import batches as rolling_batches
from app.templates import global_templates


@dataclass
class ChildPlan:
    """A child stack's template and parameters; ``timeout``: its own timeout in minutes (None:
    the parent's); ``batched``: the plan of a change made in batches (the first batch's
    template is ``template``)."""
    template: Any
    params: dict[str, Any]
    timeout: int | None = None
    batched: dict[str, Any] | None = None


class Kind(Protocol):
    """One nested kind. ``label``: what the row's ``rsrc_data["nested"]`` records."""
    label: str

    def create(self, d: Any, rdef: Any, files: dict[str, Any],
               adopt: dict[str, Any] | None) -> ChildPlan: ...

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan: ...


def _paths(d: Any) -> Any:
    return d.loaded.definition.referenced_attributes(d.r.name)


class _FromProperties:
    """A group whose child template is built from its own properties alone: its create is an
    update from nothing."""
    label = GROUP

    def create(self, d: Any, rdef: Any, files: dict[str, Any],
               adopt: dict[str, Any] | None) -> ChildPlan:
        return self.update(d, rdef, files, None, {}, d.properties)

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        raise NotImplementedError


class ResourceChain(_FromProperties):
    """``OS::Heat::ResourceChain``: one member per ``resources`` entry, each after the last."""

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        d.data["members"] = chain_names(props)
        return ChildPlan(chain_template(props, _paths(d)), {})


class DeploymentGroup(_FromProperties):
    """``OS::Heat::SoftwareDeploymentGroup`` and its kin: one deployment per ``servers`` entry."""

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        d.data["members"] = deployment_names(props)
        return ChildPlan(deployment_template(d.r.impl(), props, _paths(d)), {})


class ResourceGroup:
    """``OS::Heat::ResourceGroup``: ``count`` copies of ``resource_def``, names never reused
    (the skiplist), ``batch_create`` / ``rolling_update`` in batches (Heat's resource_group.py)."""
    label = GROUP

    def create(self, d: Any, rdef: Any, files: dict[str, Any],
               adopt: dict[str, Any] | None) -> ChildPlan:
        skip = skiplist_update(d.properties, [], False, [], {})
        d.data["name_blacklist"] = skip
        count = int(d.properties.get("count", 1) or 0)
        batch = group_batches.policy(plain(rdef.update_policy), "batch_create")
        if batch and count and adopt is None:
            batched = d._plan(rolling_batches(count, 0, batch["max_batch_size"], 0),
                              batch["pause_time"])
            cap, new = batched["batches"][0]
            template, d.data["members"] = group_batches.batch_template(
                d.properties, skip, cap, new, [], _paths(d))
            return ChildPlan(template, {}, batched=batched)
        template = group_template(d.properties, _paths(d), skip)
        d.data["members"] = list(template["resources"])
        return ChildPlan(template, {})

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        old = group_batches.members(child.id)
        skip = skiplist_update(props, d._skiplist(old_props), True,
                               [n for n, _, _ in old], group_batches.refs_of(child))
        d.data["name_blacklist"] = skip
        roll = group_batches.policy(plain(rdef.update_policy), "rolling_update")
        batches = rolling_batches(
            int(props.get("count", 1) or 0), group_batches.current_capacity(old, skip),
            roll["max_batch_size"], roll["min_in_service"]) \
            if roll and props.get("resource_def") != old_props.get("resource_def") else []
        if batches:
            assert roll is not None
            batched = d._plan(batches, roll["pause_time"])
            template, d.data["members"] = group_batches.batch_template(
                props, skip, *batches[0], old, _paths(d))
            return ChildPlan(template, {}, batched=batched)
        template = group_template(props, _paths(d), skip)
        d.data["members"] = list(template["resources"])
        return ChildPlan(template, {})


class ScalingGroup:
    """Autoscaling groups (``OS::Heat::AutoScalingGroup``, ``AWS::AutoScaling::AutoScalingGroup``,
    ``OS::Heat::InstanceGroup``): members from the launch configuration or ``resource``,
    replaced in batches by the update policy (Heat's autoscaling_group.py, instance_group.py)."""
    label = SCALING

    def create(self, d: Any, rdef: Any, files: dict[str, Any],
               adopt: dict[str, Any] | None) -> ChildPlan:
        d.data["scaling_impl"] = getattr(rdef, "implementation", rdef.type)
        template, _ = scaling_group.template(
            d._member(), [], scaling_group.initial_size(d.properties, d._impl()), 0, _paths(d))
        if adopt is not None and isinstance(adopt.get("template"), dict):
            template = adopt["template"]
        return ChildPlan(template, {})

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        members = group_batches.members(child.id)
        batched = d._plan(*scaling_group.update_batches(
            d._impl(), props, old_props, members, plain(rdef.update_policy)))
        cap, new = batched["batches"][0]
        template, _ = scaling_group.template(d._member(), members, cap, new, _paths(d))
        return ChildPlan(template, {}, batched=batched)


class StackKind:
    """``OS::Heat::Stack``, ``AWS::CloudFormation::Stack`` and the ELB's stack: the child's
    template is a property (or the plugin's own)."""
    label = STACK

    def create(self, d: Any, rdef: Any, files: dict[str, Any],
               adopt: dict[str, Any] | None) -> ChildPlan:
        template, params, timeout = d._stack_source(d.properties, files)
        return ChildPlan(template, params, timeout)

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        template, params, _ = d._stack_source(props, files)
        return ChildPlan(template, params)


class TemplateKind:
    """A provider template: the type's template from the files map, properties as parameters."""
    label = TEMPLATE

    def create(self, d: Any, rdef: Any, files: dict[str, Any],
               adopt: dict[str, Any] | None) -> ChildPlan:
        return self.update(d, rdef, files, None, {}, d.properties)

    def update(self, d: Any, rdef: Any, files: dict[str, Any], child: Any,
               old_props: dict[str, Any], props: dict[str, Any]) -> ChildPlan:
        return ChildPlan(global_templates.provider(files, rdef.template),
                         global_templates.child_params(props))


#: a plugin's declared ``nested_kind`` -> its strategy
KINDS: dict[str, Kind] = {"resource_group": ResourceGroup(), "resource_chain": ResourceChain(),
                          "deployment_group": DeploymentGroup(), "scaling_group": ScalingGroup(),
                          "stack": StackKind()}
TEMPLATE_KIND: Kind = TemplateKind()


def of(rdef: Any) -> Kind | None:
    """The strategy of resource definition ``rdef`` (None: a plain plugin). O(1)."""
    if getattr(rdef, "template", None):
        return TEMPLATE_KIND
    declared = declared_kind(rdef)
    return KINDS.get(declared) if declared else None
