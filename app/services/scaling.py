"""Scaling an autoscaling group: the use case a ScalingPolicy's signal runs (Heat's
``AutoScalingGroup.adjust`` in heat/engine/resources/aws/autoscaling/autoscaling_group.py).

:func:`adjust` checks Heat's rules (the group COMPLETE, a change in capacity within
``min_size``/``max_size``, no scaling in progress, the cooldown over), marks the group
"scaling in progress" (its ``rsrc_data["scaling"]``, Heat's metadata shape), then starts an
UPDATE traversal of the group's nested stack to the new size: growing adds members, shrinking
removes the failed ones first, then the oldest (:mod:`app.convergence.nested.scaling_group`).

The scaling ends when that traversal ends (:func:`settle`): its cooldown starts, the group's
attributes and the parent stack's outputs are resolved again. The child's end calls it
(:func:`child_ended`, the runtime's ``child_unclaimed`` hook); any later :func:`adjust` settles first, so a
scaling whose end was lost (a killed worker, a restart) never stays "in progress".
"""
from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

from sqlalchemy import or_, select

from app import errors
from app.convergence import stack_outputs
from app.convergence.nested import group_batches, scaling_group
from app.convergence.nested import stacks as nested
from app.convergence.nested.groups import SCALING
from app.convergence.store import attrdata, definitions
from app.convergence.store.rows import ResourceRow, StepStack
from app.engine import scaling
from app.engine.states import Status
from app.models import RawTemplate, Resource, Stack, read_session, session, utcnow
from app.resource_types import aws_elb
from app.services import children
from app.templates.type_resolution import nested_environment

#: a scaling marked in progress whose child update never started is given up after this long
#: (seconds): the process that marked it died in between
STALE_START_SECONDS = 120.0


def _group_row(s: Any, stack_id: str, group_ref: str, lock: bool = False) -> Resource:
    """The group's row by reference id or name (``lock``: FOR UPDATE).

    :raises errors.NotFound: none, or not an autoscaling group."""
    query = select(Resource).where(
        Resource.stack_id == stack_id,
        or_(Resource.physical_resource_id == group_ref, Resource.name == group_ref))
    row = s.execute(query.with_for_update() if lock else query).scalars().first()
    if row is None or (row.rsrc_data or {}).get("nested") != SCALING:
        raise errors.NotFound("Resource", group_ref,
                              f'Could not find scaling group named "{group_ref}"')
    return row


def adjust(stack_id: str, group_ref: str, adjustment: float,
           adjustment_type: str = scaling.CHANGE_IN_CAPACITY,
           min_adjustment_step: int | None = None, cooldown: float | None = None) -> int:
    """Resize group ``group_ref`` (its reference id or name) of stack ``stack_id``.

    :returns: the new size (the child's UPDATE traversal has started).
    :raises errors.NoActionRequired: not COMPLETE, no change in capacity, scaling in
        progress, or in cooldown (Heat's reasons); nothing is changed then.
    :raises errors.NotFound: no such autoscaling group in the stack.
    """
    with read_session() as s:
        row = _group_row(s, stack_id, group_ref)
        rid = row.id
    settle(stack_id, rid)
    with session() as s:
        st = s.get(Stack, stack_id)
        row = _group_row(s, stack_id, group_ref, lock=True)
        if st is None or row.status != Status.COMPLETE or row.engine_id \
                or not row.physical_resource_id:
            raise errors.NoActionRequired(row.name, "")
        props = dict(row.properties_data or {})
        impl = str((row.rsrc_data or {}).get("scaling_impl") or scaling_group.OS_ASG)
        members = group_batches.members(row.physical_resource_id)
        capacity = len([n for n, _, failed in members if not failed])
        lo, hi = scaling_group.bounds(impl, props)
        new = scaling.new_capacity(capacity, adjustment, adjustment_type, min_adjustment_step,
                                   lo, hi)
        if new == capacity:
            raise errors.NoActionRequired(row.name, "")
        if cooldown is None:
            cooldown = scaling_group.cooldown_of(impl, props)
        data = dict(row.rsrc_data or {})
        data["scaling"] = scaling.check_allowed(row.name, data.get("scaling") or {}, cooldown,
                                                utcnow())
        data["scaling_op"] = {"cooldown": cooldown, "reason": f"{adjustment_type} : "
                              f"{adjustment}", "marked": utcnow().isoformat()}
        row.rsrc_data = data
        name, child_id = row.name, row.physical_resource_id
        parent = _detached(st)
    try:
        member = scaling_group.member_of(impl, props, stack_id, child_id)
        ct = _resize(parent, name, child_id, member, members, new)
    except Exception:
        _finish(stack_id, rid, size_changed=False)
        raise
    with session() as s:
        row = s.get(Resource, rid, with_for_update=True)
        assert row is not None
        data = dict(row.rsrc_data or {})
        if "scaling_op" in data:
            data["scaling_op"] = {**data["scaling_op"], "ct": ct}
            row.rsrc_data = data
    settle(stack_id, rid)  # an inline (test) dispatcher may have finished it already
    return new


def _detached(st: Stack) -> Any:
    return SimpleNamespace(id=st.id, name=st.name, tenant=st.tenant,
                           raw_template_id=st.raw_template_id,
                           current_traversal=st.current_traversal)


