"""Resources and events of a stack, for the API."""
from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Select, bindparam, select

from app import auth, errors
from app.context import RequestContext
from app.convergence.nested import group_batches, scaling_group
from app.convergence.store.definitions import identity
from app.engine import graph
from app.models import Event, Resource, Stack, read_connection, read_session
from app.resource_types import registry
from app.services import stack_reads, stacks


def _rows(stack: Stack) -> list[Resource]:
    with read_session() as s:
        return list(s.execute(select(Resource).where(Resource.stack_id == stack.id)
                              .order_by(Resource.id)).scalars())


_R, _E = Resource.__table__.c, Event.__table__.c
_EVENT_COLUMNS = tuple(c.key for c in _E)
#: the columns of a resource a listing shows, filters and links by
_LISTED_COLUMNS = ("id", "uuid", "stack_id", "name", "type", "action", "status", "status_reason",
                   "physical_resource_id", "requires", "rsrc_data", "created_at", "updated_at")
#: a stack's resources in creation order
_LISTED = select(*(_R[name] for name in _LISTED_COLUMNS)).where(
    _R.stack_id == bindparam("stack_id")).order_by(_R.id)


def _view(row: Any) -> SimpleNamespace:
    """A listed resource as a plain object of its columns (the listing adds attributes)."""
    return SimpleNamespace(**{name: getattr(row, name) for name in _LISTED_COLUMNS})


def _views(stack_id: str) -> list[SimpleNamespace]:
    """A stack's resources in creation order as plain objects of the columns a listing uses
    (read as rows, no ORM instance each)."""
    with read_connection() as conn:
        return [_view(row) for row in conn.execute(_LISTED, {"stack_id": stack_id})]


def _required_by(rows: list[Any]) -> dict[str, set[str]]:
    return graph.invert({r.name: set(r.requires or ()) for r in rows})


def _children(stack_id: str) -> dict[str, Stack]:
    """The child stacks of a stack by the name of the parent resource (newest wins)."""
    with read_session() as s:
        kids = s.execute(select(Stack).where(Stack.parent_id == stack_id)
                         .order_by(Stack.created_at)).scalars()
        return {(k.nested_info or {}).get("resource_name", ""): k for k in kids}


def list_resources(ctx: RequestContext, stack: Stack, nested_depth: int = 0,
                   top: list[SimpleNamespace] | None = None) -> list[tuple[Any, list[str]]]:
    """``[(row, required_by)]`` in creation order, with the resources of nested stacks down to
    ``nested_depth`` levels (Heat's ``nested_depth``): those rows carry ``stack_name``,
    ``stack_id`` and ``parent_resource``; a nested resource's row carries ``nested_stack``
    ``(name, id)`` for its ``nested`` link. ``top``: the stack's own resources when the caller
    read them already (:func:`_view` of each). O(resources listed)."""
    out: list[tuple[Any, list[str]]] = []

    def walk(st: Stack, depth: int, parent: str | None) -> None:
        rows = top if st is stack and top is not None else _views(st.id)
        rb = _required_by(rows)
        kids = _children(st.id) if any((r.rsrc_data or {}).get("nested") for r in rows) else {}
        for view in rows:
            if parent is not None:
                view.stack_name, view.parent_resource = st.name, parent
            child = kids.get(view.name)
            if child is not None:
                view.nested_stack = (child.name, child.id)
            out.append((view, sorted(rb.get(view.name, ()))))
            if child is not None and depth < nested_depth:
                walk(child, depth + 1, view.name)

    walk(stack, 0, None)
    return out


