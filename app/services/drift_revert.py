"""Bringing drifted resources back to the template: an update of the stack on its own template
(Heat's ``PATCH`` with ``existing``) after each drifted row is told what the cloud holds.

:func:`preview` lists what the revert of a completed detection would do, nothing written:
a DELETED resource is ``created`` again; a MODIFIED one is ``updated`` in place to the
template's properties (its plugin's ``update_diff`` from the live values), or ``replaced``
when that diff asks for a replacement, a changed property is immutable, or the cloud cannot
go back (:func:`app.engine.drift.revert_replaces`: a volume cannot shrink). :func:`revert`
then writes, in one transaction: a MODIFIED row's drifted properties take their live values
(the update's diff then restores the template's through ``handle_update``), a row to be
created or replaced is marked ``CHECK_FAILED`` (Heat's rule: the update replaces it), and
the UPDATE traversal starts. Resources that depend on a re-created one are updated as any
update's rules say. Nested stacks' resources are reverted by the parent's update.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app import auth, errors
from app.context import RequestContext
from app.convergence.store.definitions import identity
from app.engine import drift as rules
from app.engine.states import Action, Status
from app.models import DriftDetection, Resource, Stack, read_session, session
from app.models.base import utcnow
from app.resource_types import base, registry
from app.services import drift, export_guard, stack_policy, stacks, updates
from app.services.stack_actions import in_progress

KINDS = ("created", "updated", "replaced")
DELETED_REASON = "Deleted outside the stack: created again by a drift revert."


def preview(ctx: RequestContext, stack: Stack, detection_id: str) -> dict[str, Any]:
    """``{"detection_id", "stack_id", "stack_name", "resource_changes": {"created"|"updated"|
    "replaced": [entry]}}``; each entry is the detection's (``path``, ``resource_name``,
    ``drift_status``, ``property_differences`` ...) with ``reason`` saying why.
    :raises errors.NotFound: no such detection; :raises errors.Conflict: not the stack's
    latest completed detection, or a drifted resource changed since (detect again)."""
    if stack.deleted_at is not None:
        raise errors.NotFound("Stack", stack.name)
    found, rows = _drifted(ctx, stack, detection_id)
    out: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    for entry in found:
        kind, reason = _judge(stack, entry, rows[_key(entry)])
        out[kind].append({**entry, "reason": reason})
    return {"detection_id": detection_id, "stack_id": stack.id, "stack_name": stack.name,
            "resource_changes": out}


def revert(ctx: RequestContext, stack: Stack, detection_id: str) -> dict[str, Any]:
    """Write what :func:`preview` says and start the stack's UPDATE.
    :returns: the preview, its ``stack`` the stack row's id and status after the start.
    :raises errors.BadRequest: nothing drifted; :raises errors.Conflict: as :func:`preview`,
    or the stack has an action in progress."""
    plan = preview(ctx, stack, detection_id)
    if not any(plan["resource_changes"].values()):
        raise errors.BadRequest(f"Drift detection {detection_id} found nothing to revert.")
    prep = updates.prepare_update(ctx, stack, existing=True)
    export_guard.check(stack, prep)
    with session() as s:
        row = s.get(Stack, stack.id, with_for_update=True)
        assert row is not None
        updates.check_updatable(row)
        if row.status == Status.IN_PROGRESS:
            raise in_progress(row)
        if row.stack_policy is not None:
            stack_policy.refuse(stack_policy.refusals(row.stack_policy,
                                                      _governed(s, row, plan)))
        for kind, entries in plan["resource_changes"].items():
            for entry in entries:
                res = s.execute(select(Resource).where(
                    Resource.stack_id == entry["stack_id"],
                    Resource.name == entry["resource_name"]).with_for_update()).scalars().one()
                if kind == "updated":
                    live = entry.get("actual_properties") or {}
                    res.properties_data = {**(res.properties_data or {}),
                                           **{p: live.get(p) for p in _props(entry)}}
                else:
                    res.action, res.status = Action.CHECK, Status.FAILED
                    res.status_reason = entry["reason"]
                res.updated_at = utcnow()
        updates.apply(s, row, prep)
    after = stacks.get_by_id(ctx, stack.id)
    return {**plan, "stack": {"id": after.id, "stack_status": after.stack_status}}


def _governed(s: Any, row: Stack, plan: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """The revert's changes as the stack policy sees an update's: a resource created again
    or replaced is ``Update:Replace`` (the update replaces it: a new physical resource), one
    updated in place ``Update:Modify``; a nested stack's drifted resource is an
    ``Update:Modify`` of the parent's resource holding that stack."""
    types = {r.name: r.type for r in s.execute(
        select(Resource).where(Resource.stack_id == row.id)).scalars()}
    out: dict[str, list[tuple[str, str]]] = {"updated": [], "replaced": []}
    for kind, entries in plan["resource_changes"].items():
        for e in entries:
            if e["stack_id"] == row.id:
                out["updated" if kind == "updated" else "replaced"].append(
                    (e["resource_name"], e["resource_type"]))
            else:
                top = str(e["path"]).split("/")[0]
                if (top, types.get(top, "")) not in out["updated"]:
                    out["updated"].append((top, types.get(top, "")))
    return out


