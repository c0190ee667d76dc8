"""Drift detection: each resource of a stack (and of its nested stacks and groups) against the
cloud, as a detection record.

:func:`start` writes a ``DETECTION_IN_PROGRESS`` record and enqueues the job
(``stoker.detect_drift``); :func:`run` reads every resource's live state through its plugin's
``show`` (the read path of the ``show`` attribute and of stack check) and compares the
properties its template sets (:mod:`app.engine.drift`). Each resource gets ``IN_SYNC``,
``MODIFIED`` (with its differences), ``DELETED`` or ``NOT_CHECKED`` with the reason; a nested
stack's resources carry their ``path`` (``group/0/server``). Nothing is changed.
"""
from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select

from app import auth, errors, templates
from app.context import RequestContext
from app.convergence import runtime
from app.convergence.store.definitions import identity
from app.engine import drift
from app.models import DriftDetection, RawTemplate, Resource, Stack, read_session, session
from app.models.base import isotime, utcnow
from app.resource_types import registry

LOG = logging.getLogger(__name__)
NESTED = "A nested stack: its resources are checked one by one."
IN_PROGRESS, COMPLETE, FAILED = ("DETECTION_IN_PROGRESS", "DETECTION_COMPLETE",
                                 "DETECTION_FAILED")


def start(ctx: RequestContext, stack: Stack, names: list[str] | None = None) -> dict[str, Any]:
    """Record a detection of ``stack`` and enqueue it; ``names``: only these of its resources
    (AWS's ``LogicalResourceIds``; a nested stack's resource brings its resources). :returns:
    :func:`body` of the record (``status`` DETECTION_IN_PROGRESS unless the job already ran
    in-process).
    :raises errors.NotFound: the stack was deleted (Heat's ``The Stack (s) could not be
        found.``): a deleted stack's resources are gone by its own doing, not drifted.
    :raises errors.BadRequest: a name that is not a resource of the stack (the CFN API's
        ValidationError); nothing is recorded."""
    check_detectable(stack)
    if names:
        with read_session() as s:
            known = set(s.execute(select(Resource.name).where(
                Resource.stack_id == stack.id)).scalars())
        missing = [n for n in dict.fromkeys(names) if n not in known]
        if missing:
            raise errors.BadRequest(f"Resource {', '.join(missing)} does not exist for stack "
                                   f"{stack.name}")
    with session() as s:
        row = DriftDetection(stack_id=stack.id, tenant=stack.tenant, status=IN_PROGRESS)
        s.add(row)
        s.flush()
        detection_id = row.id
    runtime.current().run_job("detect_drift", (detection_id, sorted(set(names or ())) or None))
    return get(ctx, stack, detection_id)


def check_detectable(stack: Stack) -> None:
    """AWS's rule for DetectStackDrift and DetectStackResourceDrift: a stack whose last action
    COMPLETEd (not a delete), or whose update rollback FAILED (AWS's UPDATE_ROLLBACK_FAILED;
    Heat names it ROLLBACK_FAILED).
    :raises errors.NotFound: deleted (Heat's ``The Stack (s) could not be found.``).
    :raises errors.Conflict: ``ActionInProgress`` (409, as Heat answers any action on a stack
        with one in progress; REVIEW_IN_PROGRESS included).
    :raises errors.BadRequest: ``NotSupported`` (400) in another FAILED state."""
    status = f"{stack.action}_{stack.status}"
    if stack.deleted_at is not None or status == "DELETE_COMPLETE":
        raise errors.NotFound("Stack", stack.name)
    if (stack.status == "COMPLETE" and stack.action != "DELETE") or status == "ROLLBACK_FAILED":
        return
    message = (f"Stack {stack.name} is in {status} state: drift can only be detected on a "
               "stack in a *_COMPLETE state or ROLLBACK_FAILED.")
    if stack.status == "IN_PROGRESS":
        raise errors.Conflict(message, heat_type="ActionInProgress")
    raise errors.BadRequest(message, heat_type="NotSupported")


