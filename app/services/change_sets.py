"""Change sets: an update of a stack (or the first create of a new one) planned ahead, its
changes shown per resource, and executed later exactly as planned — CloudFormation's
``CreateChangeSet`` / ``DescribeChangeSet`` / ``ExecuteChangeSet`` (Heat has none).

The plan is the update preview's (:mod:`app.services.update_preview`, nested stacks
expanded): each resource's action (Add / Modify / Remove), replacement (True / False /
Conditional, with the properties that force it), scope and property-level before/after.
Execution re-runs the stored, checked request only while the stack is as it was planned
against (:func:`fingerprint`); otherwise it is refused (400 ``InvalidChangeSetStatus``) and
nothing changes. Errors: 404 ``ChangeSetNotFound``; 409 ``AlreadyExistsException``.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.exc import IntegrityError

from app import convergence, errors
from app.context import RequestContext
from app.convergence.traversal import create_values
from app.engine.states import Action, Status
from app.models import (
    ChangeSet,
    Stack,
    autocommit,
    concurrent_writers,
    isotime,
    read_session,
    session,
)
from app.services import export_guard, stack_policy, stacks, update_preview, updates
from app.services.change_set_entries import entries

log = logging.getLogger(__name__)
#: a stack's own events carry this type (Heat's)
STACK_TYPE = "OS::Heat::Stack"
#: the ``execution_status`` stored while the execution's operation runs
EXECUTING = "EXECUTE_IN_PROGRESS"
REVIEW = "REVIEW"  # a stack made by a CREATE change set, not created yet (REVIEW_IN_PROGRESS)
NO_CHANGES = ("The submitted information didn't contain changes. Submit different information "
              "to create a change set.")


def fingerprint(st: Any) -> str:
    """What a change set was planned against: the stack's template row, parameters and update
    time, hashed (sha256 hex). Any update, rollback or action since changes it."""
    state = [st.raw_template_id, st.parameters, isotime(st.updated_at), st.action == REVIEW]
    return hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()


def not_found(name: str) -> errors.NotFound:
    """404 ``ChangeSetNotFound`` (AWS's code) for the change set ``name``."""
    return errors.NotFound("ChangeSet", name, f"ChangeSet [{name}] does not exist",
                           heat_type="ChangeSetNotFound")


def bad_status(message: str) -> errors.BadRequest:
    """400 ``InvalidChangeSetStatus`` (AWS's code)."""
    return errors.BadRequest(message, heat_type="InvalidChangeSetStatus")


def _stored_request(prep: updates.Prepared) -> dict[str, Any]:
    env = {k: v for k, v in prep.environment.items() if k != "parameters"}
    return {"template": prep.template, "files": prep.files, "environment": env,
            "parameters": prep.params, "timeout_mins": prep.timeout_mins,
            "disable_rollback": prep.disable_rollback, "tags": prep.tags}


def create_change_set(ctx: RequestContext, stack_name: str, stack_id: str, name: str,
                      description: str = "", **request: Any) -> dict[str, Any]:
    """Plan an update of the stack (keyword arguments as
    :func:`app.services.updates.prepare_update`, ``existing`` included) and keep it as change
    set ``name``. A plan with no change is kept FAILED with AWS's reason; one whose only
    changes are to the outputs is kept executable with no resource change, as AWS keeps it.

    :returns: the change set (:func:`format_change_set`).
    :raises errors.NotFound: the stack; :raises errors.BadRequest: a bad request or name
        (nothing is kept); :raises errors.Conflict: the name is taken
        (``AlreadyExistsException``)."""
    _check_name(name)
    _check_description(description)
    st = stacks.get_stack(ctx, stack_name, stack_id)
    if st.action != REVIEW:
        updates.check_updatable(st)
        if st.status == Status.IN_PROGRESS:  # a plan against a state still changing (AWS)
            raise bad_status(f"Stack [{st.name}] is in {st.stack_status} state and a change "
                             "set cannot be created for it now.")
    prep = updates.prepare_update(ctx, st, **request)
    changes = update_preview.preview_update(ctx, stack_name, stack_id, show_nested=True,
                                            **request)
    planned = entries(changes)
    kind = "CREATE" if st.action == REVIEW else "UPDATE"
    changed = bool(planned) or kind == "UPDATE" and _outputs_changed(ctx, st, prep)
    return _keep(ctx, st, name, description, kind, _stored_request(prep), planned, changed)


def _outputs_changed(ctx: RequestContext, st: Stack, prep: updates.Prepared) -> bool:
    """Whether the planned template's outputs section (``Outputs`` / ``outputs``, exports
    included) differs from the stack's: AWS keeps a change set whose only changes are to
    outputs CREATE_COMPLETE with no resource change, executable (the update stores the new
    outputs and exports)."""
    def section(template: Mapping[str, Any]) -> Any:
        return template.get("Outputs", template.get("outputs")) or {}
    return bool(section(stacks.get_template(ctx, st)) != section(prep.template))


def create_stack_change_set(ctx: RequestContext, stack_name: str, name: str,
                            description: str = "", **request: Any) -> dict[str, Any]:
    """A CREATE change set: a new stack ``stack_name`` is kept REVIEW_IN_PROGRESS (no resource
    made) with the request (keyword arguments as :func:`app.services.stacks.create_stack_id`),
    and every resource is planned as Add. A stack of that name still REVIEW_IN_PROGRESS takes
    another CREATE change set planned from this request, as AWS allows (its guards,
    ``termination_protection`` and ``stack_policy``, are the first request's).
    :raises: as :func:`create_change_set`, ``StackExists`` (409) when a live stack that is
    not in review has the name."""
    _check_name(name)
    _check_description(description)
    try:
        stack_id = stacks.create_stack_id(ctx, stack_name=stack_name, review=True, **request)
    except errors.StackExists:
        st = stacks.lookup_stack(ctx, stack_name)
        if st.action != REVIEW:
            raise
        guards = sorted(k for k in REVIEW_FIXED if k in request)
        if guards:
            raise errors.BadRequest(f"Stack [{st.name}] is in review: {', '.join(guards)} "
                                    "cannot be changed by another CREATE change set.") from None
        return create_change_set(ctx, st.name, st.id, name, description, **request)
    st = stacks.get_by_id(ctx, stack_id)
    return create_change_set(ctx, st.name, st.id, name, description, existing=True)


#: what only the change set that made a REVIEW_IN_PROGRESS stack sets
REVIEW_FIXED = ("termination_protection", "stack_policy")


#: AWS's ``ChangeSetName`` pattern (at most 128 characters) and ``Description`` limit
NAME = re.compile(r"[a-zA-Z][-a-zA-Z0-9]{0,127}")
MAX_DESCRIPTION = 1024


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise errors.BadRequest(f"ChangeSetName {name!r} is invalid: 1 to 128 letters, digits "
                                "and hyphens, starting with a letter.")


def _check_description(description: str) -> None:
    """AWS's limit on a change set's ``Description``, in its validation wording."""
    if len(description) > MAX_DESCRIPTION:
        raise errors.BadRequest("1 validation error detected: Value at 'description' failed to "
                                "satisfy constraint: Member must have length less than or "
                                f"equal to {MAX_DESCRIPTION}")


def _keep(ctx: RequestContext, st: Stack, name: str, description: str, kind: str,
          request: dict[str, Any], planned: list[dict[str, Any]],
          changed: bool) -> dict[str, Any]:
    """Store the change set; one that changes nothing (``changed`` false) FAILED with AWS's
    reason, not executable."""
    row = ChangeSet(stack_id=st.id, tenant=st.tenant, name=name, description=description or "",
                    change_set_type=kind, request=request, changes=planned,
                    fingerprint=fingerprint(st), status="CREATE_COMPLETE", status_reason="",
                    execution_status="AVAILABLE")
    if not changed:
        row.status, row.status_reason, row.execution_status = "FAILED", NO_CHANGES, "UNAVAILABLE"
    try:
        with session() as s:
            s.add(row)
            s.flush()
            cs_id = row.id
    except IntegrityError:
        raise errors.Conflict(f"ChangeSet {name} already exists for stack {st.name}.",
                              heat_type="AlreadyExistsException") from None
    return show_change_set(ctx, st.name, st.id, cs_id)


def _get(s: Any, st: Stack, name_or_id: str) -> ChangeSet:
    row = s.get(ChangeSet, name_or_id)
    if row is None or row.stack_id != st.id:
        row = s.execute(select(ChangeSet).where(ChangeSet.stack_id == st.id,
                                                ChangeSet.name == name_or_id)).scalars().first()
    if row is None:
        raise not_found(name_or_id)
    return row


def stack_of_change_set(ctx: RequestContext, change_set_id: str) -> Stack:
    """The stack of change set id ``change_set_id`` in the caller's project (a change set's
    ARN names no stack name). :raises errors.NotFound: ``ChangeSetNotFound``."""
    with read_session() as s:
        row = s.get(ChangeSet, change_set_id)
    if row is None or (row.tenant != ctx.tenant_id and not ctx.is_admin):
        raise not_found(change_set_id)
    return stacks.get_by_id(ctx, row.stack_id)


def format_change_set(st: Stack, row: ChangeSet, changes: bool = True) -> dict[str, Any]:
    """``{id, name, stack_id, stack_name, description, type, status, status_reason,
    execution_status, creation_time[, parameters, changes]}``; an AVAILABLE change set whose
    stack has changed since is shown OBSOLETE; one being executed is shown by its stack's
    state (:func:`execution_of`) until :func:`observe` records the outcome."""
    execution = row.execution_status
    if execution == "AVAILABLE" and fingerprint(st) != row.fingerprint:
        execution = "OBSOLETE"
    elif execution == EXECUTING:
        execution = execution_of(st.action, st.status)
    body: dict[str, Any] = {
        "id": row.id, "name": row.name, "stack_id": st.id, "stack_name": st.name,
        "description": row.description, "type": row.change_set_type, "status": row.status,
        "status_reason": row.status_reason, "execution_status": execution,
        "creation_time": isotime(row.created_at)}
    if changes:
        body["parameters"] = dict((row.request or {}).get("parameters") or {})
        body["changes"] = list(row.changes or [])
    return body


def show_change_set(ctx: RequestContext, stack_name: str, stack_id: str,
                    name_or_id: str) -> dict[str, Any]:
    """The change set (by id or name) of the stack. :raises errors.NotFound."""
    st = stacks.get_stack(ctx, stack_name, stack_id)
    with read_session() as s:
        row = _get(s, st, name_or_id)
    return format_change_set(st, row)


def list_change_sets(ctx: RequestContext, stack_name: str, stack_id: str
                     ) -> list[dict[str, Any]]:
    """The stack's change sets, oldest first, without their changes."""
    st = stacks.get_stack(ctx, stack_name, stack_id)
    with read_session() as s:
        rows = list(s.execute(select(ChangeSet).where(ChangeSet.stack_id == st.id)
                              .order_by(ChangeSet.created_at, ChangeSet.id)).scalars())
    return [format_change_set(st, r, changes=False) for r in rows]


def delete_change_set(ctx: RequestContext, stack_name: str, stack_id: str,
                      name_or_id: str) -> None:
    """Forget the change set (an executed one too). :raises errors.NotFound."""
    st = stacks.get_stack(ctx, stack_name, stack_id)
    with session() as s:
        row = _get(s, st, name_or_id)
        s.delete(row)


def execute_change_set(ctx: RequestContext, stack_name: str, stack_id: str,
                       name_or_id: str, disable_rollback: bool | None = None) -> Stack:
    """Run the change set's stored request: the stack's UPDATE traversal (its CREATE for a
    REVIEW_IN_PROGRESS stack). The stack's other change sets are deleted, as AWS deletes
    them ("no longer valid for the updated stack"); the executed one stays, with its outcome.

    :param disable_rollback: overrides the planned setting (AWS's ``DisableRollback``).
    :returns: the stack row. :raises errors.NotFound: stack or change set;
        :raises errors.BadRequest: ``InvalidChangeSetStatus`` — failed, executed, obsolete, or
        the stack changed since it was planned, or is in progress; nothing is changed.
        :raises errors.Conflict: the stack policy denies the change (``UpdateDeniedByStackPolicy``)."""
    st = stacks.get_stack(ctx, stack_name, stack_id)
    with read_session() as s:
        cs = _get(s, st, name_or_id)
    _check_executable(st, cs)
    request = dict(cs.request or {})
    if disable_rollback is not None:
        request["disable_rollback"] = disable_rollback
    prep = updates.prepare_update(ctx, st, **request)
    if st.action != REVIEW:  # an update: held against the stack policy as any update
        stack_policy.check(st, prep)
        export_guard.check(st, prep)
    with session() as s:
        row = s.get(Stack, st.id, with_for_update=True)
        locked = s.get(ChangeSet, cs.id)
        if row is None or locked is None:
            raise not_found(name_or_id)
        _check_executable(row, locked)
        if row.action == REVIEW:
            _create(s, row, prep)
        else:
            updates.apply(s, row, prep)
        s.execute(delete(ChangeSet).where(ChangeSet.stack_id == st.id, ChangeSet.id != cs.id))
        locked.execution_status = EXECUTING
    return stacks.get_by_id(ctx, st.id)


def execution_of(action: str, status: str) -> str:
    """AWS's ``ExecutionStatus`` of a change set being executed, from its stack's state: the
    CREATE or UPDATE it started in progress → EXECUTE_IN_PROGRESS, complete →
    EXECUTE_COMPLETE; failed, rolling or rolled back, or anything else → EXECUTE_FAILED."""
    if action in (Action.CREATE, Action.UPDATE) and status == Status.IN_PROGRESS:
        return EXECUTING
    if action in (Action.CREATE, Action.UPDATE) and status == Status.COMPLETE:
        return "EXECUTE_COMPLETE"
    return "EXECUTE_FAILED"


#: the outcome of the change set being executed on a stack (built once: an observer runs at
#: the end of every stack operation)
_OUTCOME = update(ChangeSet).where(
    ChangeSet.stack_id == bindparam("sid"), ChangeSet.execution_status == EXECUTING
).values(execution_status=bindparam("outcome"))


def observe(row: Mapping[str, Any]) -> None:
    """An event observer (:mod:`app.services.wiring`): a stack's own CREATE or UPDATE
    COMPLETE / FAILED event records the outcome of the change set being executed on it, if
    any (one UPDATE statement per stack operation's end; nothing for other events). Never
    raises: the read side (:func:`format_change_set`) shows the stack's state meanwhile."""
    try:
        if row.get("resource_type") != STACK_TYPE or row.get("physical_resource_id") != \
                row.get("stack_id") or row.get("status") not in (Status.COMPLETE,
                                                                  Status.FAILED) \
                or row.get("action") not in (Action.CREATE, Action.UPDATE):
            return
        values = {"sid": row["stack_id"],
                  "outcome": execution_of(str(row["action"]), str(row["status"]))}
        if concurrent_writers():  # one statement: no transaction's BEGIN and COMMIT
            with autocommit() as conn:
                conn.execute(_OUTCOME, values)
            return
        with session() as s:  # SQLite: in turn with the other writers
            s.execute(_OUTCOME, values)
    except Exception as exc:  # the read side still tells the stack's state
        log.warning("change set outcome of stack %s not recorded: %s", row.get("stack_id"), exc)


def _check_executable(st: Stack, cs: ChangeSet) -> None:
    if cs.status != "CREATE_COMPLETE" or cs.execution_status != "AVAILABLE":
        raise bad_status(f"ChangeSet [{cs.id}] cannot be executed in its current status of "
                         f"[{cs.status}] and execution status [{cs.execution_status}]")
    if st.deleted_at is not None or st.status == Status.IN_PROGRESS and st.action != REVIEW:
        raise bad_status(f"Stack [{st.name}] is in {st.stack_status} state: the change set "
                         f"[{cs.name}] cannot be executed now.")
    if fingerprint(st) != cs.fingerprint:
        raise bad_status(f"ChangeSet [{cs.name}] is OBSOLETE: stack [{st.name}] has changed "
                         "since it was created; create a new change set.")


def _create(s: Any, row: Stack, prep: updates.Prepared) -> None:
    """The first CREATE of a REVIEW_IN_PROGRESS stack, to ``prep``."""
    updates.store(s, row, prep)
    for key, value in create_values(prep.loaded).items():
        setattr(row, key, value)
    convergence.start_create(s, row, prep.loaded)
