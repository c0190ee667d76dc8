"""What a stack update would do to each resource, with nothing written: Heat's
``preview_update_stack`` behind ``PUT|PATCH .../preview``. The request is checked as an update
is (:func:`app.services.updates.prepare_update`); each resource gets the update step's own
verdict (:func:`app.engine.change.classify`), its properties resolved in dependency order
against what its requirements will be after the update (:func:`_after`: what the update has
not made yet is UNKNOWN), and nested stacks are previewed recursively. Cost O(resources) reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from sqlalchemy import select

from app import errors
from app.context import RequestContext
from app.convergence.nested import group_batches, groups, scaling_group
from app.convergence.nested import stacks as nested
from app.convergence.steps import changes
from app.convergence.steps import update as updating
from app.convergence.store import attrdata
from app.convergence.store import definitions as loaded_defs
from app.convergence.store.rows import ResourceRow
from app.engine import change, graph
from app.engine.states import Action, Status
from app.models import Resource, Stack, read_session
from app.resource_types import aws_elb, base, heat_stack, registry
from app.services import definitions, stacks, updates
from app.templates import change_source, global_templates
from app.templates.type_resolution import nested_environment

KINDS = ("added", "deleted", "replaced", "unchanged", "updated")


@dataclass
class Change:
    """One resource of a preview list, with what Heat's ``format_stack_resource`` shows of it:
    the existing resource (``updated``, ``deleted``) or the new, not yet created one
    (``added``, ``replaced``, ``unchanged``: INIT_COMPLETE, no physical id, as Heat's preview
    formats them from the new stack)."""
    name: str
    type: str
    stack_name: str
    stack_id: str | None
    tenant: str
    action: str = Action.INIT
    status: str = Status.COMPLETE
    status_reason: str = ""
    physical_resource_id: str | None = None
    created_at: Any = None
    updated_at: Any = None
    required_by: list[str] = field(default_factory=list)
    description: str = ""
    metadata: Any = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)
    parent_resource: str | None = None
    nested_stack: tuple[str, str] | None = None
    #: why an existing resource is replaced or updated (:class:`app.engine.change.Why`
    #: value), the properties the reason names, and ``{property: (before, after)}`` of the
    #: changed properties where the update's classification resolved them
    why: str = ""
    forced_by: tuple[str, ...] = ()
    diff: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    #: the existing resource's physical id (a replaced one is shown as the new resource)
    current_id: str | None = None
    #: ``{property: [(ChangeSource, CausingEntity or None), ...]}`` of the changed
    #: properties (:func:`app.templates.change_source.causes`)
    sources: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)


Changes = dict[str, list[Change]]


def preview_update(ctx: RequestContext, stack_name: str, stack_id: str, *,
                   show_nested: bool = False, **request: Any) -> Changes:
    """Classify the resources of stack ``stack_name``/``stack_id`` for an update request
    (keyword arguments as :func:`app.services.updates.prepare_update`).

    :param show_nested: also list the resources of nested stacks (Heat's ``show_nested``):
        those of an updated nested stack as the child's own preview, those of a deleted or
        replaced one as deleted, those of an added or replaced one as added.
    :returns: ``{"added"|"deleted"|"replaced"|"unchanged"|"updated": [Change, ...]}``.
    :raises errors.NotFound: unknown, another tenant's, or deleted (a stack in progress is
        previewed, as Heat does).
    :raises: the errors of :func:`updates.prepare_update` (400), ``NotSupported`` (400).
    """
    st = stacks.get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None or st.stack_status == "DELETE_COMPLETE":
        raise errors.NotFound("Stack", stack_name)
    prep = updates.prepare_update(ctx, st, **request)
    out: Changes = {k: [] for k in KINDS}
    parent = (st.nested_info or {}).get("resource_name") if st.parent_id else None
    _preview(st, prep.loaded, prep.files, out, show_nested, parent)
    return out


def classify_prepared(st: Any, prep: updates.Prepared) -> Changes:
    """The top-level resources of stack ``st`` classified for the checked update ``prep``
    (as :func:`preview_update` without ``show_nested``), once per ``prep``; read-only."""
    if "changes" in prep.memo:
        return prep.memo["changes"]  # type: ignore[no-any-return]
    out: Changes = {k: [] for k in KINDS}
    parent = (st.nested_info or {}).get("resource_name") if st.parent_id else None
    _preview(st, prep.loaded, prep.files, out, False, parent)
    prep.memo["changes"] = out
    return out


def _rows(stack_id: str) -> list[Resource]:
    with read_session() as s:
        return list(s.execute(select(Resource).where(Resource.stack_id == stack_id)
                              .order_by(Resource.id)).scalars())


def _preview(st: Any, new: loaded_defs.Loaded, files: dict[str, Any], out: Changes,
             show_nested: bool, parent: str | None) -> bool:
    """Classify ``st``'s resources for its new definition ``new`` into ``out`` (nested ones
    too when ``show_nested``). :returns: whether anything in ``st`` would change."""
    cur = loaded_defs.load(st.id, st.raw_template_id, st.name, st.tenant)
    rows = {r.name: r for r in _rows(st.id)}
    data = {n: r.attr_data for n, r in rows.items() if r.attr_data}
    rb = graph.invert({n: set(r.requires or ()) for n, r in rows.items()})
    view = _View(st, cur, new, data, rb, parent)
    view.inputs = {}
    kinds: dict[str, tuple[str, Changes]] = {}
    verdicts: dict[str, Verdict] = {}
    sources: dict[str, dict[str, list[change_source.Cause]]] = {}
    order = graph.topological_order({n: set(new.requires.get(n, ())) & set(
        new.definition.resources) for n in new.definition.resources})
    for name in order:  # requirements first: a resource reads what they will be
        r = rows.get(name)
        kind = "added"
        if r is not None:
            kind, verdicts[name] = _classify(st, r, cur, new, view.inputs)
            sources[name] = _sources(cur, new, name, verdicts[name][2], kinds)
        inside: Changes = {}
        if kind == "updated" and r is not None and _is_nested(r):
            kind, inside = _nested_update(view, r, files, show_nested)
        kinds[name] = kind, inside
        view.inputs[name] = _after(kind, data.get(name))
    changed = False
    for name in new.definition.resources:
        r = rows.get(name)
        kind, inside = kinds[name]
        changed |= kind != "unchanged"
        shown = view.existing(r) if kind == "updated" and r is not None else view.new(name)
        if name in verdicts:
            shown.why, shown.forced_by, shown.diff = verdicts[name]
            shown.sources = sources[name]
            shown.current_id = r.physical_resource_id if r is not None else None
        out[kind].append(shown)
        for k, entries in inside.items() if show_nested else ():
            out[k].extend(entries)
        if show_nested and kind == "replaced" and r is not None:
            _all_deleted(view, r, out)
        if show_nested and kind in ("added", "replaced"):
            _all_added(view, name, files, out)
    for name, r in rows.items():
        if name not in new.definition.resources:
            changed = True
            out["deleted"].append(view.existing(r))
            if show_nested:
                _all_deleted(view, r, out)
    return changed


def _sources(cur: loaded_defs.Loaded, new: loaded_defs.Loaded, name: str,
             diff: dict[str, tuple[Any, Any]], kinds: dict[str, tuple[str, Changes]]
             ) -> dict[str, list[change_source.Cause]]:
    """What causes each property in ``diff`` of resource ``name`` to change, given the
    verdicts ``kinds`` of what it requires (classified before it)."""
    old_res = cur.definition.template.resources.get(name)
    new_res = new.definition.template.resources.get(name)
    changing = {n: k for n, (k, _) in kinds.items() if k != "unchanged"}

    def snippet(res: Any, key: str) -> Any:  # the parsed snippet of property ``key``
        props = res.properties if res is not None else None
        return props.get(key) if isinstance(props, dict) else props
    return {key: change_source.causes(snippet(old_res, key), snippet(new_res, key),
                                      cur.definition.params, new.definition.params, changing)
            for key in diff}


def _is_nested(r: Resource) -> bool:
    return bool((r.rsrc_data or {}).get("nested")) and bool(r.physical_resource_id)


def _after(kind: str, stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a dependent of a resource classified ``kind`` reads of it in the preview, as
    ``attr_data``: an unchanged one's stored data; for one updated in place its reference
    (kept by an in-place update), every attribute not known yet; for one replaced or added,
    nothing known yet (:func:`attrdata.pending`)."""
    if kind == "unchanged":
        return stored
    if kind == "updated" and stored is not None and stored.get("ref") is not None:
        return attrdata.pending(stored["ref"])
    return attrdata.pending()


