"""The sandbox's Mistral: a small, honest subset of the Mistral Workflow Language v2.

:func:`parse` reads a workflow document (``version: '2.0'`` and one or more workflows by name)
and raises :class:`DslError` (Mistral's ``Invalid DSL: ...``) for what Mistral refuses.
:func:`run` executes one workflow to its end, synchronously, and returns
``(state, output, state_info)`` (``SUCCESS`` or ``ERROR``); the API module makes the execution
look asynchronous (RUNNING, then the result after a delay).

More in docs/code/sandbox.md (app.sandbox.workflow_dsl).
"""
from __future__ import annotations

import collections.abc  # noqa: F401  (yaql uses collections.abc without importing it)
import re
import shlex
from typing import Any

import yaml
import yaql  # type: ignore[import-untyped]

from app import errors

Obj = dict[str, Any]
RESERVED = ("version", "name", "description", "tags")
ACTIONS = ("std.noop", "std.echo", "std.fail")
COMMANDS = ("fail", "succeed", "pause", "noop")
MAX_TASK_RUNS = 200
_EXPR = re.compile(r"<%(.*?)%>", re.DOTALL)
_ENGINE: Any = None


class DslError(errors.BadRequest):
    """A document Mistral refuses (400 ``Invalid DSL: <why>``)."""


class TaskFailed(errors.StokerError):
    """A task's action failed; ``args[0]`` is the error."""


def parse(text: str) -> dict[str, Obj]:
    """The workflows of ``text`` by name, each ``{"type", "input": [names], "spec": {...},
    "tags"}``. :raises DslError: not YAML, no ``version: '2.0'``, no workflow, a workflow
    without tasks, a bad type, a task with both ``action`` and ``workflow``."""
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise DslError(f"Definition could not be parsed: {exc}") from None
    if not isinstance(doc, dict):
        raise DslError("Definition could not be parsed: a mapping is expected")
    if str(doc.get("version", "")) != "2.0":
        raise DslError(f"Unsupported DSL version: {doc.get('version')!r} (supported: ['2.0'])")
    out: dict[str, Obj] = {}
    for name, spec in doc.items():
        if name in RESERVED:
            continue
        if not isinstance(spec, dict):
            raise DslError(f"Workflow '{name}' must be a mapping")
        wf_type = spec.get("type", "direct")
        if wf_type not in ("direct", "reverse"):
            raise DslError(f"'{wf_type}' is not one of ['direct', 'reverse'] (workflow {name})")
        tasks = spec.get("tasks")
        if not isinstance(tasks, dict) or not tasks:
            raise DslError(f"Workflow '{name}' must have at least one task")
        for tname, task in tasks.items():
            task = task or {}
            if not isinstance(task, dict):
                raise DslError(f"Task '{tname}' must be a mapping")
            if task.get("action") and task.get("workflow"):
                raise DslError(f"Task properties 'action' and 'workflow' can't be specified both: "
                               f"{tname}")
        inputs = spec.get("input") or []
        names = [next(iter(i)) if isinstance(i, dict) else str(i) for i in inputs]
        out[str(name)] = {"type": wf_type, "input": names, "spec": spec,
                          "tags": list(spec.get("tags") or [])}
    if not out:
        raise DslError("No workflows found in the definition")
    return out


def _engine() -> Any:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = yaql.YaqlFactory().create({"yaql.limitIterators": 1000,
                                             "yaql.memoryQuota": 100000})
    return _ENGINE


def _plain(value: Any) -> Any:
    if isinstance(value, dict) or (hasattr(value, "items") and callable(value.items)):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return value