def stack_resources(ctx: RequestContext, stack_name: str, stack_id: str, nested_depth: int = 0
                    ) -> tuple[Any, list[tuple[Any, list[str]]]]:
    """``(stack, resources)``: the stack ``stack_name``/``stack_id`` (a row of ``id``, ``name``,
    ``tenant``) and :func:`list_resources` of it, read on one connection.
    :raises errors.NotFound: no such stack for the caller."""
    with read_connection():
        stack, rows = stack_reads.with_rows(ctx, stack_name, stack_id, Resource.__table__,
                                            _LISTED_COLUMNS)
        return stack, list_resources(ctx, stack, nested_depth, [_view(row) for row in rows])


def _attributes(stack: Stack, r: Resource) -> dict[str, Any]:
    """Every attribute of the resource's type (but ``show``), as Heat's resource show: the
    stored ones, the others (and the type's ``live_attributes``, which change with no action
    of the engine) resolved now. Attributes that cannot be resolved (the resource never
    created) read as null."""
    kind = (r.rsrc_data or {}).get("nested")
    if kind and r.physical_resource_id:
        return _nested_attributes(r, kind)
    cls = registry.get(str((r.rsrc_data or {}).get("_impl") or r.type))
    stored = dict((r.attr_data or {}).get("attrs") or {})
    if cls is None or r.properties_data is None:
        return stored
    try:
        ident = identity(stack.name, stack.id, stack.tenant)
        plugin = cls(r.name, dict(r.properties_data), resource_id=r.physical_resource_id,
                     data=dict(r.rsrc_data or {}), stack=ident, clients=auth.clients_for(ident),
                     uuid=r.uuid)
    except Exception:
        return stored
    out: dict[str, Any] = {}
    live = frozenset(getattr(cls, "live_attributes", ()))
    for name in (cls.attributes_schema or {}):
        if name == "show":
            continue
        if name in stored and name not in live:
            out[name] = stored[name]
            continue
        try:
            out[name] = plugin.resolve_attribute(name)
        except Exception:
            out[name] = None
    return out


def _nested_attributes(r: Resource, kind: str) -> dict[str, Any]:
    """A template resource shows its child's outputs; a group its refs and refs_map."""
    with read_session() as s:
        child = s.get(Stack, r.physical_resource_id)
    outs = {o["output_key"]: o.get("output_value") for o in (child.outputs if child else None)
            or []}
    if kind == "scaling":
        return _scaling_attributes(r, outs)
    if kind == "stack":  # OS::Heat::Stack / AWS::CloudFormation::Stack
        if str((r.rsrc_data or {}).get("_impl") or r.type) == "OS::Heat::Stack":
            return {"outputs": outs, "stack_name": child.name if child else None}
        return {f"Outputs.{k}": v for k, v in outs.items()}
    if kind != "group":
        return outs
    names = list((r.rsrc_data or {}).get("members") or [])
    stored = group_batches.member_refs(r.physical_resource_id)
    refs = {n: stored.get(n) for n in names}
    return {"refs": [refs[n] for n in names], "refs_map": refs,
            "removed_rsrc_list": sorted((r.rsrc_data or {}).get("name_blacklist") or [])}


def _scaling_attributes(r: Resource, outs: dict[str, Any]) -> dict[str, Any]:
    """An autoscaling group's attributes from its live members (``outputs`` and
    ``outputs_list`` need an attribute name: null here)."""
    cls = registry.get(str((r.rsrc_data or {}).get("scaling_impl") or r.type))
    members = group_batches.members(str(r.physical_resource_id))
    names = [n for n, _, _ in members]
    healthy = [n for n, _, failed in members if not failed]
    shown: dict[str, Any] = {}
    for name in (cls.attributes_schema if cls is not None else {}):
        if name == "show":
            continue
        if name in ("outputs", "outputs_list"):
            shown[name] = None
            continue
        shown[name] = scaling_group.value((name,), names, healthy,
                                          lambda n, a: outs.get(f"{n}|{a}"), r.name)
    return shown