#: the preview's list for each of the update's verdicts
LISTED = {change.Change.UNCHANGED: "unchanged", change.Change.UPDATE: "updated",
          change.Change.REPLACE: "replaced", change.Change.ADD: "added",
          change.Change.REMOVE: "deleted"}


#: why a resource changes, the properties the reason names, their ``(before, after)``
Verdict = tuple[str, tuple[str, ...], dict[str, tuple[Any, Any]]]
#: the reasons whose verdict came from a diff of resolved properties
DIFFED = frozenset({change.Why.IN_PLACE, change.Why.NOT_UPDATE_ALLOWED, change.Why.PLUGIN_RULE,
                    change.Why.ALWAYS_UPDATE, change.Why.SAME})


def _classify(st: Any, r: Resource, cur: loaded_defs.Loaded, new: loaded_defs.Loaded,
              inputs: dict[str, Any]) -> tuple[str, Verdict]:
    """``replaced``, ``updated`` or ``unchanged`` for an existing resource, with its
    :data:`Verdict`: the update step's verdict (:func:`app.engine.change.classify`; nested
    stacks are refined by :func:`_nested_update`), its new properties read ``inputs``
    (:func:`_after` of its requirements).

    :raises NotSupported: the update would refuse it (an ``immutable`` property or its
        ``external_id`` changed), as Heat's preview raises it."""
    row = ResourceRow.of(r)
    props = changes.memo(lambda: updating.new_props(st, r, new, inputs))
    says = changes.PluginSays(lambda p: nested.driver_for(row, st, p, cur), r.properties_data)
    rdef = new.definition.resources[r.name]
    try:
        verdict = change.classify(changes.stored(row), changes.wanted(r.name, rdef, props), says)
    except changes.Unresolved as exc:
        raise exc.cause from None
    if verdict.refusal is not None:
        raise base.NotSupported(verdict.refusal)
    diff: dict[str, tuple[Any, Any]] = {}
    if verdict.why in DIFFED:
        before, after = dict(r.properties_data or {}), props()
        diff = {k: (before.get(k), after.get(k)) for k in sorted(set(before) | set(after))
                if before.get(k) != after.get(k)}
    return LISTED[verdict.change], (verdict.why.value, verdict.properties, diff)


