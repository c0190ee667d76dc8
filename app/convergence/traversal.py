"""Traversals: starting one (its nodes, sync points, stack-level count, first tasks), finishing
one (final status, outputs, the parent's wake-up, a rollback), and timing one out.

A new traversal id supersedes the previous one (newest traversal wins: tasks of the old one stop
at their next step). Every traversal is a :class:`app.engine.plan.Plan` over nodes
``(resource, is_update)`` stored the same way: CREATE follows the template's dependencies;
DELETE (and a create's ROLLBACK) the ``requires`` stored on each resource row, so a stack can be
deleted even when its template no longer loads; UPDATE (and an update's ROLLBACK) both
(:func:`app.engine.update_plan.plan`). The deadline is :func:`app.convergence.timeouts.deadline_at`.
"""
from __future__ import annotations

import logging
import uuid
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from app import auth, config, errors
from app.convergence import runtime, stack_outputs, unchanged, wakeups
from app.convergence.nested import groups
from app.convergence.steps import checked, retain, snapshots
from app.convergence.store import bulk, definitions, events, syncpoints
from app.convergence.store import exports as stored_exports
from app.convergence.store.definitions import Loaded
from app.engine import plan as plans
from app.engine import update_plan
from app.engine.states import Action, Status, stack_reason
from app.models import (
    RawTemplate,
    Resource,
    SoftwareDeployment,
    Stack,
    SyncPoint,
    after_commit,
    raw_templates,
    session,
    utcnow,
)

log = logging.getLogger(__name__)
#: ``rsrc_data`` key holding the properties an in-place update started from: restored as the
#: resource's properties if the update fails, so that the next update compares with them
PROPS_BEFORE = "_props_before"


def _started(action: Action, n_nodes: int) -> dict[str, Any]:
    """The stack row's columns once a traversal of ``action`` over ``n_nodes`` nodes began
    (a new traversal id)."""
    values: dict[str, Any] = {
        "current_traversal": str(uuid.uuid4()), "action": action,
        "status": Status.IN_PROGRESS, "failed": False,
        "status_reason": stack_reason(action, Status.IN_PROGRESS), "pending_nodes": n_nodes,
        "traversal_started_at": utcnow()}
    if action != Action.CREATE:
        values["updated_at"] = utcnow()
    return values


def create_values(loaded: Loaded, action: Action = Action.CREATE) -> dict[str, Any]:
    """The columns of a stack row holding the started CREATE (or ADOPT) traversal of
    ``loaded``, which :func:`start_create` and :func:`start_adopt` expect: a new row's one
    INSERT carries them (no UPDATE of the row in the same transaction); an existing row is
    given them first."""
    return _started(action, len(loaded.definition.resources))


def _begin(s: Session, st: Stack, action: Action, n_nodes: int) -> str:
    """Begin the traversal on ``st`` and write the stack's IN_PROGRESS event."""
    for key, value in _started(action, n_nodes).items():
        setattr(st, key, value)
    return _begun(s, st, action)


def _begun(s: Session, st: Stack, action: Action) -> str:
    """Write the IN_PROGRESS event of the traversal ``st``'s columns already hold
    (:func:`create_values`); :returns: its id."""
    events.stack_event(s, st, action, Status.IN_PROGRESS, st.status_reason)
    return str(st.current_traversal)


def _store(s: Session, st: Stack, p: plans.Plan | bulk.PlanNodes, ids: dict[str, int],
           loaded: Loaded | None, given: dict[plans.Node, list[tuple[str, Any]]] | None = None
           ) -> str:
    """Begin the traversal, write its plan's sync points, enqueue its leaves after commit.
    ``p``: the plan, or the nodes that compute it as they are written (a reverse traversal's).
    ``given``: per node, ``(pred_key, data)`` of settled predecessors, reported at the start
    (:mod:`app.convergence.unchanged`)."""
    tid = str(st.current_traversal)
    given = given or {}
    nodes = p if isinstance(p, bulk.PlanNodes) else bulk.PlanNodes(lambda: p, ids, len(
        p.expected))
    syncpoints.create_nodes(s, st.id, tid, nodes,
                            {(ids[n], upd): reported for (n, upd), reported in given.items()})
    start = [(ids[n], upd) for n, upd in nodes.plan().leaves()]
    sid = st.id

    def kick() -> None:
        try:
            runtime.dispatcher().check_resources(sid, tid, start)
        except errors.BrokerUnavailable as exc:  # the database holds the traversal
            log.warning("traversal %s of stack %s not sent (%s): driven once the broker is "
                        "back", tid, sid, exc)

    after_commit(s, kick)
    if st.pending_nodes == 0:  # a traversal with no node at all ends at once
        s.flush()
        finish(s, st.id, tid, loaded)
    return tid


