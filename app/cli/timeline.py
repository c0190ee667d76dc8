"""``stoker stack timeline NAME`` / ``stoker stack failures NAME``: a stack operation's timeline
and root cause through ``GET .../timeline`` (Stoker's route, :mod:`app.api.timeline`).

``timeline`` prints one line per resource span: offset from the operation's start and duration
in seconds, outcome, ``*`` on the critical path, ``!`` on the root cause, the resource's path
and what it waited for. ``failures`` prints the root cause, its path through the nested
stacks and the cloud's message (exit 1 when there is one, 0 when nothing failed); after a
rollback that succeeded, the cause in the operation rolled back.
"""
from __future__ import annotations

import datetime as dt
from typing import Any

import click

from app.cli.client import Client
from app.cli.stack import FORMATS, client_options, emit, find

OPERATION = click.option("--operation", default=None, metavar="ACTION",
                         help="CREATE, UPDATE, ROLLBACK, DELETE, ... (default: the latest).")


def fetch(client: Client, name: str, operation: str | None) -> dict[str, Any]:
    """The ``timeline`` body of the stack NAME."""
    path = f"{client.stack_path(find(client, name))}/timeline"
    if operation:
        path += f"?operation={operation}"
    return dict(client.request("GET", path)["timeline"])


def _at(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if value else None


def _wait(span: dict[str, Any]) -> str:
    parts = []
    for w in span["waits"]:
        what = w.get("resource") or w["for"]
        if w.get("seconds"):
            parts.append(f"{what} {w['seconds']:.2f}s")
    return ", ".join(parts)


def table(body: dict[str, Any]) -> list[str]:
    """The compact table of a timeline body."""
    op = body["operation"]
    if op is None:
        return [f"Stack {body['stack_name']}: no such operation"]
    start = _at(op["started_at"])
    out = [f"Stack {body['stack_name']}: {op['action']}_{op['status']} "
           f"(started {op['started_at']}, ended {op['ended_at'] or '-'})",
           f"  {'start':>7} {'secs':>6} {'outcome':<18}    resource (waited for)"]
    for s in body["resources"]:
        begun = _at(s["started_at"])
        offset = (begun - start).total_seconds() if begun and start else 0.0
        secs = f"{s['seconds']:.2f}" if s["seconds"] is not None else "-"
        mark = ("!" if s["root_cause"] else " ") + ("*" if s["critical"] else " ")
        waited = _wait(s)
        out.append(f"  {offset:7.2f} {secs:>6} {s['action'] + '_' + s['outcome']:<18} {mark} "
                   f"{s['id']}" + (f" ({waited})" if waited else ""))
    out.append("  * critical path   ! root cause")
    return out


def failure_lines(body: dict[str, Any]) -> list[str]:
    """The root cause of a timeline body, with its path."""
    cause, op = body["root_cause"], body["operation"]
    if cause is None:
        state = f"{op['action']}_{op['status']}" if op else "no operation"
        return [f"Stack {body['stack_name']}: no failure ({state})"]
    chain = " > ".join([body["stack_name"], *cause["path"], *(
        [cause["resource_name"]] if cause["resource_name"] else [])])
    return [f"Root cause of {op['action']}_{op['status']} of stack {body['stack_name']}:",
            f"  resource  {cause['resource'] or body['stack_name']} ({cause['resource_type']})",
            f"  path      {chain}",
            f"  stack     {cause['stack_name']}",
            f"  failed    {cause['action']} at {cause['time']}",
            f"  message   {cause['message']}"]


@click.command("timeline")
@click.argument("name")
@OPERATION
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@client_options
def timeline(client: Client, name: str, operation: str | None, fmt: str) -> None:
    """Print the timeline of the stack NAME's latest (or --operation) operation."""
    body = fetch(client, name, operation)
    if fmt == "table":
        click.echo("\n".join(table(body)))
    else:
        emit(body, fmt, lambda b: b)


@click.command("failures")
@click.argument("name")
@OPERATION
@client_options
def failures(client: Client, name: str, operation: str | None) -> None:
    """Print the root cause of the stack NAME's latest (or --operation) operation and its path
    through the nested stacks (exit 1 when something failed). A rollback that succeeded shows
    the failed operation it rolled back."""
    body = fetch(client, name, operation)
    ops = body["operations"]
    if operation is None and body["root_cause"] is None and len(ops) > 1 \
            and ops[-1]["action"] == "ROLLBACK":
        body = fetch(client, name, ops[-2]["action"])
    click.echo("\n".join(failure_lines(body)))
    raise SystemExit(1 if body["root_cause"] else 0)


COMMANDS = (timeline, failures)
