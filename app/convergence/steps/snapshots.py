"""The end of a SNAPSHOT traversal: the snapshot row (its id is the traversal's) gets the
stack's data (:mod:`app.convergence.store.stack_data`, resources included) and the traversal's final
status and reason, as Heat's ``Stack.update_snapshot`` on ``mark_complete`` /
``mark_failed`` (``heat/engine/stack.py``); the resources' part of deleting and restoring
a snapshot (``Resource.delete_snapshot`` / ``handle_restore``); and the deletion of every
snapshot of a deleted stack (``Stack.delete_all_snapshots``)."""
from __future__ import annotations

import copy
from typing import Any

from sqlalchemy import bindparam, delete, select
from sqlalchemy.orm import Session

from app import auth
from app.convergence.store import definitions, stack_data
from app.models import Snapshot, Stack, utcnow
from app.resource_types import failures as resource_failures
from app.resource_types import registry


def finished(s: Session, st: Stack, traversal_id: str, status: str, reason: str) -> None:
    """Record the snapshot ``traversal_id`` of ``st`` as ``status`` with ``reason``, in the
    caller's transaction (nothing if the snapshot was deleted meanwhile)."""
    snap = s.get(Snapshot, traversal_id)
    if snap is None:
        return
    data = stack_data.of(s, st)
    data["status"] = status
    snap.data, snap.status, snap.status_reason, snap.updated_at = data, status, reason, utcnow()


#: ``rsrc_data`` key holding a nested resource's part of the snapshot being restored (its child
#: stack's data) until its RESTORE step hands it to the child
RESTORE_DATA = "_restore"


def is_nested_entry(entry: Any) -> bool:
    """Whether a resource's entry of stack data is a nested stack's data (it has
    ``resources`` and no ``type``: Heat's ``StackResource.prepare_abandon``). Pure."""
    return isinstance(entry, dict) and isinstance(entry.get("resources"), dict) \
        and "type" not in entry


def delete_resource_snapshots(st: Stack, data: dict[str, Any]) -> list[str]:
    """Delete what a stack snapshot holds in the cloud (a volume's backup...): each resource of
    ``data`` whose type has ``handle_delete_snapshot`` (Heat's ``Resource.delete_snapshot``),
    nested stacks' data included. :returns: what was deleted (ids).
    :raises errors.CloudError: the cloud refused."""
    return _delete_snapshots(st.name, st.id, st.tenant, data, None)


#: a stack's snapshots, oldest first: the columns :func:`delete_all_cloud` uses (built once)
_OF_STACK = (select(Snapshot.id, Snapshot.data).where(Snapshot.stack_id == bindparam("sid"))
             .order_by(Snapshot.created_at, Snapshot.id))


def delete_all_cloud(s: Session, st: Stack) -> tuple[list[str], str | None]:
    """Heat's ``Stack.delete_all_snapshots`` at a stack delete, cloud side: what each of the
    stack's snapshots holds in the cloud is deleted (an object already gone is no error). Reads
    the snapshot rows; writes nothing. :returns: the ids of the snapshots dealt with, and the
    stack's failure reason if any resource's snapshot could not be deleted ("Stack <id> failed
    when delete all snapshots: <reasons>.")."""
    done: list[str] = []
    failures: dict[str, str] = {}
    for snap in s.connection().execute(_OF_STACK, {"sid": st.id}):
        before = len(failures)
        _delete_snapshots(st.name, st.id, st.tenant, dict(snap.data or {}), failures)
        if len(failures) == before:
            done.append(snap.id)
    if not failures:
        return done, None
    return done, (f"Stack {st.id} failed when delete all snapshots: "
                  f"{'; '.join(failures.values())}.")


def delete_rows(s: Session, snapshot_ids: list[str]) -> None:
    """Delete the snapshot rows ``snapshot_ids`` in the caller's transaction."""
    if snapshot_ids:
        s.execute(delete(Snapshot).where(Snapshot.id.in_(snapshot_ids)))


def _delete_snapshots(stack_name: str, stack_id: str, tenant: str, data: dict[str, Any],
                      failures: dict[str, str] | None) -> list[str]:
    """:param failures: where each resource's failure reason goes, keyed by resource name
    (None: the first failure is raised)."""
    ident = definitions.identity(stack_name, stack_id, tenant)
    done = []
    for name, entry in (data.get("resources") or {}).items():
        if is_nested_entry(entry):
            done += _delete_snapshots(str(entry.get("name")), str(entry.get("id")), tenant,
                                      entry, failures)
            continue
        cls = registry.get(str((entry or {}).get("type")))
        if cls is None or not hasattr(cls, "handle_delete_snapshot"):
            continue
        plugin: Any = cls(name, {}, resource_id=entry.get("resource_id"),
                     data=dict(entry.get("resource_data") or {}), stack=ident,
                     clients=auth.clients_for(ident))
        try:
            deleted = plugin.handle_delete_snapshot(entry)
        except Exception as exc:
            if failures is None:
                raise
            failures[f"{stack_id}/{name}"] = resource_failures.reason_of(name, exc)
            continue
        if deleted:
            done.append(str(deleted))
    return done


def restore_template(data: dict[str, Any]) -> dict[str, Any]:
    """The snapshot's template for a restore: each resource whose type has
    ``restore_properties`` (Heat's ``handle_restore``) gets the properties that bring back its
    snapshot (a volume: from its backup). The snapshot itself is not changed."""
    template = copy.deepcopy(dict(data.get("template") or {}))
    hot = "resources" in template
    section = template.get("resources" if hot else "Resources") or {}
    key = "properties" if hot else "Properties"
    for name, entry in (data.get("resources") or {}).items():
        cls = registry.get(str((entry or {}).get("type")))
        restore = getattr(cls, "restore_properties", None)
        res = section.get(name)
        if restore is None or not isinstance(res, dict):
            continue
        res[key] = restore(res.get(key) or {}, entry)
    return template
