"""Stack snapshots, as Heat's engine ``stack_snapshot``, ``stack_list_snapshots``,
``show_snapshot``, ``delete_snapshot`` and ``stack_restore`` (``heat/engine/service.py``).

More in docs/code/services.md (app.services.snapshots).
"""
from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import func, select

from app import config, errors
from app.context import RequestContext
from app.convergence import traversal
from app.convergence.steps import snapshots as convergence_snapshots
from app.convergence.steps import update
from app.convergence.store import stack_data
from app.engine.states import Action, Status
from app.models import Resource, Snapshot, Stack, isotime, read_session, session
from app.resource_types import registry
from app.services import stacks, updates
from app.services.stack_actions import in_progress

log = logging.getLogger(__name__)


def format_snapshot(snap: Snapshot) -> dict[str, Any]:
    """Heat's ``format_snapshot`` shape."""
    return {"id": snap.id, "name": snap.name, "action": snap.action, "status": snap.status,
            "status_reason": snap.status_reason, "data": snap.data,
            "creation_time": isotime(snap.created_at)}


def _live(ctx: RequestContext, stack_name: str, stack_id: str) -> Stack:
    st = stacks.get_stack(ctx, stack_name, stack_id)
    if st.deleted_at is not None or (st.action, st.status) == (Action.DELETE, Status.COMPLETE):
        raise errors.NotFound("Stack", stack_name)
    return st


def not_found(snapshot_id: str, stack_name: str) -> errors.NotFound:
    """Heat's 404 ``SnapshotNotFound`` for ``snapshot_id`` of the stack ``stack_name``."""
    return errors.NotFound("Snapshot", snapshot_id, f"The Snapshot ({snapshot_id}) for Stack "
                           f"({stack_name}) could not be found.", heat_type="SnapshotNotFound")


def _get(s: Any, st: Stack, snapshot_id: str) -> Snapshot:
    snap = s.get(Snapshot, snapshot_id)
    if snap is None or snap.stack_id != st.id:
        raise not_found(snapshot_id, st.name)
    return snap


def create_snapshot(ctx: RequestContext, stack_name: str, stack_id: str,
                    name: str | None) -> dict[str, Any]:
    """Snapshot the stack. :returns: the new snapshot (IN_PROGRESS, or final with an inline
    dispatcher). :raises: see the module docstring."""
    st = _live(ctx, stack_name, stack_id)
    limit = config.get().max_snapshots_per_stack
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        if row.status == Status.IN_PROGRESS:
            raise in_progress(row)
        if not ctx.is_admin and limit >= 0:
            count = s.execute(select(func.count()).select_from(Snapshot)
                              .where(Snapshot.stack_id == st.id)).scalar() or 0
            if count >= limit:
                raise errors.RequestLimitExceeded(
                    f"You have reached the maximum snapshots per stack, {limit}. Please "
                    "delete some snapshots.")
        data = stack_data.of(s, row)
        data["resources"] = {}
        snap = Snapshot(stack_id=st.id, tenant=ctx.tenant_id, name=name, data=data,
                        action="CREATE", status=Status.IN_PROGRESS.value, status_reason="")
        s.add(snap)
        s.flush()
        snapshot_id = snap.id
        traversal.start_snapshot(s, row, snapshot_id)
    return show_snapshot(ctx, stack_name, stack_id, snapshot_id)


def list_snapshots(ctx: RequestContext, stack_name: str, stack_id: str) -> list[dict[str, Any]]:
    """The stack's snapshots, oldest first."""
    st = _live(ctx, stack_name, stack_id)
    with read_session() as s:
        rows = s.execute(select(Snapshot).where(Snapshot.stack_id == st.id)
                         .order_by(Snapshot.created_at, Snapshot.id)).scalars()
        return [format_snapshot(r) for r in rows]