def _policy(rdef: Any) -> str:
    p = getattr(rdef, "deletion_policy", None) or "Delete"
    return {"delete": "Delete", "retain": "Retain", "snapshot": "Snapshot"}.get(str(p).lower(),
                                                                                 str(p))


def _new_row(st: Stack, name: str, rdef: Any, loaded: Loaded,
             kinds: dict[tuple[Any, ...], tuple[dict[str, Any], str]] | None = None
             ) -> dict[str, Any]:
    """The values of a resource row in INIT_COMPLETE for ``rdef`` (its built-in type and
    nested kind noted). ``kinds``: what rows of the same type, implementation, provider
    template and deletion policy share (their ``rsrc_data`` and policy), filled as they
    come: a group's members look their plugin up once, not each."""
    impl = getattr(rdef, "implementation", rdef.type)
    key = (rdef.type, impl, getattr(rdef, "template", None), rdef.deletion_policy)
    shared = kinds.get(key) if kinds is not None else None
    if shared is None:
        data: dict[str, Any] = {}
        if impl != rdef.type:
            data["_impl"] = impl
        kind = groups.kind(rdef)
        if kind:
            data["nested"] = kind
        shared = (data, _policy(rdef))
        if kinds is not None:
            kinds[key] = shared
    requires = loaded.requires.get(name)
    return {"stack_id": st.id, "name": name, "type": rdef.type, "action": Action.INIT,
            "status": Status.COMPLETE, "requires": sorted(requires) if requires else [],
            "deletion_policy": shared[1], "rsrc_data": dict(shared[0])}


def start_create(s: Session, st: Stack, loaded: Loaded) -> str:
    """Write the resource rows (INIT_COMPLETE) and start the CREATE traversal that ``st``'s
    columns hold (:func:`create_values`) on ``loaded.forward_plan`` (computed before ``s``
    began, a caller with many resources does so). O(V + E)."""
    resources = loaded.definition.resources
    kinds: dict[tuple[Any, ...], tuple[dict[str, Any], str]] = {}
    ids = bulk.insert_resources(s, st.id, (_new_row(st, name, rdef, loaded, kinds)
                                           for name, rdef in resources.items()), len(resources))
    _begun(s, st, Action.CREATE)
    traversal_id = _store(s, st, loaded.forward_plan, ids, loaded)
    loaded.drop_plan()   # the definition stays cached; its plan is not needed again
    return traversal_id


def start_update(s: Session, st: Stack, loaded: Loaded, action: Action = Action.UPDATE) -> str:
    """Start an UPDATE (or update-style ROLLBACK) traversal to ``loaded`` (the stack row already
    points at the new template): rows for added resources, the new dependencies and deletion
    policies on kept ones, and the graph of :func:`app.engine.update_plan.plan`. O(V + E)."""
    rows = list(s.execute(select(Resource).where(Resource.stack_id == st.id)).scalars())
    old = {r.name: set(r.requires or ()) for r in rows}
    resources = loaded.definition.resources
    by_name = {r.name: r for r in rows}
    new = [n for n in resources if n not in by_name]
    added = bulk.insert_resources(s, st.id, (_new_row(st, n, resources[n], loaded)
                                             for n in new), len(new))
    for r in rows:
        if r.name in resources:
            r.requires = sorted(loaded.requires.get(r.name, ()))
            r.deletion_policy = _policy(resources[r.name])
    p = update_plan.plan(old, loaded.requires)
    given: dict[plans.Node, list[tuple[str, Any]]] = {}
    if action == Action.UPDATE:  # a rollback visits every node (it is told apart by them)
        settled = unchanged.settle(s, loaded, by_name, p)
        p = settled.plan
        given = {n: [(q, by_name[q].attr_data) for q in names]
                 for n, names in settled.given.items()}
    _begin(s, st, action, len(p.expected))
    return _store(s, st, p, {**{r.name: r.id for r in rows}, **added}, loaded, given)