def get_resource(ctx: RequestContext, stack: Stack,
                 resource_name: str) -> tuple[Resource, list[str], dict[str, Any]]:
    """``(row, required_by, attributes)``; a resource with a nested stack carries
    ``nested_stack`` ``(name, id)`` for its ``nested`` link (Heat's ``format_stack_resource``
    links it as soon as the child exists, while the resource is still in progress).
    :raises NotFound: no such resource in the stack."""
    rows = _rows(stack)
    for r in rows:
        if r.name == resource_name:
            child = _children(stack.id).get(r.name) if (r.rsrc_data or {}).get("nested") \
                else None
            view = SimpleNamespace(**{c.key: getattr(r, c.key) for c in Resource.__table__.c})
            if child is not None:
                view.nested_stack = (child.name, child.id)
            return view, sorted(_required_by(rows).get(r.name, ())), _attributes(stack, r)
    raise errors.NotFound("Resource", resource_name,
                          f"The Resource ({resource_name}) could not be found.")


def _stack_scope(stack: Stack, nested_depth: int) -> dict[str, str]:
    """``{stack id: name}``: the stack and its live (not deleted) descendants down to
    ``nested_depth`` levels, as Heat's list_events gathers them (stacks deleted with a
    replaced parent resource have no events to show). One query per level."""
    scope = {stack.id: stack.name}
    frontier = [stack.id]
    for _ in range(nested_depth):
        if not frontier:
            break
        with read_session() as s:
            kids = s.execute(select(Stack.id, Stack.name).where(
                Stack.parent_id.in_(frontier), Stack.deleted_at.is_(None))).all()
        frontier = [k.id for k in kids if k.id not in scope]
        scope.update((k.id, k.name) for k in kids)
    return scope


def _has_resource(stack_ids: list[str], resource_name: str) -> bool:
    with read_session() as s:
        return s.execute(select(Resource.id).where(
            Resource.stack_id.in_(stack_ids), Resource.name == resource_name).limit(1)).first() \
            is not None


@functools.lru_cache(maxsize=4)
def _events_page(desc: bool, limited: bool) -> Select[Any]:
    """A stack's events (``:stack_id``) in the order written, or newest first, at most
    ``:limit`` when ``limited``: built once (a built statement keeps its cache key)."""
    q = select(*_E).where(_E.stack_id == bindparam("stack_id")).order_by(
        _E.id.desc() if desc else _E.id.asc())
    return q.limit(bindparam("limit")) if limited else q


def list_events(ctx: RequestContext, stack: Stack, resource_name: str | None = None, *,
                limit: int | None = None, marker: str | None = None, sort_dir: str = "asc",
                filters: dict[str, Any] | None = None, nested_depth: int = 0) -> list[Any]:
    """Events of the stack (or of one resource), ordered by ``Event.id`` (the order written).

    ``filters``: resource_status, resource_action, resource_name, resource_type (lists allowed).
    ``nested_depth``: also the events of the nested stacks down to that many levels, in the
    same order, as Heat's ``list_events(nested_depth=N)``; filters, ``resource_name``, marker
    and limit apply to the merged list. A nested stack's event is a copy of the row that also
    carries ``stack_name`` (every event carries ``stack_id``). Paged by keyset on ``Event.id``
    (index ``ix_event_stack``): O(page) rows read with a limit, whatever the stack's events.
    :raises NotFound: ``resource_name`` is not a resource (or the name) of a stack in scope, or
        a bad marker.
    :raises BadRequest: an unknown sort direction.
    """
    if (sort_dir or "asc").lower() not in ("asc", "desc"):
        raise errors.BadRequest("Unknown sort direction, must be one of: asc, desc")
    desc = sort_dir.lower() == "desc"
    if not (nested_depth or resource_name is not None or filters or marker):
        with read_connection() as conn:
            return conn.execute(_events_page(desc, limit is not None), {
                "stack_id": stack.id, "limit": None if limit is None else max(0, int(limit))
            }).all()
    scope = _stack_scope(stack, nested_depth) if nested_depth else {stack.id: stack.name}
    ids = list(scope)
    q = select(*_E).where(_E.stack_id == stack.id if len(ids) == 1 else _E.stack_id.in_(ids))
    if resource_name is not None:
        if resource_name not in scope.values() and not _has_resource(ids, resource_name):
            raise errors.NotFound("Resource", resource_name,
                                  f"The Resource ({resource_name}) could not be found.")
        q = q.where(_E.resource_name == resource_name)
    for key, value in (filters or {}).items():
        values = value if isinstance(value, list) else [value]
        col = {"resource_status": _E.status, "resource_action": _E.action,
               "resource_name": _E.resource_name, "resource_type": _E.resource_type}.get(key)
        if col is not None:
            q = q.where(col.in_(values))
    with read_connection() as conn:
        if marker:  # the marker must be an event the same query lists
            after = conn.execute(q.with_only_columns(_E.id).where(_E.uuid == marker)).scalar()
            if after is None:
                raise errors.NotFound("Event", marker)
            q = q.where(_E.id < after if desc else _E.id > after)
        q = q.order_by(_E.id.desc() if desc else _E.id.asc())
        if limit is not None:
            q = q.limit(max(0, int(limit)))
        rows: list[Any] = conn.execute(q).all()
    return [_nested_event(e, scope[e.stack_id]) if e.stack_id != stack.id else e for e in rows]


