"""Heat's per-stack limits on what a create or an update is given, counted as Heat counts them.

``max_template_size`` measures the templates a user sends (heat-api's
``InstantiationData.template``, and ``template_format.parse`` of a provider template or a stack
resource's template text); a child template the engine builds itself as a mapping (a group's
members, ``ResourceGroup._assemble_nested``) is not measured, whatever its size.

``max_resources_per_stack`` (-1: no limit) counts a top-level stack's own resources (Heat's
``_validate_new_stack``), and a nested stack's resources plus every resource of its root
stack's tree, minus the nested stack's own on an update (Heat's
``StackResource._validate_nested_resources`` with ``Stack.total_resources(root_stack_id)``).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, func, select

from app import config, errors
from app.convergence.nested.groups import RESOURCE_LIMIT, over_resource_limit
from app.models import Resource, Stack, read_session


def template_size_limit(template: Any, parent_id: str | None) -> int | None:
    """The size limit for ``template`` (None: not measured): ``max_template_size`` for a
    request's template and for a child's given as text; none for a child's mapping, which the
    engine built."""
    if parent_id is None or isinstance(template, (str, bytes)):
        return config.get().max_template_size
    return None


def check_resources(count: int, parent_id: str | None, stack_id: str | None = None) -> None:
    """A stack of ``count`` resources, a child of ``parent_id`` (None: top-level), itself
    ``stack_id`` when it exists already (an update: its rows are not counted twice).
    Cost: a top-level stack none; a child one recursive read (up to its root, then a count
    over the root's tree), and one more count on an update.

    :raises errors.RequestLimitExceeded: Heat's "Maximum resources per stack exceeded."
    """
    if over_resource_limit(count):
        raise errors.RequestLimitExceeded(RESOURCE_LIMIT)
    if parent_id is None or config.get().max_resources_per_stack == -1:
        return
    with read_session() as s:
        total = s.execute(_TREE_RESOURCES, {"parent": parent_id}).scalar() or 0
        if stack_id is not None:
            total -= s.execute(_OWN_RESOURCES, {"stack": stack_id}).scalar() or 0
    if over_resource_limit(count + int(total)):
        raise errors.RequestLimitExceeded(RESOURCE_LIMIT)


def _tree_resources() -> Select[Any]:
    """``count(*)`` of the resources of every live stack of the tree that holds stack
    ``:parent``, in one statement: up from it to its root, then down the root's tree."""
    up = select(Stack.id, Stack.parent_id).where(Stack.id == bindparam("parent")) \
        .cte("up", recursive=True)
    up = up.union_all(select(Stack.id, Stack.parent_id).where(Stack.id == up.c.parent_id))
    tree = select(up.c.id).where(up.c.parent_id.is_(None)).cte("tree", recursive=True)
    tree = tree.union_all(select(Stack.id).where(Stack.parent_id == tree.c.id,
                                                 Stack.deleted_at.is_(None)))
    return select(func.count()).select_from(Resource).where(
        Resource.stack_id.in_(select(tree.c.id)))


#: built once: the tree's resource count, and a stack's own
_TREE_RESOURCES = _tree_resources()
_OWN_RESOURCES = select(func.count()).select_from(Resource).where(
    Resource.stack_id == bindparam("stack"))