class _Run:
    """One execution's state: context, task results, the env."""

    def __init__(self, spec: Obj, wf_input: Obj, params: Obj, execution: Obj) -> None:
        self.spec = spec
        self.tasks: dict[str, Obj] = {str(k): (v or {}) for k, v in spec["tasks"].items()}
        self.defaults: Obj = spec.get("task-defaults") or {}
        self.ctx: Obj = dict(wf_input)
        self.published: Obj = {}
        self.results: dict[str, Obj] = {}
        self.current: str | None = None
        self.env = params.get("env") or {}
        self.execution = execution

    # ---- expressions -----------------------------------------------------------------------
    def evaluate(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: self.evaluate(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.evaluate(v) for v in value]
        if not isinstance(value, str) or "<%" not in value:
            return value
        found = _EXPR.findall(value)
        text = value.strip()
        if len(found) == 1 and text.startswith("<%") and text.endswith("%>"):
            return self._yaql(found[0])
        return _EXPR.sub(lambda m: str(self._yaql(m.group(1))), value)

    def _yaql(self, expression: str) -> Any:
        context = yaql.create_context()
        run = self

        def task(name: Any = None) -> Any:
            return run.results.get(str(name or run.current), {})

        def env() -> Any:
            return run.env

        def execution() -> Any:
            return run.execution

        context.register_function(task, name="task")
        context.register_function(env, name="env")
        context.register_function(execution, name="execution")
        try:
            parsed = _engine()(expression.strip())
            return _plain(parsed.evaluate(data=self.ctx, context=context))
        except Exception as exc:
            raise TaskFailed(f"Can not evaluate YAQL expression [expression={expression.strip()}"
                             f", error={exc}, data={self.ctx}]") from None

    # ---- tasks -----------------------------------------------------------------------------
    def action(self, task: Obj) -> tuple[str, Obj]:
        text = str(task.get("action") or "std.noop")
        words = shlex.split(text) if " " in text else [text]
        inline = {k: v for k, _, v in (w.partition("=") for w in words[1:])}
        return words[0], {**inline, **(task.get("input") or {})}

    def run_task(self, name: str) -> bool:
        """Run task ``name``; ``True`` when it succeeded. Publishes into the context."""
        task = self.tasks[name]
        self.current = name
        try:
            if task.get("workflow"):
                raise TaskFailed(f"the sandbox does not run sub-workflows (task {name})")
            action, raw = self.action(task)
            args = self.evaluate(raw)
            if action == "std.noop":
                result: Any = None
            elif action == "std.echo":
                result = args.get("output")
            elif action == "std.fail":
                raise TaskFailed(args.get("error_data") or "Fail action expected exception.")
            else:
                raise TaskFailed(f"Failed to find action [action_name={action}] (the sandbox "
                                 f"runs {', '.join(ACTIONS)})")
            self.results[name] = {"result": result, "state": "SUCCESS"}
            self.publish(self.evaluate(task.get("publish") or {}))
            return True
        except TaskFailed as exc:
            error = exc.args[0]
            self.results[name] = {"result": error, "state": "ERROR", "error": error}
            try:
                self.publish(self.evaluate(task.get("publish-on-error") or {}))
            except TaskFailed:
                pass
            return False

    def publish(self, values: Obj) -> None:
        self.published.update(values)
        self.ctx.update(values)

    def transitions(self, task: Obj, key: str) -> list[str]:
        out = []
        entries = task.get(key, self.defaults.get(key)) or []
        for entry in entries if isinstance(entries, list) else [entries]:
            if isinstance(entry, dict):
                for target, condition in entry.items():
                    if self.evaluate(condition):
                        out.append(str(target).split()[0])
            else:
                out.append(str(entry).split()[0])
        return out


def _failure(names: list[str], run: _Run, ids: dict[str, str]) -> str:
    lines = [f"Failure caused by error in tasks: {', '.join(names)}", ""]
    for n in names:
        lines.append(f"  {n} [task_ex_id={ids.get(n, '')}] -> {run.results[n].get('error')}")
    return "\n".join(lines)


def run(workflow: Obj, wf_input: Obj, params: Obj, execution: Obj,
        ids: dict[str, str] | None = None) -> tuple[str, Any, str | None]:
    """Execute ``workflow`` (from :func:`parse`) with ``wf_input`` (declared inputs only) and
    ``params`` (``env``, ``task_name`` for reverse workflows); ``execution``: what
    ``execution()`` answers. :returns: ``(state, output, state_info)``."""
    r = _Run(workflow["spec"], wf_input, params, execution)
    ids = ids if ids is not None else {}
    if workflow["type"] == "reverse":
        order = _reverse_order(r.tasks, str(params.get("task_name") or ""))
        for name in order:
            ids.setdefault(name, f"{len(ids):08d}")
            if not r.run_task(name):
                return "ERROR", {}, _failure([name], r, ids)
        return "SUCCESS", _output(r), None
    targets = {t for task in r.tasks.values()
               for key in ("on-success", "on-error", "on-complete")
               for entry in (task.get(key) or []) if True
               for t in ([*entry] if isinstance(entry, dict) else [str(entry).split()[0]])}
    queue = [n for n in r.tasks if n not in targets]
    unhandled: list[str] = []
    runs = 0
    while queue:
        name = queue.pop(0)
        if name in COMMANDS:
            if name == "fail":
                return "ERROR", {}, "Workflow failed by a 'fail' command"
            if name == "succeed":
                return "SUCCESS", _output(r), None
            continue
        if name not in r.tasks:
            return "ERROR", {}, f"Task '{name}' is not defined in the workflow"
        runs += 1
        if runs > MAX_TASK_RUNS:
            return "ERROR", {}, f"More than {MAX_TASK_RUNS} task runs: stopped by the sandbox"
        ids.setdefault(name, f"{len(ids):08d}")
        task = r.tasks[name]
        ok = r.run_task(name)
        try:
            nexts = r.transitions(task, "on-success" if ok else "on-error")
            nexts += r.transitions(task, "on-complete")
        except TaskFailed as exc:
            return "ERROR", {}, str(exc.args[0])
        if not ok and not (task.get("on-error") or task.get("on-complete")
                           or r.defaults.get("on-error") or r.defaults.get("on-complete")):
            unhandled.append(name)
        queue.extend(nexts)
    if unhandled:
        return "ERROR", {}, _failure(unhandled, r, ids)
    try:
        return "SUCCESS", _output(r), None
    except TaskFailed as exc:
        return "ERROR", {}, str(exc.args[0])


def _output(r: _Run) -> Any:
    declared = r.spec.get("output")
    if declared is None:
        return dict(r.published)
    return r.evaluate(declared)


def _reverse_order(tasks: dict[str, Obj], target: str) -> list[str]:
    if target not in tasks:
        raise DslError(f"Invalid task name: {target!r} is not a task of the workflow")
    order: list[str] = []

    def visit(name: str, seen: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in seen:
            raise DslError(f"Workflow has a cycle through task {name}")
        needs = tasks[name].get("requires") or []
        for req in needs if isinstance(needs, list) else [needs]:
            if str(req) not in tasks:
                raise DslError(f"Task {name} requires unknown task {req}")
            visit(str(req), (*seen, name))
        order.append(name)

    visit(target, ())
    return order