def stack_events(ctx: RequestContext, stack_name: str, stack_id: str,
                 resource_name: str | None = None, **page: Any) -> tuple[Any, list[Any]]:
    """``(stack, events)``: the stack ``stack_name``/``stack_id`` (a row of ``id``, ``name``,
    ``tenant``) and :func:`list_events` of it (``page``: that function's keywords), read on one
    connection. :raises: as :func:`app.services.stack_reads.stack_ref` and :func:`list_events`."""
    limit, sort_dir = page.get("limit"), str(page.get("sort_dir") or "asc").lower()
    if (resource_name is None and sort_dir in ("asc", "desc") and (limit is None or limit > 0)
            and page.keys() <= {"limit", "sort_dir", "filters"} and not page.get("filters")):
        return stack_reads.with_rows(ctx, stack_name, stack_id, Event.__table__, _EVENT_COLUMNS,
                                     desc=sort_dir == "desc", limit=limit)
    with read_connection():
        stack = stack_reads.stack_ref(ctx, stack_name, stack_id)
        return stack, list_events(ctx, stack, resource_name, **page)


def _nested_event(row: Any, stack_name: str) -> SimpleNamespace:
    return SimpleNamespace(**row._mapping, stack_name=stack_name)


def get_event(ctx: RequestContext, stack: Stack, resource_name: str, event_id: str) -> Event:
    """One event of a resource. :raises NotFound."""
    with read_session() as s:
        ev = s.execute(select(Event).where(Event.stack_id == stack.id,
                                           Event.uuid == event_id)).scalar()
    if ev is None or ev.resource_name != resource_name:
        raise errors.NotFound("Event", event_id)
    return ev


def stack_of_physical(ctx: RequestContext, physical_resource_id: str) -> Stack:
    """The live stack of the caller's project holding a resource with this physical id (the
    newest such resource), as Heat's ``find_physical_resource`` (the CFN API's
    DescribeStackResources by ``PhysicalResourceId``).

    :raises errors.NotFound: none (Heat: ``The Resource (<id>) could not be found.``)."""
    with read_session() as s:
        stack_id = s.execute(
            select(Resource.stack_id).join(Stack, Stack.id == Resource.stack_id)
            .where(Resource.physical_resource_id == physical_resource_id,
                   Stack.tenant == ctx.tenant_id, Stack.deleted_at.is_(None))
            .order_by(Resource.id.desc()).limit(1)).scalar()
    if stack_id is None:
        raise errors.NotFound("Resource", physical_resource_id)
    return stacks.get_by_id(ctx, stack_id)