def show_snapshot(ctx: RequestContext, stack_name: str, stack_id: str,
                  snapshot_id: str) -> dict[str, Any]:
    """One snapshot of the stack. :raises errors.NotFound: ``SnapshotNotFound``."""
    st = _live(ctx, stack_name, stack_id)
    with read_session() as s:
        return format_snapshot(_get(s, st, snapshot_id))


def delete_snapshot(ctx: RequestContext, stack_name: str, stack_id: str,
                    snapshot_id: str) -> None:
    """Delete a snapshot (not while it is being taken).
    :raises errors.BadRequest: ``NotSupported`` for a snapshot in progress."""
    st = _live(ctx, stack_name, stack_id)
    with session() as s:
        snap = _get(s, st, snapshot_id)
        if snap.action == "CREATE" and snap.status == Status.IN_PROGRESS:
            raise errors.BadRequest("Deleting in-progress snapshot is not supported.",
                                    heat_type="NotSupported")
        convergence_snapshots.delete_resource_snapshots(st, dict(snap.data or {}))
        s.delete(snap)


def restore_snapshot(ctx: RequestContext, stack_name: str, stack_id: str,
                     snapshot_id: str) -> None:
    """Restore the stack to the snapshot (a RESTORE traversal to its template).
    :raises errors.BadRequest: ``NotSupported`` for an incomplete snapshot; as an update."""
    st = _live(ctx, stack_name, stack_id)
    with read_session() as s:
        snap = _get(s, st, snapshot_id)
        if snap.status != Status.COMPLETE:
            raise errors.BadRequest("Restoring incomplete snapshot is not supported.",
                                    heat_type="NotSupported")
        data = dict(snap.data or {})
    if st.status == Status.IN_PROGRESS:
        raise in_progress(st)
    env = {k: v for k, v in (data.get("environment") or {}).items() if k != "parameters"}
    prep = updates.prepare_update(ctx, st, template=convergence_snapshots.restore_template(data),
                                  files=data.get("files") or {}, environment=env,
                                  parameters=(data.get("environment") or {}).get("parameters"))
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        assert row is not None
        if row.status == Status.IN_PROGRESS:
            raise in_progress(row)
        restore_generated(s, st.id, prep, data.get("resources") or {})
        updates.apply(s, row, prep, Action.RESTORE)


def restore_generated(s: Any, stack_id: str, prep: Any, saved: dict[str, Any]) -> None:
    """Put back what cloud-free resources generated when the snapshot was taken (a
    RandomString's value...): each row of the same type as in the snapshot gets the snapshot's
    resource data and the properties the snapshot's template gives it, so the RESTORE traversal
    finds it as wanted and keeps it (Heat regenerates such values on restore). A resource whose
    properties cannot be resolved without its dependencies' data is left to the traversal. A
    nested-stack resource keeps its child's part of the snapshot for its RESTORE step, which
    restores the child from it (:mod:`app.convergence.nested.stacks`)."""
    rows = s.execute(select(Resource).where(Resource.stack_id == stack_id,
                                            Resource.name.in_(list(saved)))).scalars()
    for r in rows:
        entry = saved.get(r.name) or {}
        if (r.rsrc_data or {}).get("nested"):
            if convergence_snapshots.is_nested_entry(entry) \
                    and r.name in prep.definition.resources:
                r.rsrc_data = {**r.rsrc_data, convergence_snapshots.RESTORE_DATA: entry}
            continue
        cls = registry.get(str((r.rsrc_data or {}).get("_impl") or r.type))
        if cls is None or getattr(cls, "cloud_validation", False) or entry.get("type") != r.type \
                or (r.rsrc_data or {}).get("nested") or r.name not in prep.definition.resources:
            continue
        try:
            props = update.new_props(None, r, prep.loaded, {})
        except Exception as exc:  # it reads another resource: the traversal decides
            log.info("restore of %s leaves %s to the traversal: %s", stack_id, r.name, exc)
            continue
        own = {k: v for k, v in (r.rsrc_data or {}).items() if k.startswith("_")}
        r.rsrc_data = {**own, **(entry.get("resource_data") or {})}
        r.properties_data = props