def start_reverse(s: Session, st: Stack, action: Action = Action.DELETE) -> str:
    """Start a DELETE (or create ROLLBACK) traversal over the stack's resource rows. O(V + E).
    A DELETE drops the outputs the last traversal stored: while it runs they are resolved
    from what the resources still hold, as Heat resolves them (the stack row is written at
    each finished batch, and a group's child holds an output per member: 9 MB rewritten a
    batch for 100,000)."""
    ids, requires = bulk.stored_graph(s, st.id)
    if action == Action.DELETE:
        st.outputs = None
    _begin(s, st, action, len(ids))
    # one node per row; the plan is computed as its sync points are copied (O(V + E) of CPU
    # the transaction would otherwise spend idle)
    return _store(s, st, bulk.PlanNodes(lambda: plans.reverse(requires), ids, len(ids)), ids,
                  None)


#: ``rsrc_data`` key holding a resource's entry of the adopt data until its ADOPT step takes it
ADOPT_DATA = "_adopt"


def start_adopt(s: Session, st: Stack, loaded: Loaded, resources: dict[str, Any]) -> str:
    """Write the resource rows, each with its entry of ``resources`` (Heat's adopt data:
    ``{name: {"resource_id", "resource_data", ...}}``), and start the ADOPT traversal (the
    create's graph; its steps take the resources over instead of creating them), which
    ``st``'s columns hold (:func:`create_values` of ADOPT). O(V + E)."""
    rows = [_new_row(st, name, rdef, loaded)
            for name, rdef in loaded.definition.resources.items()]
    for r in rows:
        r["rsrc_data"] = {**r["rsrc_data"], ADOPT_DATA: resources.get(r["name"])}
    ids = bulk.insert_resources(s, st.id, rows, len(rows))
    _begun(s, st, Action.ADOPT)
    traversal_id = _store(s, st, loaded.forward_plan, ids, loaded)
    loaded.drop_plan()
    return traversal_id


def start_snapshot(s: Session, st: Stack, snapshot_id: str) -> str:
    """Start the SNAPSHOT traversal of stack ``st`` whose traversal id is the snapshot's id (as
    Heat's ``converge_stack(action=SNAPSHOT, new_traversal_id=snapshot.id)``), forward over the
    resource rows; :func:`finish` stores the stack's data in the snapshot. O(V + E)."""
    rows = s.execute(select(Resource.id, Resource.name, Resource.requires)
                     .where(Resource.stack_id == st.id)).all()
    requires = {r.name: set(r.requires or ()) for r in rows}
    _begin(s, st, Action.SNAPSHOT, len(rows))
    st.current_traversal = snapshot_id
    return _store(s, st, plans.forward(requires), {r.name: r.id for r in rows}, None)


def start_action(s: Session, st: Stack, action: Action) -> str:
    """Start a SUSPEND, RESUME or CHECK traversal over the stack's resource rows (Heat's
    ``converge_stack(action=...)``): SUSPEND in reverse order (dependents first), RESUME and
    CHECK forward; the template stays. O(V + E)."""
    rows = s.execute(select(Resource.id, Resource.name, Resource.requires)
                     .where(Resource.stack_id == st.id)).all()
    requires = {r.name: set(r.requires or ()) for r in rows}
    _begin(s, st, action, len(rows))
    p = plans.reverse(requires) if action == Action.SUSPEND else plans.forward(requires)
    return _store(s, st, p, {r.name: r.id for r in rows}, None)


def start_update_rollback(s: Session, row: Stack) -> str | None:
    """Heat's update rollback: update back to the previous template and parameters (action
    ROLLBACK), inside the caller's transaction. None when there is nothing to roll back to."""
    prev = s.get(RawTemplate, row.prev_raw_template_id) if row.prev_raw_template_id else None
    if prev is None:
        return None
    params = dict((prev.environment or {}).get("parameters") or {})
    row.raw_template_id, row.prev_raw_template_id = prev.id, None
    row.parameters = params
    loaded = definitions.of_raw(prev, params, definitions.identity(row.name, row.id, row.tenant),
                                row.nested_info, s)
    definitions.seed((row.id, prev.id), loaded)
    stored_exports.reset_imports(s, row, loaded.definition)
    row.parameters_show = loaded.definition.parameters_for_show()
    row.description = definitions.description_of(prev.template)
    return start_update(s, row, loaded, Action.ROLLBACK)