def get(ctx: RequestContext, stack: Stack, detection_id: str | None = None) -> dict[str, Any]:
    """The detection ``detection_id`` of ``stack`` (None: its latest).
    :raises errors.NotFound: no such detection of this stack."""
    with read_session() as s:
        query = select(DriftDetection).where(DriftDetection.stack_id == stack.id)
        if detection_id is not None:
            query = query.where(DriftDetection.id == detection_id)
        row = s.execute(query.order_by(DriftDetection.created_at.desc())).scalars().first()
    if row is None and detection_id is None:
        raise errors.NotFound("Drift detection", stack.name,
                              f"No drift detection of stack {stack.name} yet: start one.")
    if row is None:
        raise errors.NotFound("Drift detection", detection_id)
    return body(row, stack)


def last_checks(stack_ids: list[str]) -> dict[str, tuple[str, str]]:
    """``{stack id: (stack drift status, time)}`` of each stack's latest ended detection
    (UNKNOWN when it could not run); a stack never checked is absent. One query."""
    with read_session() as s:
        found = s.execute(select(DriftDetection.stack_id, DriftDetection.stack_drift_status,
                                 DriftDetection.finished_at, DriftDetection.created_at).where(
            DriftDetection.stack_id.in_(stack_ids), DriftDetection.status != IN_PROGRESS)
            .order_by(DriftDetection.created_at)).all()
    return {sid: (status or drift.UNKNOWN, isotime(ended or started))
            for sid, status, ended, started in found}


def body(row: DriftDetection, stack: Stack) -> dict[str, Any]:
    """``{"id", "stack_id", "stack_name", "status", "status_reason", "stack_drift_status",
    "counts", "detection_time", "resources": [...]}``."""
    return {"id": row.id, "stack_id": stack.id, "stack_name": stack.name,
            "status": row.status, "status_reason": row.status_reason,
            "stack_drift_status": row.stack_drift_status, "counts": row.counts or {},
            "detection_time": isotime(row.finished_at or row.created_at),
            "resources": list(row.resources or [])}


def by_id(ctx: RequestContext, detection_id: str) -> tuple[dict[str, Any], Stack]:
    """A detection of a stack of the caller's project by its id alone (CloudFormation's
    DescribeStackDriftDetectionStatus). :raises errors.NotFound:"""
    with read_session() as s:
        row = s.get(DriftDetection, detection_id)
        stack = s.get(Stack, row.stack_id) if row is not None else None
    if row is None or stack is None or (row.tenant != ctx.tenant_id and not ctx.is_admin):
        raise errors.NotFound("Drift detection", detection_id)
    return body(row, stack), stack


def resource(ctx: RequestContext, stack: Stack, name: str) -> dict[str, Any]:
    """Resource ``name`` of ``stack`` checked now, as one entry of a detection (nothing is
    recorded); a resource holding a nested stack is NOT_CHECKED: its resources are named by
    their own stack (AWS's DetectStackResourceDrift on the nested stack).
    :raises errors.NotFound: no such resource; :raises: as :func:`check_detectable`."""
    check_detectable(stack)
    with read_session() as s:
        row = s.execute(select(Resource).where(Resource.stack_id == stack.id,
                                               Resource.name == name)).scalars().first()
        raw = s.get(RawTemplate, stack.raw_template_id)
    if row is None:
        raise errors.NotFound("Resource", name, heat_type="ResourceNotFound")
    if name in _children(stack):
        return _entry(stack, row, name, drift.NOT_CHECKED, reason=NESTED)
    return _check(stack, row, name, _template_keys(raw).get(name, set()))


def run(detection_id: str, names: list[str] | None = None) -> None:
    """The job: detect (only the resources ``names`` of the stack, when given), then record
    the result (DETECTION_FAILED with the reason when the detection itself could not run)."""
    with read_session() as s:
        row = s.get(DriftDetection, detection_id)
        stack = s.get(Stack, row.stack_id) if row is not None else None
    if row is None or stack is None or row.status != IN_PROGRESS:
        return
    try:
        results = detect(stack, only=set(names) if names else None)
        status, reason = COMPLETE, ""
    except Exception as exc:   # recorded: the detection says why it failed
        LOG.exception("drift detection %s of stack %s failed", detection_id, stack.id)
        results, status, reason = [], FAILED, str(exc) or type(exc).__name__
    drift_status, counts = drift.stack_status([r["drift_status"] for r in results])
    with session() as s:
        rec = s.get(DriftDetection, detection_id)
        assert rec is not None
        rec.status, rec.status_reason, rec.resources = status, reason, results
        rec.stack_drift_status = drift_status if status == COMPLETE else drift.UNKNOWN
        rec.counts, rec.finished_at = counts, utcnow()