def _resize(parent: Any, name: str, child_id: str, member: dict[str, Any],
            members: list[Any], new: int) -> str:
    """Start the child's UPDATE to ``new`` members (``member``: the snippet of new ones).
    :returns: the child's traversal id."""
    loaded = definitions.load(parent.id, parent.raw_template_id, parent.name, parent.tenant)
    template, _ = scaling_group.template(member, members, new, 0,
                                         loaded.definition.referenced_attributes(name))
    with read_session() as s:
        files = dict(s.execute(select(RawTemplate.files).where(
            RawTemplate.id == parent.raw_template_id)).scalar() or {})
        child = s.get(Stack, child_id)
    if child is None or child.deleted_at is not None:
        raise errors.ResourceFailure(f"The nested stack of {name} is gone.")
    info = dict(child.nested_info or {})
    info.update(traversal=parent.current_traversal, is_update=True)
    children.ServiceChildStacks().update(parent, child, template, {}, files,
                                         nested_environment(loaded.definition, name), info)
    with read_session() as s:
        started = s.get(Stack, child_id)
        return str(started.current_traversal) if started is not None else ""


def settle(stack_id: str, resource_id: int) -> bool:
    """End the group's scaling if its child's traversal has ended (or never started, long
    ago): cooldown from now, attributes and the parent's outputs resolved again.
    :returns: whether a scaling was ended. Idempotent."""
    with read_session() as s:
        row = s.get(Resource, resource_id)
        op = (row.rsrc_data or {}).get("scaling_op") if row is not None else None
        child = s.get(Stack, row.physical_resource_id) if op and row is not None \
            and row.physical_resource_id else None
    if not op:
        return False
    if "ct" not in op:
        marked = dt.datetime.fromisoformat(str(op.get("marked")))
        if (utcnow() - marked).total_seconds() < STALE_START_SECONDS:
            return False
        return _finish(stack_id, resource_id, size_changed=False)
    if child is not None and child.current_traversal == op["ct"] \
            and child.status == Status.IN_PROGRESS:
        return False
    return _finish(stack_id, resource_id,
                   size_changed=child is not None and child.status == Status.COMPLETE)


def _finish(stack_id: str, resource_id: int, size_changed: bool) -> bool:
    with session() as s:
        row = s.get(Resource, resource_id, with_for_update=True)
        st = s.get(Stack, stack_id)
        if row is None or st is None:
            return False
        data = dict(row.rsrc_data or {})
        op = data.pop("scaling_op", None)
        if op is None:
            return False
        meta = data.get("scaling") or {}
        data["scaling"] = scaling_group.finished(meta, op.get("cooldown"), str(op.get("reason"))) \
            if size_changed else scaling.finished(meta, None, "", utcnow(), size_changed=False)
        row.rsrc_data = data
        loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
        driver = nested.NestedResource(st, row, row.properties_data, loaded)
        row.attr_data = attrdata.attr_data(
            driver, loaded.definition.referenced_attributes(row.name))
        s.flush()
        if st.status != Status.IN_PROGRESS:  # a traversal in progress resolves them itself
            st.outputs = stack_outputs.resolve_outputs(s, st.id, loaded)
    if size_changed:
        reload_load_balancers(stack_id, resource_id)
    return True


def reload_load_balancers(stack_id: str, group_id: int,
                          names: list[str] | None = None) -> list[str]:
    """Point the group's ``LoadBalancerNames`` (``names``, else the stored properties') at its
    members, as Heat's ``_lb_reload`` / ``lbutils.reconfigure_loadbalancers`` after the
    group's create, update or resize: each named
    ``AWS::ElasticLoadBalancing::LoadBalancer`` gets ``Instances`` = the members' reference
    ids in Heat's member order, and its child stack is updated (its HAProxy configuration).
    :returns: the names of the load balancers reloaded."""
    with read_session() as s:
        st = s.get(Stack, stack_id)
        row = s.get(Resource, group_id)
        if names is None:
            names = list((row.properties_data or {}).get("LoadBalancerNames") or []) \
                if row is not None else []
        if st is None or row is None or not names or not row.physical_resource_id:
            return []
        refs = dict(s.execute(select(Resource.name, Resource.physical_resource_id).where(
            Resource.stack_id == row.physical_resource_id,
            Resource.action != "DELETE")).tuples().all())
        lbs = [ResourceRow.of(r) for r in s.execute(select(Resource).where(
            Resource.stack_id == stack_id, Resource.name.in_(names))).scalars()]
        view = StepStack.of(st)
        child_id = row.physical_resource_id
    ids = [refs[n] for n, _, _ in group_batches.members(child_id) if refs.get(n)]
    loaded = definitions.load(view.id, view.raw_template_id, view.name, view.tenant)
    done = []
    for lb in lbs:
        if lb.impl() != aws_elb.TYPE or not lb.physical_resource_id:
            continue
        props = {**(lb.properties_data or {}), "Instances": ids}
        with session() as s:
            stored = s.get(Resource, lb.id, with_for_update=True)
            assert stored is not None
            stored.properties_data = props
        nested.NestedResource(view, lb, props, loaded).handle_update(
            str(view.current_traversal), props)
        done.append(lb.name)
    return done


def child_ended(parent_id: str, resource_id: int) -> None:
    """A child stack ended with no node of its parent waiting: a scaling may have ended
    (the runtime's ``child_unclaimed`` hook, :func:`app.services.wiring.compose`)."""
    with read_session() as s:
        row = s.get(Resource, resource_id)
        scaling_op = row is not None and "scaling_op" in (row.rsrc_data or {})
    if scaling_op:
        settle(parent_id, resource_id)