def _child_request(view: _View, name: str, files: dict[str, Any]) -> dict[str, Any]:
    """The child stack's update request for nested resource ``name`` of the new definition
    (as ``NestedResource.handle_update`` builds it): template, parameters, files, environment."""
    definition = view.new_loaded.definition
    rdef = definition.resources[name]
    props = updating.new_props(view.st, SimpleNamespace(name=name), view.new_loaded,
                               view.inputs)
    env = nested_environment(definition, name)
    if groups.kind(rdef) in (groups.GROUP, groups.SCALING):
        with read_session() as s:
            row = s.execute(select(Resource).where(Resource.stack_id == view.st.id,
                                                   Resource.name == name)).scalars().first()
        child_id = row.physical_resource_id if row is not None else None
        old = group_batches.members(child_id) if child_id else []
        paths = definition.referenced_attributes(name)
    impl = getattr(rdef, "implementation", rdef.type)
    if groups.kind(rdef) == groups.GROUP and impl == groups.RESOURCE_CHAIN:
        template = groups.chain_template(props, definition.referenced_attributes(name))
        return {"template": template, "parameters": {}, "files": files, "environment": env}
    if groups.kind(rdef) == groups.GROUP:  # the members after the update, removals applied
        child = _child(row) if row is not None else None
        skip = groups.skiplist_update(
            props, list(((row.rsrc_data if row is not None else None) or {}).get(
                "name_blacklist") or []), child is not None, [n for n, _, _ in old],
            group_batches.refs_of(child) if child is not None else {})
        template = groups.group_template(props, paths, skip)
        return {"template": template, "parameters": {}, "files": files, "environment": env}
    if groups.kind(rdef) == groups.SCALING:  # the members at the size the update leads to
        before = dict((row.properties_data if row is not None else None) or props)
        batches, _, rollout = scaling_group.update_batches(
            impl, props, before, old, nested.facade(rdef)["update_policy"])
        size = batches[-1][0] if old else scaling_group.initial_size(props, impl)
        member = scaling_group.member_of(impl, props, view.st.id, str(child_id or name))
        template, _ = scaling_group.template(member, old, size, size if rollout else 0, paths)
        return {"template": template, "parameters": {}, "files": files, "environment": env}
    if groups.kind(rdef) == groups.STACK and \
            getattr(rdef, "implementation", rdef.type) == aws_elb.TYPE:
        child, params = aws_elb.child_template(props, dict(definition.params.values), [])
        return {"template": child, "parameters": params, "files": files, "environment": env}
    if groups.kind(rdef) == groups.STACK:
        child, params, _ = heat_stack.child_source(getattr(rdef, "implementation", rdef.type),
                                                   props, files)
        return {"template": child, "parameters": params, "files": files, "environment": env}
    return {"template": global_templates.provider(files, rdef.template),
            "parameters": global_templates.child_params(props), "files": files,
            "environment": env}


def _child(r: Resource) -> Stack | None:
    with read_session() as s:
        child = s.get(Stack, r.physical_resource_id) if r.physical_resource_id else None
    return child if child is not None and child.deleted_at is None else None


