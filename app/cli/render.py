"""Rendering for the ``stoker`` CLI with ``rich``: tables of stacks, resources, events and outputs,
and the live view of a stack operation (:func:`watch`).

The live view polls the API about once a second: the stack, its resources and the events after the
last one seen (``marker``). On a terminal it draws a ``rich.live.Live`` panel — a progress bar of
resources done/total, the resources grouped by status, the most recent events; elsewhere (a log, a
pipe, a test) it prints each new event as one line.
"""
from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from app.cli.client import Client, printable

STATUS_STYLE = {"COMPLETE": "green", "FAILED": "bold red", "IN_PROGRESS": "yellow"}


def status_text(status: str | None) -> Text:
    """A ``stack_status`` / ``resource_status`` coloured by its outcome."""
    status = printable(status or "")
    style = next((v for k, v in STATUS_STYLE.items() if status.endswith(k)), "")
    return Text(status, style=style)


def _cell(value: Any) -> str | Text:
    if isinstance(value, Text):
        return value
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, indent=1, sort_keys=True)
    return printable(value)


def table(columns: Iterable[str], rows: Iterable[Iterable[Any]], title: str | None = None) -> Table:
    tbl = Table(title=title, header_style="bold", show_lines=False)
    for col in columns:
        tbl.add_column(col, overflow="fold")
    for row in rows:
        tbl.add_row(*(_cell(v) for v in row))
    return tbl


#: ``stack list``'s columns: (header, the stack's key)
_STACK_COLUMNS = (("ID", "id"), ("Stack Name", "stack_name"), ("Project", "project"),
                  ("Stack Status", "stack_status"), ("Creation Time", "creation_time"),
                  ("Updated Time", "updated_time"))


def stacks_table(stacks: list[dict[str, Any]], projects: bool = False) -> Table:
    """``stack list``; with ``projects``, each stack's project too (``--all-projects``)."""
    shown = [(h, k) for h, k in _STACK_COLUMNS if projects or k != "project"]
    return table([h for h, _ in shown],
                 ([status_text(s.get(k)) if k == "stack_status" else s.get(k) for _, k in shown]
                  for s in stacks))


def stack_table(stack: dict[str, Any]) -> Table:
    """``stack show`` as a field/value table (outputs and parameters as JSON)."""
    keys = ["id", "stack_name", "description", "creation_time", "updated_time", "stack_status",
            "stack_status_reason", "parameters", "outputs", "disable_rollback", "timeout_mins",
            "tags", "parent", "stack_owner"]
    rows = [[k, status_text(stack[k]) if k == "stack_status" else stack.get(k)]
            for k in keys if k in stack]
    return table(["Field", "Value"], rows)


def resources_table(resources: list[dict[str, Any]]) -> Table:
    return table(["resource_name", "physical_resource_id", "resource_type", "resource_status",
                  "updated_time"],
                 ([r.get("resource_name"), r.get("physical_resource_id"), r.get("resource_type"),
                   status_text(r.get("resource_status")), r.get("updated_time")] for r in resources))


def events_table(events: list[dict[str, Any]]) -> Table:
    return table(["event_time", "resource_name", "resource_status", "resource_status_reason"],
                 ([e.get("event_time"), e.get("resource_name"), status_text(e.get("resource_status")),
                   e.get("resource_status_reason")] for e in events))


def outputs_table(outputs: list[dict[str, Any]]) -> Table:
    rows = []
    for out in sorted(outputs, key=lambda o: str(o.get("output_key"))):
        value: Any = out.get("output_value")
        if out.get("output_error"):
            value = Text(printable(f"error: {out['output_error']}"), style="red")
        rows.append([out.get("output_key"), value, out.get("description")])
    return table(["Output", "Value", "Description"], rows, title="Outputs")


def event_line(event: dict[str, Any]) -> str:
    reason = event.get("resource_status_reason") or ""
    return printable(f"{event.get('event_time', '')} [{event.get('resource_name')}]: "
                     f"{event.get('resource_status')}  {reason}").rstrip()


# -- live progress ------------------------------------------------------------------------------

def _done(action: str, resources: list[dict[str, Any]], total: int) -> int:
    if action == "DELETE":  # Heat drops a resource's row once it is deleted
        gone = total - len(resources)
        return gone + sum(r.get("resource_status") == "DELETE_COMPLETE" for r in resources)
    return sum(r.get("resource_status") == f"{action}_COMPLETE" for r in resources)