def has_forward_nodes(s: Session, traversal_id: str) -> bool:
    """Whether a traversal creates or updates anything (a ROLLBACK of an update does; one of a
    create only deletes)."""
    return s.execute(select(SyncPoint.entity_id).where(
        SyncPoint.traversal_id == traversal_id, SyncPoint.is_update.is_(True)).limit(1)).first() \
        is not None


def _mixed(s: Session, st: Stack, traversal_id: str) -> bool:
    """Whether the traversal creates or updates resources besides deleting: an UPDATE, a
    RESTORE, the ROLLBACK of an update."""
    return st.action in (Action.UPDATE, Action.RESTORE) or (
        st.action == Action.ROLLBACK and has_forward_nodes(s, traversal_id))


def _finishing(st: Stack | None, traversal_id: str) -> bool:
    """Whether ``traversal_id`` is ``st``'s, in progress, with no node left to count."""
    return (st is not None and st.current_traversal == traversal_id
            and st.status == Status.IN_PROGRESS and st.pending_nodes <= 0)


def finish(s: Session, stack_id: str, traversal_id: str, loaded: Loaded | None) -> None:
    """Every node of the traversal has ended: set the stack's final status (and outputs),
    write the stack event, wake a parent stack's node, and start a rollback if a failed
    create or update asks for one; a completed DELETE also deletes the stack's snapshots, their
    cloud objects and rows (Heat's ``delete_all_snapshots``; one that cannot be deleted fails
    the DELETE). Inside the caller's transaction. Does nothing unless the
    traversal is still the stack's, in progress, with no node left to count: so it may be
    called again to recover one whose finishing was lost (:func:`app.convergence.store.node_writes.count_committed`).
    The outputs are computed before ``s`` reads anything when the stack is finishing as
    committed (:func:`app.convergence.stack_outputs.committed`). O(outputs + resources left)."""
    early = stack_outputs.committed(
        stack_id, loaded, lambda row: _finishing(row, traversal_id),
        lambda r, row: row.action in (Action.CREATE, Action.ADOPT) or _mixed(r, row, traversal_id))
    # the committed row decides what is done before the lock; else (it is finishing in
    # ``s`` only: the count reached zero in this transaction) the row as ``s`` sees it
    st = early.row if early is not None else s.get(Stack, stack_id)
    if not _finishing(st, traversal_id):
        return
    assert st is not None
    mixed = _mixed(s, st, traversal_id)
    outputs = None
    if early is not None and early.outputs is not None:
        loaded, outputs = early.loaded, early.outputs
        stack_outputs.store_refreshed(s, early.fresh)
    elif st.action in (Action.CREATE, Action.ADOPT) or mixed:
        if loaded is None:
            loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
        outputs = stack_outputs.refreshed(s, st, loaded)
    cleaned: tuple[list[str], str | None] = ([], None)
    if st.action == Action.DELETE and not st.failed:  # the cloud too: before the row lock
        cleaned = snapshots.delete_all_cloud(s, st)
    # then the row locked and read afresh: a newer traversal (an update, a delete, a cancel, a
    # timeout) that committed meanwhile wins, and of two callers (the last count and a
    # recovery) one finishes
    st = s.get(Stack, stack_id, with_for_update=True, populate_existing=True)
    if not _finishing(st, traversal_id):
        return
    assert st is not None
    if outputs is not None:
        st.outputs = outputs
    if outputs is not None and loaded is not None and mixed and not st.failed:
        refused = stored_exports.changed_in_use(s, st, loaded.definition, outputs)
        if refused:
            st.failed, st.status_reason = True, refused
    status = Status.FAILED if st.failed else Status.COMPLETE
    reason = st.status_reason if st.failed else stack_reason(st.action, status)
    if mixed and status == Status.COMPLETE and loaded is not None:
        # what left the template is gone: drop its rows
        s.execute(delete(Resource).where(Resource.stack_id == st.id, Resource.name.not_in(
            list(loaded.definition.resources))))
    if outputs is not None and status == Status.COMPLETE and loaded is not None:
        stored_exports.store(s, st, loaded.definition, outputs)
    if st.action == Action.CHECK:
        reason = checked.final_reason(s, st.id, status, reason)
    st.status, st.status_reason = status, reason  # updated_time: set when an action starts
    if mixed and status == Status.COMPLETE and st.prev_raw_template_id is not None:
        # no rollback needs the previous template any more (Heat's Stack.purge_db)
        prev, st.prev_raw_template_id = st.prev_raw_template_id, None
        s.flush()
        raw_templates.drop_unreferenced(s, [prev])
    if st.action == Action.DELETE and status == Status.COMPLETE:
        snapshots.delete_rows(s, cleaned[0])
        # the snapshots' cloud objects, then (keystone) the trust
        failure = cleaned[1] or auth.stack_deleted(s, st.id, config.get())
        if failure:
            status, reason = Status.FAILED, failure
            st.status, st.status_reason = status, reason
        else:
            st.deleted_at = utcnow()
            definitions.forget(st.id)
    events.stack_event(s, st, st.action, status, reason)
    if st.action == Action.SNAPSHOT:
        snapshots.finished(s, st, traversal_id, status, reason)
    wakeups.child_finished(s, st)
    if status == Status.FAILED:
        rollback_if_asked(s, st)