def _nested_update(view: _View, r: Resource, files: dict[str, Any],
                   show_nested: bool) -> tuple[str, Changes]:
    """``("updated", the child's own preview)`` for an existing nested stack whose type is
    unchanged (Heat lists it as updated even when nothing inside changes)."""
    child = _child(r)
    if child is None:
        return "updated", {}
    rdef = view.new_loaded.definition.resources[r.name]
    info = dict(child.nested_info or {})
    info["facade"] = nested.facade(rdef)
    facade: Any = SimpleNamespace(**{c.key: getattr(child, c.key) for c in Stack.__table__.c})
    facade.nested_info = info  # a copy: nothing is written
    request = _child_request(view, r.name, files)
    prep = updates.prepare_update(RequestContext(tenant_id=view.st.tenant), facade, **request)
    mine: Changes = {k: [] for k in KINDS}
    changed = _preview(facade, prep.loaded, prep.files, mine, show_nested, r.name)
    del changed  # Heat's StackResource always updates its child: the members decide
    return "updated", mine


def _all_deleted(view: _View, r: Resource, out: Changes) -> None:
    """Every resource below the nested stack of ``r`` (existing) as deleted."""
    child = _child(r) if _is_nested(r) else None
    if child is None:
        return
    rows = _rows(child.id)
    rb = graph.invert({x.name: set(x.requires or ()) for x in rows})
    cur = loaded_defs.load(child.id, child.raw_template_id, child.name, child.tenant)
    sub = _View(child, cur, cur, {}, rb, r.name)
    for x in rows:
        out["deleted"].append(sub.existing(x))
        _all_deleted(sub, x, out)


def _all_added(view: _View, name: str, files: dict[str, Any], out: Changes) -> None:
    """Every resource of the new nested stack of ``name`` (new definition) as added. A child
    that cannot be built before its parent's inputs exist is left out."""
    rdef = view.new_loaded.definition.resources[name]
    if not groups.kind(rdef):
        return
    try:
        request = _child_request(view, name, files)
        env = {k: v for k, v in request["environment"].items() if k != "parameters"}
        ident = loaded_defs.identity(f"{view.st.name}-{name}", "None", view.st.tenant)
        definition = definitions.parse_and_instantiate(
            request["template"], files, env, request["parameters"], ident)[1]
    except errors.StokerError:
        return
    loaded = loaded_defs.Loaded.of(definition)
    sub = _View(SimpleNamespace(name=ident.stack_name, id=None, tenant=view.st.tenant), loaded,
                loaded, {}, {}, name)
    for child_name in definition.resources:
        out["added"].append(sub.new(child_name))
        _all_added(sub, child_name, files, out)


class _View:
    """Builds :class:`Change` entries for one stack: from a row (existing) or from the new
    definition (not created yet)."""

    def __init__(self, st: Any, cur: loaded_defs.Loaded, new: loaded_defs.Loaded,
                 data: dict[str, Any], required_by: dict[str, set[str]],
                 parent: str | None) -> None:
        self.st, self.cur_loaded, self.new_loaded = st, cur, new
        self.data, self.required_by, self.parent = data, required_by, parent
        #: what the new definition's properties read (:func:`_after`); the stored ``data``
        #: where a stack is not being classified (every resource added or deleted)
        self.inputs: dict[str, Any] = data

    def _base(self, name: str, type_name: str) -> Change:
        return Change(name=name, type=type_name, stack_name=self.st.name, stack_id=self.st.id,
                      tenant=self.st.tenant, parent_resource=self.parent)

    def new(self, name: str) -> Change:
        definition = self.new_loaded.definition
        rdef = definition.resources[name]
        c = self._base(name, rdef.type)
        c.required_by = sorted(self.new_loaded.required_by.get(name, ()))
        c.description = rdef.description or ""
        c.metadata = _metadata(definition, name, self.data)
        cls = None if groups.kind(rdef) else registry.get(getattr(rdef, "implementation",
                                                                  rdef.type))
        c.attributes = {a: None for a in (cls.attributes_schema if cls else {}) if a != "show"}
        return c

    def existing(self, r: Resource) -> Change:
        c = self._base(r.name, r.type)
        c.action, c.status, c.status_reason = r.action, r.status, r.status_reason or ""
        c.physical_resource_id = r.physical_resource_id
        c.created_at, c.updated_at = r.created_at, r.updated_at
        c.required_by = sorted(self.required_by.get(r.name, ()))
        rdef = self.cur_loaded.definition.resources.get(r.name)
        if rdef is not None:
            c.description = rdef.description or ""
            c.metadata = _metadata(self.cur_loaded.definition, r.name, self.data)
        cls = registry.get(ResourceRow.of(r).impl())
        known = {a: None for a in (cls.attributes_schema if cls else {}) if a != "show"}
        c.attributes = {**known, **((r.attr_data or {}).get("attrs") or {})}
        child = _child(r) if _is_nested(r) else None
        if child is not None:
            c.nested_stack = (child.name, child.id)
        return c


def _metadata(definition: Any, name: str, data: dict[str, Any]) -> Any:
    try:
        value = definition.resolve_metadata(name, attrdata.DataContext(data))
    except Exception:
        return {}
    return value if value is not None else {}
