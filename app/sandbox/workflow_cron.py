"""Mistral v2 cron triggers for the sandbox (under ``/workflow/v2``, beside
:mod:`app.sandbox.workflow`), fired on schedule as Mistral's periodic task fires them.

More in docs/code/sandbox.md (app.sandbox.workflow_cron).
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

from flask import Blueprint, request

from app.sandbox import workflow, workflow_dsl
from app.sandbox.http import SandboxError, no_content, reply
from app.sandbox.runtime import store
from app.sandbox.workflow import TRIGGERS, WORKFLOWS, json_field, lookup, project_of_token, stamp, view

bp = Blueprint("workflow_cron", __name__)
#: executions one trigger may start in one catch-up (a sandbox stopped for a long time)
CATCH_UP = 50
_BOUNDS = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))


def _field_ok(spec: str, value: int, low: int, high: int) -> bool:
    for part in spec.split(","):
        rng, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if rng == "*":
            lo, hi = low, high
        elif "-" in rng:
            lo, hi = (int(x) for x in rng.split("-", 1))
        else:
            lo = hi = int(rng)
        if step < 1 or lo < low or hi > high:
            raise ValueError(spec)
        if lo <= value <= hi and (value - lo) % step == 0:
            return True
    return False


def next_time(pattern: str, after: float) -> float:
    """The first time after ``after`` (epoch seconds) that ``pattern`` matches: five cron
    fields (whole minutes) or six, the sixth being seconds.

    :raises SandboxError: 400 for a pattern it cannot read."""
    fields = pattern.split()
    if len(fields) not in (5, 6):
        raise SandboxError(400, f"The specified pattern is not valid: {pattern}")
    seconds = fields[5] if len(fields) == 6 else "0"
    start = dt.datetime.fromtimestamp(after, dt.UTC).replace(microsecond=0) \
        + dt.timedelta(seconds=1)
    minute = start.replace(second=0)
    try:
        for _ in range(366 * 24 * 60):
            values = (minute.minute, minute.hour, minute.day, minute.month,
                      (minute.weekday() + 1) % 7)
            if all(_field_ok(f, v, lo, hi) for f, v, (lo, hi) in zip(fields[:5], values, _BOUNDS,
                                                                       strict=True)):
                first = start.second if minute == start.replace(second=0) else 0
                for sec in range(first, 60):
                    if _field_ok(seconds, sec, 0, 59):
                        return minute.replace(second=sec).timestamp()
            minute += dt.timedelta(minutes=1)
    except ValueError:
        pass
    raise SandboxError(400, f"The specified pattern is not valid: {pattern}")


def _due(text: str) -> float:
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC).timestamp()


def fire_due() -> None:
    """Start the executions of every trigger (any project) whose time has come; O(triggers)."""
    st = store()
    now = st.clock()
    for trigger in st.all(TRIGGERS):
        fired = 0
        while trigger.get("next_execution_time") and _due(trigger["next_execution_time"]) <= now:
            due = _due(trigger["next_execution_time"])
            wf = st.get(WORKFLOWS, trigger["workflow_id"])
            if wf is not None and fired < CATCH_UP:
                try:
                    workflow.start_execution(
                        wf, json.loads(trigger["workflow_input"] or "{}"),
                        json.loads(trigger["workflow_params"] or "{}"),
                        f"Workflow execution created by cron trigger '({trigger['id']})'.", at=due)
                except SandboxError:
                    pass   # Mistral logs the failed start and keeps the trigger's schedule
            fired += 1
            count = trigger.get("remaining_executions")
            if count is not None:
                trigger["remaining_executions"] = count = count - 1
            if count == 0 or not trigger.get("pattern"):
                st.remove(TRIGGERS, trigger["id"])
                break
            after = due if fired < CATCH_UP else now
            trigger["next_execution_time"] = stamp(next_time(str(trigger["pattern"]), after))
            st.touch()


@bp.before_app_request
def _fire_before_workflow_requests() -> None:
    if (request.blueprint or "").startswith("workflow"):
        fire_due()


@bp.post("/cron_triggers")
def create_trigger() -> Any:
    data = request.get_json(silent=True, force=True)
    if not isinstance(data, dict) or not data.get("name"):
        raise SandboxError(400, "Invalid input: a cron trigger needs a name")
    st, project, now = store(), project_of_token(), store().clock()
    ident = data.get("workflow_id") or data.get("workflow_name")
    if not ident:
        raise SandboxError(400, "Workflow ID or workflow name must be provided.")
    wf = lookup(WORKFLOWS, str(ident), "Workflow")
    pattern, first = data.get("pattern"), data.get("first_execution_time")
    if not pattern and not first:
        raise SandboxError(400, "Pattern or first_execution_time must be specified.")
    if first:
        try:
            next_ts = dt.datetime.strptime(str(first), "%Y-%m-%d %H:%M").replace(
                tzinfo=dt.UTC).timestamp()
        except ValueError:
            raise SandboxError(400, f"Invalid first_execution_time: {first} (format "
                                    f"'YYYY-MM-DD HH:MM')") from None
        if next_ts < now + 60:
            raise SandboxError(400, "first_execution_time must be at least 1 minute in the "
                                    "future.")
    if pattern:
        cron_next = next_time(str(pattern), now)  # a pattern is checked even with a first time
        if not first:
            next_ts = cron_next
    count = data.get("remaining_executions")
    if first and not pattern and count and count > 1:
        raise SandboxError(400, "Pattern must be provided if count is superior to 1.")
    wf_input = json_field(data.get("workflow_input"), "workflow_input")
    workflow.checked_input(wf, workflow_dsl.parse(wf["definition"])[wf["name"]], wf_input)
    if st.find(TRIGGERS, project_id=project, name=data["name"]):
        raise SandboxError(409, f"Duplicate entry for cron trigger ['name', 'project_id']: "
                                f"{data['name']}, {project}")
    trigger = st.add(TRIGGERS, {
        "id": st.new_id(), "name": data["name"], "pattern": pattern or None,
        "workflow_name": wf["name"], "workflow_id": wf["id"],
        "workflow_input": json.dumps(wf_input),
        "workflow_params": json.dumps(json_field(data.get("workflow_params"), "workflow_params")),
        "first_execution_time": stamp(next_ts)[:16] if first else None,
        "next_execution_time": stamp(next_ts), "remaining_executions": count,
        "scope": "private", "project_id": project, "created_at": stamp(now), "updated_at": None})
    return reply(view(trigger), 201)


@bp.get("/cron_triggers")
def list_triggers() -> Any:
    return reply({"cron_triggers": [view(t) for t in
                                    store().find(TRIGGERS, project_id=project_of_token())]})


@bp.get("/cron_triggers/<ident>")
def show_trigger(ident: str) -> Any:
    return reply(view(lookup(TRIGGERS, ident, "Cron trigger")))


@bp.delete("/cron_triggers/<ident>")
def delete_trigger(ident: str) -> Any:
    store().remove(TRIGGERS, lookup(TRIGGERS, ident, "Cron trigger")["id"])
    return no_content()
