"""``stoker stack change-set-*``: plan an update ahead, look at it, then execute exactly that
(the Orchestration API's ``.../change_sets`` routes, :mod:`app.api.change_sets`)."""
from __future__ import annotations

import sys
from typing import Any

import click

from app.cli import files as cli_files
from app.cli import render as cli_render
from app.cli.client import Client, CliError, segment
from app.cli.stack import (
    FORMATS,
    _inputs,
    _request,
    client_options,
    console,
    emit,
    find,
    wait_and_report,
)


def _path(client: Client, stack: dict[str, Any], change_set: str | None = None) -> str:
    base = f"{client.stack_path(stack)}/change_sets"
    return base if change_set is None else f"{base}/{segment(change_set)}"


def changes_table(change_set: dict[str, Any]) -> Any:
    """One row per changed resource: action, replacement, the properties and their values."""
    from rich.table import Table
    table = Table("action", "resource", "type", "replacement", "properties (before → after)",
                  title=f"{change_set['name']}: {change_set['status']} / "
                        f"{change_set['execution_status']}")
    for c in change_set.get("changes") or []:
        name = c["logical_resource_id"]
        if c.get("parent_resource") and c.get("stack_name"):
            name = f"{c['stack_name']}/{name}"
        props = "\n".join(f"{d['name']}: {d['before']!r} → {d['after']!r}"
                          + (" (forces replacement)" if d["requires_recreation"] != "Never"
                             else "") for d in c["details"])
        table.add_row(c["action"], name, c["resource_type"], c.get("replacement") or "", props)
    return table


@click.command("change-set-create")
@click.option("-t", "--template", "template", default=None, metavar="FILE",
              help="Template file; may be left out with --existing.")
@_inputs
@click.option("--existing", is_flag=True, help="Keep the stack's template, environment and "
                                               "parameters; what is given patches over them.")
@click.option("--new", "new", is_flag=True,
              help="NAME is a new stack: plan its create (the stack is kept "
                   "REVIEW_IN_PROGRESS until the change set is executed).")
@click.option("--description", default="", help="What the change set is for.")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@click.argument("name")
@click.argument("change_set")
@client_options
def change_set_create(client: Client, name: str, change_set: str, template: str | None,
                      environment: tuple[str, ...], parameters: tuple[str, ...],
                      parameter_file: tuple[str, ...], existing: bool, new: bool,
                      description: str, fmt: str) -> None:
    """Plan an update of stack NAME (or, with --new, its create) as change set CHANGE_SET and
    show its changes."""
    if template is None and not existing:
        raise CliError("a template is required: give one with -t FILE, or use --existing.")
    if new:
        if existing or template is None:
            raise CliError("--new takes a template (-t FILE) and not --existing.")
        created = _request(lambda: cli_files.stack_body(name, template, environment,
                                                        parameters, parameter_file))
        created.update(name=change_set, description=description)
        emit(client.request("POST", "change_sets", body=created)["change_set"], fmt,
             changes_table)
        return
    body = _request(lambda: cli_files.update_body(template, environment, parameters,
                                                  parameter_file))
    body.update(name=change_set, description=description, existing=existing)
    stack = find(client, name)
    made = client.request("POST", _path(client, stack), body=body)["change_set"]
    emit(made, fmt, changes_table)


@click.command("change-set-show")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@click.argument("name")
@click.argument("change_set")
@client_options
def change_set_show(client: Client, name: str, change_set: str, fmt: str) -> None:
    """Show change set CHANGE_SET of stack NAME with its changes."""
    stack = find(client, name)
    emit(client.request("GET", _path(client, stack, change_set))["change_set"], fmt,
         changes_table)


@click.command("change-set-list")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@click.argument("name")
@client_options
def change_set_list(client: Client, name: str, fmt: str) -> None:
    """List the change sets of stack NAME."""
    stack = find(client, name)
    listed = client.request("GET", _path(client, stack))["change_sets"]

    def render(rows: list[dict[str, Any]]) -> Any:
        from rich.table import Table
        table = Table("name", "id", "status", "execution_status", "creation_time")
        for r in rows:
            table.add_row(r["name"], r["id"], r["status"], r["execution_status"],
                          str(r["creation_time"]))
        return table
    emit(listed, fmt, render)


@click.command("change-set-execute")
@click.option("--wait", is_flag=True, help="Follow the update until it is complete or failed.")
@click.argument("name")
@click.argument("change_set")
@client_options
def change_set_execute(client: Client, name: str, change_set: str, wait: bool) -> None:
    """Execute change set CHANGE_SET of stack NAME (refused if the stack changed since)."""
    stack = find(client, name)
    action = "CREATE" if stack.get("stack_status") == "REVIEW_IN_PROGRESS" else "UPDATE"
    marker = cli_render.last_event_id(client, stack) if wait else None
    client.request("POST", f"{_path(client, stack, change_set)}/execute", body={})
    if wait:
        sys.exit(wait_and_report(client, stack, action, marker=marker))
    shown = client.show(stack) or stack
    console().print(cli_render.stack_table({k: shown.get(k) for k in (
        "id", "stack_name", "stack_status", "updated_time") if k in shown}))


@click.command("change-set-delete")
@click.argument("name")
@click.argument("change_set")
@client_options
def change_set_delete(client: Client, name: str, change_set: str) -> None:
    """Delete change set CHANGE_SET of stack NAME."""
    stack = find(client, name)
    client.request("DELETE", _path(client, stack, change_set))
    click.echo(f"change set {change_set} deleted")


COMMANDS = (change_set_create, change_set_show, change_set_list, change_set_execute,
            change_set_delete)
