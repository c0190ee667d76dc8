"""Mistral v2 for the sandbox (catalog type ``workflowv2``): workflows, executions and cron
triggers, what Heat's ``OS::Mistral::*`` types and a template author need.

More in docs/code/sandbox.md (app.sandbox.workflow).
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Any

from flask import Blueprint, request

from app.sandbox import auth, workflow_dsl
from app.sandbox.http import SandboxError, no_content, reply
from app.sandbox.runtime import sb, store
from app.sandbox.store import Obj

bp = Blueprint("workflow", __name__)
discovery_bp = Blueprint("workflow_discovery", __name__)
EXTRA_BLUEPRINTS = (discovery_bp,)
WORKFLOWS, EXECUTIONS, TRIGGERS = "mistral_workflows", "mistral_executions", "mistral_cron_triggers"
#: seconds an execution stays RUNNING (``PUT /sandbox/behaviour {"delays": {"workflow_run"}}``)
RUN_DELAY = 0.3
_REQUIRED = object()


def _version() -> Obj:
    return {"id": "v2.0", "status": "CURRENT",
            "links": [{"href": request.host_url.rstrip("/") + "/workflow/v2", "rel": "self"}]}


@discovery_bp.get("/workflow")
@discovery_bp.get("/workflow/")
def versions() -> Any:
    return reply({"versions": [_version()]})


@bp.get("")
@bp.get("/")
def home() -> Any:
    return reply({"version": _version()})


# ---- helpers ------------------------------------------------------------------------------------
def project_of_token() -> str:
    return str(auth.ctx().project_id or "")


def stamp(ts: float | None = None) -> str:
    ts = store().clock() if ts is None else ts
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%d %H:%M:%S")


def lookup(collection: str, ident: str, what: str) -> Obj:
    for obj in store().find(collection, project_id=project_of_token()):
        if obj["id"] == ident or obj.get("name") == ident:
            return obj
    key = "workflow_identifier" if what == "Workflow" else "identifier"
    raise SandboxError(404, f"{what} not found [{key}={ident}, namespace=]")


def json_field(value: Any, name: str) -> Any:
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise SandboxError(400, f"Invalid JSON in '{name}': {value}") from None
    if not isinstance(value, dict):
        raise SandboxError(400, f"'{name}' must be a JSON object")
    return value


def view(obj: Obj) -> Obj:
    return {k: v for k, v in obj.items() if not k.startswith("_")}


# ---- workflows ----------------------------------------------------------------------------------
def _definition() -> dict[str, Obj]:
    text = request.get_data(as_text=True)
    if not text.strip():
        raise SandboxError(400, "Invalid DSL: the definition is empty")
    try:
        return workflow_dsl.parse(text)
    except workflow_dsl.DslError as exc:
        raise SandboxError(400, f"Invalid DSL: {exc}") from None


def _input_text(spec: Obj) -> str:
    parts = []
    for item in spec["spec"].get("input") or []:
        if isinstance(item, dict):
            key, default = next(iter(item.items()))
            parts.append(f"{key}={json.dumps(default)}")
        else:
            parts.append(str(item))
    return ", ".join(parts)


@bp.post("/workflows")
def create_workflows() -> Any:
    found = _definition()
    st, project, text = store(), project_of_token(), request.get_data(as_text=True)
    for name in found:
        if st.find(WORKFLOWS, project_id=project, name=name):
            raise SandboxError(409, f"Duplicate entry for WorkflowDefinition ['name', 'namespace', "
                                    f"'project_id']: {name}, , {project}")
    made = []
    for name, spec in found.items():
        now = stamp()
        made.append(st.add(WORKFLOWS, {
            "id": st.new_id(), "name": name, "namespace": "", "input": _input_text(spec),
            "definition": text, "tags": spec["tags"], "scope": "private", "project_id": project,
            "created_at": now, "updated_at": None}))
    return reply({"workflows": [view(w) for w in made]}, 201)


@bp.put("/workflows")
def update_workflows() -> Any:
    found = _definition()
    text, out = request.get_data(as_text=True), []
    for name, spec in found.items():
        wf = lookup(WORKFLOWS, name, "Workflow")
        wf.update(definition=text, input=_input_text(spec), tags=spec["tags"], updated_at=stamp())
        out.append(view(wf))
    store().touch()
    return reply({"workflows": out})


@bp.get("/workflows")
def list_workflows() -> Any:
    items = sorted(store().find(WORKFLOWS, project_id=project_of_token()), key=lambda w: w["created_at"])
    return reply({"workflows": [view(w) for w in items]})


@bp.get("/workflows/<ident>")
def show_workflow(ident: str) -> Any:
    return reply(view(lookup(WORKFLOWS, ident, "Workflow")))


@bp.delete("/workflows/<ident>")
def delete_workflow(ident: str) -> Any:
    wf = lookup(WORKFLOWS, ident, "Workflow")
    for trigger in store().find(TRIGGERS, project_id=project_of_token(), workflow_id=wf["id"]):
        raise SandboxError(400, f"Can't delete workflow that has cron triggers associated. "
                                f"[workflow_identifier={wf['name']}, cron_trigger_id={trigger['id']}]")
    store().remove(WORKFLOWS, wf["id"])
    return no_content()


# ---- executions ---------------------------------------------------------------------------------
def checked_input(wf: Obj, spec: Obj, given: Obj) -> Obj:
    declared: Obj = {}
    for item in spec["spec"].get("input") or []:
        if isinstance(item, dict):
            declared.update(item)
        else:
            declared[str(item)] = _REQUIRED
    unexpected = sorted(k for k in given if k not in declared)
    missing = sorted(k for k, v in declared.items() if v is _REQUIRED and k not in given)
    if unexpected or missing:
        what = f"unexpected_inputs={unexpected}" if unexpected else f"missing={missing}"
        raise SandboxError(400, f"Invalid input [name={wf['name']}, class=WorkflowSpecV2, {what}]")
    return {**{k: v for k, v in declared.items() if v is not workflow_dsl.RESERVED}, **given}


def start_execution(wf: Obj, given: Obj, params: Obj, description: str = "",
                    at: float | None = None) -> Obj:
    """Start an execution of ``wf`` (a stored workflow) and return it (RUNNING); its result is
    computed now and applied after the ``workflow_run`` delay. ``at``: when it started (epoch
    seconds; now when None), a cron trigger's due time.

    :raises SandboxError: 400 for input the workflow does not declare or lacks, or a reverse
        workflow without a valid ``task_name``."""
    spec = workflow_dsl.parse(wf["definition"])[wf["name"]]
    wf_input = checked_input(wf, spec, given)
    if spec["type"] == "reverse" and not params.get("task_name"):
        raise SandboxError(400, "Workflow is reverse but 'task_name' is not specified in params")
    st = store()
    start = st.clock() if at is None else at
    now = stamp(start)
    ex = {"id": st.new_id(), "workflow_id": wf["id"], "workflow_name": wf["name"],
          "workflow_namespace": "", "description": description or "",
          "params": json.dumps(params), "input": json.dumps(wf_input), "output": "{}",
          "state": "RUNNING", "state_info": None, "created_at": now, "updated_at": now,
          "project_id": wf["project_id"], "root_execution_id": None,
          "task_execution_id": None, "_auto": True}
    try:
        state, output, info = workflow_dsl.run(spec, wf_input, params,
                                               {"id": ex["id"], "input": wf_input,
                                                "params": params})
    except workflow_dsl.DslError as exc:
        raise SandboxError(400, str(exc)) from None
    st.add(EXECUTIONS, ex)
    delay = float(sb().behaviour.delays.get("workflow_run", RUN_DELAY))
    st.schedule(ex, start + delay - st.clock(),
                {"state": state, "output": json.dumps(output, default=str),
                 "state_info": info, "updated_at": stamp(start + delay)})
    return ex


@bp.post("/executions")
def create_execution() -> Any:
    data = request.get_json(silent=True, force=True)
    if not isinstance(data, dict):
        raise SandboxError(400, "Invalid input: the body must be a JSON object")
    ident = data.get("workflow_id") or data.get("workflow_name")
    if not ident:
        raise SandboxError(400, "Workflow ID or workflow name must be provided. Workflow ID is "
                                "recommended.")
    wf = lookup(WORKFLOWS, str(ident), "Workflow")
    ex = start_execution(wf, json_field(data.get("input"), "input"),
                         json_field(data.get("params"), "params"), data.get("description") or "")
    return reply(view(ex), 201)


@bp.get("/executions")
def list_executions() -> Any:
    items = store().find(EXECUTIONS, project_id=project_of_token())
    name = request.args.get("workflow_name")
    if name:
        items = [e for e in items if e["workflow_name"] == name]
    return reply({"executions": [view(e) for e in items]})


def _execution(ex_id: str) -> Obj:
    ex = store().get(EXECUTIONS, ex_id)
    if ex is None or ex["project_id"] != project_of_token():
        raise SandboxError(404, f"WorkflowExecution not found [id={ex_id}]")
    return ex


@bp.get("/executions/<ex_id>")
def show_execution(ex_id: str) -> Any:
    return reply(view(_execution(ex_id)))


@bp.delete("/executions/<ex_id>")
def delete_execution(ex_id: str) -> Any:
    store().remove(EXECUTIONS, _execution(ex_id)["id"])
    return no_content()
