"""What stack-user plugins read of their stack (Heat's ``stack[name]`` and
``stack.resource_by_refid``), one query per step, never the whole stack's state:

- ``stack_resource_type(name)``: the type of the stack's resource ``name`` (AWS::IAM::User checks
  its ``Policies`` name OS::Heat::AccessPolicy resources);
- ``stack_user_of(ref)``: ``{"user_id", "stack_user_project_id"}`` of the stack's
  AWS::IAM::User whose reference (its user name) or resource name is ``ref`` (an AccessKey's
  ``UserName``);
- ``stack_resource_names``: the names of the stack's resources (OS::Heat::AccessPolicy).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from app.convergence.store.rows import table
from app.models import Resource, read_session

RT = table(Resource)
USER_TYPE = "AWS::IAM::User"


def _impl(rtype: str, data: Mapping[str, Any] | None) -> str:
    return str((data or {}).get("_impl") or rtype)


def resource_type(stack_id: str, name: str) -> str | None:
    """The (built-in) type of resource ``name`` of the stack, None if there is none."""
    with read_session() as s:
        row = s.execute(select(RT.c.type, RT.c.rsrc_data).where(
            RT.c.stack_id == stack_id, RT.c.name == name)).first()
    return _impl(row.type, row.rsrc_data) if row is not None else None


def stack_user_of(stack_id: str, ref: str) -> dict[str, Any] | None:
    """The Keystone ids of the stack's AWS::IAM::User referenced by ``ref``; O(users)."""
    with read_session() as s:
        rows = s.execute(select(RT.c.name, RT.c.type, RT.c.rsrc_data).where(
            RT.c.stack_id == stack_id)).all()
    for row in rows:
        data = row.rsrc_data or {}
        if _impl(row.type, data) == USER_TYPE and ref in (data.get("user_name"), row.name):
            return {"user_id": data.get("user_id"),
                    "stack_user_project_id": data.get("stack_user_project_id")}
    return None


def resource_names(stack_id: str) -> frozenset[str]:
    with read_session() as s:
        return frozenset(s.execute(select(RT.c.name).where(RT.c.stack_id == stack_id)).scalars())


def attach(plugin: Any, stack_id: str) -> Any:
    """Give a plugin the lookups its class declares (class attributes of those names)."""
    cls = type(plugin)
    if hasattr(cls, "stack_resource_type"):
        plugin.stack_resource_type = lambda name: resource_type(stack_id, name)
    if hasattr(cls, "stack_user_of"):
        plugin.stack_user_of = lambda ref: stack_user_of(stack_id, ref)
    if hasattr(cls, "stack_resource_names"):
        plugin.stack_resource_names = resource_names(stack_id)
    if hasattr(cls, "template_metadata"):
        plugin.template_metadata = lambda: template_metadata(stack_id, plugin.name)
    return plugin


def template_metadata(stack_id: str, name: str) -> dict[str, Any]:
    """The resource's ``metadata`` of the stack's current template, resolved against the
    stack's resources (Heat's ``self.t.metadata()``, a resource's first live metadata);
    ``{}`` when it has none or it does not resolve."""
    from app.convergence.store import attrdata, definitions
    from app.models import Stack
    with read_session() as s:
        st = s.get(Stack, stack_id)
        if st is None:
            return {}
        rows = s.execute(select(Resource.name, Resource.attr_data)
                         .where(Resource.stack_id == stack_id)).all()
    try:
        loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
        value = loaded.definition.resolve_metadata(
            name, attrdata.DataContext({r.name: r.attr_data for r in rows}))
    except Exception:  # a definition that no longer resolves: no metadata to merge
        return {}
    return dict(value) if isinstance(value, Mapping) else {}