def detect(stack: Stack, prefix: str = "", only: set[str] | None = None) -> list[dict[str, Any]]:
    """Every resource of ``stack`` (of ``only``, when given) and of its nested stacks,
    template order within a stack, a nested stack's resources after the resource that holds
    it. O(resources) cloud reads."""
    with read_session() as s:
        rows = list(s.execute(select(Resource).where(Resource.stack_id == stack.id)
                              .order_by(Resource.id)).scalars())
        raw = s.get(RawTemplate, stack.raw_template_id)
    kids = _children(stack)
    set_keys = _template_keys(raw)
    out: list[dict[str, Any]] = []
    for row in rows:
        if only is not None and row.name not in only:
            continue
        path = f"{prefix}{row.name}"
        child = kids.get(row.name)
        if child is not None:
            out.append(_entry(stack, row, path, drift.NOT_CHECKED, reason=NESTED))
            out.extend(detect(child, f"{path}/"))
            continue
        out.append(_check(stack, row, path, set_keys.get(row.name, set())))
    return out


def _children(stack: Stack) -> dict[str, Stack]:
    """``{resource name: the live nested stack it holds}`` of ``stack``."""
    with read_session() as s:
        return {(k.nested_info or {}).get("resource_name", ""): k for k in s.execute(
            select(Stack).where(Stack.parent_id == stack.id, Stack.deleted_at.is_(None))
            .order_by(Stack.created_at)).scalars()}


def _template_keys(raw: RawTemplate | None) -> dict[str, set[str]]:
    """``{resource: names of the properties its template sets}``."""
    if raw is None:
        return {}
    try:
        tmpl = templates.parse(raw.template, files=raw.files or {})
    except errors.StokerError:
        return {}
    return {name: set(res.properties) if isinstance(res.properties, dict) else set()
            for name, res in tmpl.resources.items()}


def _entry(stack: Stack, row: Resource, path: str, status: str, *, reason: str = "",
           expected: dict[str, Any] | None = None, actual: dict[str, Any] | None = None,
           diffs: list[drift.Difference] | None = None) -> dict[str, Any]:
    return {"resource_name": row.name, "path": path, "resource_type": row.type,
            "stack_id": stack.id, "stack_name": stack.name,
            "physical_resource_id": row.physical_resource_id, "drift_status": status,
            "reason": reason, "expected_properties": expected, "actual_properties": actual,
            "property_differences": [{"path": d.path, "expected": d.expected,
                                      "actual": d.actual, "difference_type": d.kind}
                                     for d in diffs or []],
            "timestamp": isotime(utcnow())}


def _check(stack: Stack, row: Resource, path: str, keys: set[str]) -> dict[str, Any]:
    kind = str((row.rsrc_data or {}).get("_impl") or row.type)
    cls = registry.get(kind)
    if not drift.checkable(kind) or cls is None:
        return _entry(stack, row, path, drift.NOT_CHECKED,
                      reason=f"The live state of {kind} resources cannot be read.")
    if not row.physical_resource_id or row.properties_data is None:
        return _entry(stack, row, path, drift.NOT_CHECKED, reason="The resource has no physical "
                      f"resource ({row.action}_{row.status}).")
    expected = {k: v for k, v in row.properties_data.items() if k in keys and v is not None}
    ident = identity(stack.name, stack.id, stack.tenant)
    plugin = cls(row.name, dict(row.properties_data), resource_id=row.physical_resource_id,
                 data=dict(row.rsrc_data or {}), stack=ident, clients=auth.clients_for(ident),
                 uuid=row.uuid)
    try:
        view = getattr(plugin, "drift_view", None)
        live = view() if callable(view) else plugin.show_resource()
    except errors.StokerError as exc:
        return _entry(stack, row, path, drift.NOT_CHECKED, reason=f"The cloud did not answer: {exc}",
                      expected=expected)
    if live is None:
        return _entry(stack, row, path, drift.DELETED, expected=expected)
    actual = drift.actual(kind, expected, live)
    diffs = drift.compare(kind, expected, live)
    return _entry(stack, row, path, drift.MODIFIED if diffs else drift.IN_SYNC, expected=expected,
                  actual=actual, diffs=diffs)