def _groups(resources: list[dict[str, Any]]) -> Table:
    by_status: dict[str, list[str]] = {}
    for res in resources:
        by_status.setdefault(res.get("resource_status") or "?", []).append(str(res.get("resource_name")))
    tbl = Table.grid(padding=(0, 2))
    tbl.add_column(no_wrap=True)
    tbl.add_column()
    for status in sorted(by_status):
        names = sorted(by_status[status])
        tbl.add_row(status_text(f"{status} ({len(names)})"), ", ".join(names))
    return tbl


def finished(stack: dict[str, Any], action: str) -> bool:
    """True once ``stack`` has left ``action``'s IN_PROGRESS (or its rollback has ended)."""
    status = str(stack.get("stack_status") or "")
    if status.endswith("IN_PROGRESS") or "_" not in status:
        return False
    return status.split("_", 1)[0] in (action, "ROLLBACK")


class Watch:
    """Follow ``stack`` through ``action`` until it ends; see :func:`watch`."""

    def __init__(self, client: Client, stack: dict[str, Any], action: str, console: Console,
                 poll: float = 1.0, sleep: Callable[[float], None] = time.sleep,
                 marker: str | None = None) -> None:
        self.client, self.stack, self.action, self.console = client, stack, action, console
        self.poll, self.sleep = poll, sleep
        self.events: deque[dict[str, Any]] = deque(maxlen=8)
        self.marker: str | None = marker
        self.resources: list[dict[str, Any]] = []
        self.total = 0
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=console)
        self.task = self.progress.add_task(f"{action} {stack.get('stack_name')}", total=None)

    def _poll(self) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        current = self.client.show(self.stack, ok404=True)
        if current is None:  # a deleted stack that is no longer readable
            current = dict(self.stack, stack_status=f"{self.action}_COMPLETE",
                           stack_status_reason="Stack is gone")
        self.resources = self.client.resources(self.stack, ok404=True)
        self.total = max(self.total, len(self.resources))
        new = self.client.events(self.stack, marker=self.marker, ok404=True)
        if new:
            self.marker = new[-1].get("id") or self.marker
            self.events.extend(new)
        self.progress.update(self.task, total=self.total or None,
                             completed=_done(self.action, self.resources, self.total))
        return current, new

    def _view(self, stack: dict[str, Any]) -> Group:
        head = Text.assemble(("Stack ", "bold"), (str(stack.get("stack_name")), "bold cyan"), "  ",
                             status_text(stack.get("stack_status")))
        recent = Table.grid(padding=(0, 1))
        for event in self.events:
            recent.add_row(Text(str(event.get("event_time", "")), style="dim"),
                           str(event.get("resource_name")), status_text(event.get("resource_status")),
                           Text(str(event.get("resource_status_reason") or ""), style="dim"))
        return Group(head, self.progress, _groups(self.resources), Text("Recent events", style="bold"),
                     recent)

    def run(self) -> dict[str, Any]:
        if self.console.is_terminal:
            with Live(console=self.console, refresh_per_second=4, transient=False) as live:
                while True:
                    current, _ = self._poll()
                    live.update(self._view(current))
                    if self._ended(current):
                        return current
                    self.sleep(self.poll)
        while True:
            current, new = self._poll()
            for event in new:
                self.console.print(event_line(event), markup=False, highlight=False, soft_wrap=True)
            if self._ended(current):
                return current
            self.sleep(self.poll)

    _rollback_wait = 0.0

    def _ended(self, current: dict[str, Any]) -> bool:
        if not finished(current, self.action):
            return False
        status = str(current.get("stack_status"))
        # A failed create/update with rollback enabled goes on to ROLLBACK: give it 10 s to start.
        if (status == f"{self.action}_FAILED" and current.get("disable_rollback") is False
                and self.action in ("CREATE", "UPDATE") and self._rollback_wait < 10):
            self._rollback_wait += self.poll
            return False
        return True


def last_event_id(client: Client, stack: dict[str, Any]) -> str | None:
    """The id of ``stack``'s newest event (the marker from which to follow a new action)."""
    events = client.events(stack, ok404=True)
    return str(events[-1]["id"]) if events and events[-1].get("id") else None


def watch(client: Client, stack: dict[str, Any], action: str, console: Console,
          poll: float = 1.0, marker: str | None = None) -> dict[str, Any]:
    """Show ``action``'s progress on ``stack`` until the stack is no longer IN_PROGRESS.

    :param stack: a stack body with ``stack_name`` and ``id``.
    :param action: ``CREATE``, ``UPDATE`` or ``DELETE``.
    :param marker: show only the events after this event id (those of earlier actions are old).
    :returns: the final stack body (``stack_status`` ``<ACTION>_COMPLETE|FAILED`` or ``ROLLBACK_*``).
    :raises CliError: the API failed while polling.
    """
    return Watch(client, stack, action, console, poll, marker=marker).run()
