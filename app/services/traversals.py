"""Starting traversals: the nodes, their sync points, the stack-level count, the first tasks.

A new traversal id supersedes the previous one (newest traversal wins: tasks of the old one stop
at their next step). Forward traversals (create) follow the template's dependencies; reverse ones
(delete, rollback) follow the ``requires`` stored on each resource row, so a stack can be deleted
even when its template no longer loads.
"""
from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app import config
from app.engine import graph
from app.engine.states import stack_reason
from app.models import Resource, Stack, after_commit, utcnow
from app.services import dispatch, syncpoints
from app.services.completion import finalize, stack_event


def _begin(s: Session, st: Stack, action: str, n_nodes: int) -> str:
    tid = str(uuid.uuid4())
    st.current_traversal = tid
    st.action, st.status, st.failed = action, "IN_PROGRESS", False
    st.status_reason = stack_reason(action, "IN_PROGRESS")
    st.pending_nodes = n_nodes
    st.traversal_started_at = utcnow()
    if action != "CREATE":
        st.updated_at = utcnow()
    stack_event(s, st, action, "IN_PROGRESS", st.status_reason)
    return tid


def _schedule(s: Session, st: Stack, tid: str, is_update: bool, preds: dict[str, set[str]],
              ids: dict[str, int], loaded: Any) -> None:
    syncpoints.create_all(s, st.id, tid, is_update, {ids[n]: len(p) for n, p in preds.items()})
    _kick(s, st, tid, [(ids[n], is_update) for n in graph.leaves(preds)], loaded)


def _kick(s: Session, st: Stack, tid: str, start: list[tuple[int, bool]], loaded: Any) -> None:
    """After commit, enqueue the traversal's first nodes and its stack timeout; a traversal
    with no node at all ends at once."""
    timeout = (st.timeout_mins * 60) if st.timeout_mins else config.get().stack_action_timeout
    sid = st.id

    def kick() -> None:
        d = dispatch.get()
        for rid, upd in start:
            d.check_resource(sid, tid, rid, upd)
        d.stack_timeout(sid, tid, float(timeout))

    after_commit(s, kick)
    if st.pending_nodes == 0:
        s.flush()
        finalize(s, st.id, tid, loaded)


def _new_row(st: Stack, name: str, rdef: Any, loaded: Any) -> Resource:
    """A resource row in INIT_COMPLETE for ``rdef`` (its built-in type and nested kind noted)."""
    from app.services import nested
    data: dict[str, Any] = {}
    impl = getattr(rdef, "implementation", rdef.type)
    if impl != rdef.type:
        data["_impl"] = impl
    kind = nested.kind(rdef)
    if kind:
        data["nested"] = kind
    return Resource(stack_id=st.id, name=name, type=rdef.type, action="INIT", status="COMPLETE",
                    requires=sorted(loaded.requires.get(name, ())),
                    deletion_policy=_policy(rdef), rsrc_data=data)


def start_create(s: Session, st: Stack, loaded: Any) -> str:
    """Write the resource rows (INIT_COMPLETE) and start the CREATE traversal. O(V + E)."""
    rows = [_new_row(st, name, rdef, loaded)
            for name, rdef in loaded.definition.resources.items()]
    s.add_all(rows)
    s.flush()
    ids = {r.name: r.id for r in rows}
    tid = _begin(s, st, "CREATE", len(rows))
    _schedule(s, st, tid, True, graph.predecessors(loaded.requires, True), ids, loaded)
    return tid


def _policy(rdef: Any) -> str:
    p = getattr(rdef, "deletion_policy", None) or "Delete"
    return {"delete": "Delete", "retain": "Retain", "snapshot": "Snapshot"}.get(str(p).lower(),
                                                                                 str(p))


def start_update(s: Session, st: Stack, loaded: Any, action: str = "UPDATE") -> str:
    """Start an UPDATE (or update-style ROLLBACK) traversal to ``loaded`` (the stack row already
    points at the new template): rows for added resources, the new dependencies and deletion
    policies on kept ones, and the graph of :func:`app.engine.update_plan.plan` in sync points
    that list their successors. O(V + E)."""
    from app.engine import update_plan
    rows = list(s.execute(select(Resource).where(Resource.stack_id == st.id)).scalars())
    old = {r.name: set(r.requires or ()) for r in rows}
    resources = loaded.definition.resources
    by_name = {r.name: r for r in rows}
    added = [_new_row(st, n, rdef, loaded) for n, rdef in resources.items() if n not in by_name]
    s.add_all(added)
    s.flush()
    for r in rows:
        if r.name in resources:
            r.requires = sorted(loaded.requires.get(r.name, ()))
            r.deletion_policy = _policy(resources[r.name])
    ids = {r.name: r.id for r in rows + added}
    p = update_plan.plan(old, loaded.requires)
    tid = _begin(s, st, action, len(p.expected))
    syncpoints.create_nodes(s, st.id, tid, [
        (ids[n], upd, count, [[ids[sn], su] for sn, su in p.successors[(n, upd)]])
        for (n, upd), count in p.expected.items()])
    _kick(s, st, tid, [(ids[n], upd) for n, upd in p.leaves()], loaded)
    return tid


def start_reverse(s: Session, st: Stack, action: str = "DELETE") -> str:
    """Start a DELETE (or ROLLBACK) traversal over the stack's resource rows. O(V + E)."""
    rows = s.execute(select(Resource.id, Resource.name, Resource.requires)
                     .where(Resource.stack_id == st.id)).all()
    requires = {r.name: set(r.requires or ()) for r in rows}
    ids = {r.name: r.id for r in rows}
    tid = _begin(s, st, action, len(rows))
    _schedule(s, st, tid, False, graph.predecessors(requires, False), ids, None)
    return tid