def _key(entry: dict[str, Any]) -> tuple[str, str]:
    return str(entry["stack_id"]), str(entry["resource_name"])


def _props(entry: dict[str, Any]) -> list[str]:
    """The top-level properties a MODIFIED entry's differences are about."""
    return sorted({str(d["path"]).strip("/").split("/")[0]
                   for d in entry["property_differences"]})


def _drifted(ctx: RequestContext, stack: Stack,
             detection_id: str) -> tuple[list[dict[str, Any]], dict[tuple[str, str], Resource]]:
    """The MODIFIED and DELETED entries of the detection and their rows, checked fresh."""
    found = drift.get(ctx, stack, detection_id)
    latest = drift.get(ctx, stack)
    if found["status"] != drift.COMPLETE or latest["id"] != detection_id:
        raise errors.Conflict(f"Drift detection {detection_id} is not the latest completed "
                              f"detection of stack {stack.name}: detect again.")
    entries = [e for e in found["resources"]
               if e["drift_status"] in (rules.MODIFIED, rules.DELETED)]
    with read_session() as s:
        started = s.get(DriftDetection, detection_id)
        assert started is not None
        rows = {(r.stack_id, r.name): r for e in entries for r in s.execute(
            select(Resource).where(Resource.stack_id == e["stack_id"],
                                   Resource.name == e["resource_name"])).scalars()}
    for e in entries:
        r = rows.get(_key(e))
        if r is None or r.physical_resource_id != e["physical_resource_id"] \
                or (r.updated_at and r.updated_at > started.created_at):
            raise errors.Conflict(f"Resource {e['path']} changed since drift detection "
                                  f"{detection_id}: detect again.")
    return entries, rows


def _judge(stack: Stack, entry: dict[str, Any], row: Resource) -> tuple[str, str]:
    """``(kind, reason)`` for one drifted entry (see the module docstring)."""
    if entry["drift_status"] == rules.DELETED:
        return "created", DELETED_REASON
    why = rules.revert_replaces(entry["resource_type"], entry["property_differences"])
    if why is not None:
        return "replaced", f"Drifted: {why}."
    names = _props(entry)
    live = entry.get("actual_properties") or {}
    template = dict(row.properties_data or {})
    kind = str((row.rsrc_data or {}).get("_impl") or row.type)
    cls = registry.get(kind)
    assert cls is not None    # the detection checked it
    ident = identity(stack.name, stack.id, stack.tenant)
    plugin = cls(row.name, {**template, **{p: live.get(p) for p in names}},
                 resource_id=row.physical_resource_id, data=dict(row.rsrc_data or {}),
                 stack=ident, clients=auth.clients_for(ident), uuid=row.uuid)
    try:
        plugin.update_diff(template)
    except (base.UpdateReplace, base.NotSupported):
        return "replaced", (f"Drifted {', '.join(names)}: the template's values cannot be set "
                            "in place, the resource is replaced.")
    return "updated", f"Drifted {', '.join(names)}: updated in place to the template's values."