def rollback_if_asked(s: Session, st: Stack) -> None:
    """A failed (or timed out) CREATE, ADOPT or UPDATE rolls back unless ``disable_rollback``
    (Heat): a create by deleting what it made, an adopt by deleting the stack but keeping what
    it took over (Heat's legacy ``Stack.adopt`` rollback, an abandon; Heat's convergence engine
    rolls back to an empty template and so deletes the very resources it was asked to adopt),
    an update by updating back to the previous template."""
    if st.disable_rollback:
        return
    if st.action == Action.CREATE:
        start_reverse(s, st, Action.ROLLBACK)
    elif st.action == Action.ADOPT:  # what was taken over stays in the cloud
        retain.retain_adopted(s, st.id)
        start_reverse(s, st, Action.ROLLBACK)
    elif st.action == Action.UPDATE:
        start_update_rollback(s, st)


def stack_timeout(stack_id: str, traversal_id: str) -> None:
    """The traversal ran out of time: stack and in-progress resources FAILED ("Timed out"), and
    the traversal is superseded so no further step of it runs (Heat's stack timeout); then a
    rollback, if the stack asks for one."""
    with session() as s:  # locked: a finish committing meanwhile wins (traversal.finish)
        st = s.get(Stack, stack_id, with_for_update=True, populate_existing=True)
        if st is None or st.current_traversal != traversal_id \
                or st.status != Status.IN_PROGRESS:
            return
        _time_out(s, st)


def _time_out(s: Session, st: Stack) -> None:
    reason = "Timed out"
    st.current_traversal = str(uuid.uuid4())
    st.status, st.status_reason, st.failed, st.updated_at = (Status.FAILED, reason, True,
                                                             utcnow())
    cut: list[str] = []
    for r in s.execute(select(Resource).where(Resource.stack_id == st.id,
                                              Resource.status == Status.IN_PROGRESS)).scalars():
        r.status, r.status_reason, r.engine_id = Status.FAILED, reason, None
        if r.physical_resource_id:
            cut.append(r.physical_resource_id)
        if PROPS_BEFORE in (r.rsrc_data or {}):  # an update cut short: back to its start
            data = dict(r.rsrc_data)
            r.properties_data, r.rsrc_data = data.pop(PROPS_BEFORE), data
        events.add_event(s, st.id, r.name, r.physical_resource_id, r.type, r.action,
                         Status.FAILED, reason)
    _cancel_deployments(s, cut)
    events.stack_event(s, st, st.action, Status.FAILED, reason)
    rollback_if_asked(s, st)


def _cancel_deployments(s: Session, physical_ids: list[str]) -> None:
    """Heat's ``SoftwareDeployment.handle_<action>_cancel`` for the resources a timeout cut
    short: a deployment of theirs still IN_PROGRESS becomes FAILED "Deployment cancelled."."""
    if physical_ids:
        s.execute(update(SoftwareDeployment)
                  .where(SoftwareDeployment.id.in_(physical_ids),
                         SoftwareDeployment.status == "IN_PROGRESS")
                  .values(status="FAILED", status_reason="Deployment cancelled.",
                          updated_at=utcnow()))
