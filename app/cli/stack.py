"""``stoker stack ...`` and ``stoker validate``: a client of the Orchestration API v1.

Requests are built as python-heatclient builds them (:mod:`app.cli.files`) and sent with
:class:`app.cli.client.Client` to ``--url`` (default ``Settings.api_endpoint``:
``http://127.0.0.1:8004/v1/admin``, or ``STOKER_API_URL``). Bad input, an unreachable API or an API
fault end with one line on stderr and exit status 2; a stack operation that ends ``*_FAILED``
(with ``--wait``) exits 1.
"""
from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click
import yaml
from rich.console import Console

from app.cli import drift as cli_drift
from app.cli import files as cli_files
from app.cli import render as cli_render
from app.cli.client import Client, CliError, load_settings

FORMATS = click.Choice(["table", "json", "yaml"])


def console() -> Console:
    """stdout console; off a terminal (a pipe, a log) tables may be wide instead of wrapped at 80."""
    out = Console(highlight=False)
    if not out.is_terminal:
        out = Console(highlight=False, width=max(out.width, 160))
    return out


def client_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--url`` / ``--token`` and pass a :class:`Client` as ``client``."""
    @click.option("--url", metavar="URL", default=None,
                  help="Orchestration API v1 endpoint with the tenant, e.g. "
                       "http://127.0.0.1:8004/v1/admin (default: STOKER_API_URL, else built from "
                       "STOKER_API_HOST/STOKER_API_PORT/STOKER_TENANT).")
    @click.option("--token", metavar="TOKEN", default=None, help="X-Auth-Token (keystone mode).")
    @functools.wraps(fn)
    def wrapper(*args: Any, url: str | None, token: str | None, **kwargs: Any) -> Any:
        endpoint = url or load_settings(install=False).api_endpoint
        return fn(*args, client=Client(endpoint, token=token), **kwargs)
    return wrapper


def _request(build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return build()
    except cli_files.RequestError as exc:
        raise CliError(str(exc)) from None


def emit(data: Any, fmt: str, render: Callable[[Any], Any]) -> None:
    """Print ``data`` as a rich table (``render``), JSON or YAML."""
    if fmt == "json":
        click.echo(json.dumps(data, indent=2, sort_keys=True))
    elif fmt == "yaml":
        click.echo(yaml.safe_dump(data, sort_keys=False, default_flow_style=False).rstrip())
    else:
        console().print(render(data))


def find(client: Client, name_or_id: str) -> dict[str, Any]:
    stack = client.stack(name_or_id)
    assert stack is not None
    return stack


def read_text(path: str) -> str:
    """A local file's text. :raises CliError: it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None


def wait_and_report(client: Client, stack: dict[str, Any], action: str,
                    outputs: bool = True, marker: str | None = None) -> int:
    """Follow ``action`` live (events after ``marker``), then print the outcome and the outputs.
    :returns: exit status: 0 on ``<action>_COMPLETE``, 1 otherwise."""
    out = console()
    try:
        final = cli_render.watch(client, stack, action, out, marker=marker)
    except KeyboardInterrupt:
        click.echo(f"\nstopped watching; the stack's {action} continues on the server "
                   f"(stoker stack show {stack.get('stack_name')})", err=True)
        return 130
    status = str(final.get("stack_status"))
    reason = cli_render.printable(final.get("stack_status_reason") or "")
    out.print(cli_render.status_text(status), f"[dim]{reason}[/dim]")
    if outputs and status == f"{action}_COMPLETE":
        shown = client.show(stack, ok404=True) or final
        if shown.get("outputs"):
            out.print(cli_render.outputs_table(shown["outputs"]))
    return 0 if status == f"{action}_COMPLETE" else 1


@click.group("stack")
def stack_group() -> None:
    """Create, update, inspect and delete stacks (as `openstack stack ...`)."""


def _inputs(fn: Any) -> Any:
    """The environment and parameter options ``create`` and ``update`` share (heatclient's)."""
    for option in reversed([
            click.option("-e", "--environment", "environment", multiple=True, metavar="FILE",
                         help="Environment file; repeatable, later ones override earlier ones."),
            click.option("-P", "--parameter", "parameters", multiple=True, metavar="KEY=VALUE",
                         help="Parameter value; repeatable, or one argument with `;`-separated "
                              "pairs."),
            click.option("--parameter-file", "parameter_file", multiple=True, metavar="KEY=FILE",
                         help="Parameter whose value is a file's content.")]):
        fn = option(fn)
    return fn


@stack_group.command("create")
@click.option("-t", "--template", "template", required=True, metavar="FILE",
              help="Template file (or URL).")
@_inputs
@click.option("--timeout", type=click.IntRange(min=1), default=None, metavar="MINS",
              help="Stack creation timeout in minutes.")
@click.option("--enable-rollback", is_flag=True, help="Roll back when creation fails.")
@click.option("--tags", default=None, metavar="A,B", help="Comma-separated tags.")
@click.option("--enable-termination-protection", "protect", is_flag=True,
              help="Refuse deletes of the stack until protection is disabled.")
@click.option("--stack-policy", "policy", default=None, metavar="FILE",
              type=click.Path(exists=True, dir_okay=False),
              help="Stack policy (CloudFormation's JSON grammar) checked before each update.")
@click.option("--wait", is_flag=True, help="Follow progress until the stack is complete or failed.")
@click.argument("name")
@client_options
def create(client: Client, name: str, template: str, environment: tuple[str, ...],
           parameters: tuple[str, ...], parameter_file: tuple[str, ...], timeout: int | None,
           enable_rollback: bool, tags: str | None, protect: bool, policy: str | None,
           wait: bool) -> None:
    """Create the stack NAME from a template."""
    body = _request(lambda: cli_files.stack_body(
        name, template, environment, parameters, parameter_file, timeout, enable_rollback, tags))
    if protect:
        body["termination_protection"] = True
    if policy is not None:
        body["stack_policy"] = read_text(policy)
    created = client.create_stack(body)
    stack = {"stack_name": name, "id": created["id"]}
    if not wait:
        shown = client.show(stack) or stack
        console().print(cli_render.stack_table({k: shown.get(k) for k in (
            "id", "stack_name", "stack_status", "creation_time") if k in shown}))
        return
    sys.exit(wait_and_report(client, stack, "CREATE"))


@stack_group.command("update")
@click.option("-t", "--template", "template", default=None, metavar="FILE",
              help="Template file (or URL); may be left out with --existing.")
@_inputs
@click.option("--existing", is_flag=True,
              help="Keep the stack's template, environment and parameters; what is given "
                   "patches over them (PATCH).")
@click.option("--clear-parameter", "clear_parameter", multiple=True, metavar="NAME",
              help="With --existing: drop this kept parameter (its default applies).")
@click.option("--timeout", type=click.IntRange(min=1), default=None, metavar="MINS",
              help="Stack update timeout in minutes (default: the stack's).")
@click.option("--rollback", type=click.Choice(["enabled", "disabled", "keep"]), default="keep",
              help="Roll back when the update fails (default: keep the stack's setting).")
@click.option("--tags", default=None, metavar="A,B", help="Comma-separated tags.")
@click.option("--stack-policy-during-update", "override", default=None, metavar="FILE",
              type=click.Path(exists=True, dir_okay=False),
              help="A stack policy used for this update instead of the stack's.")
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Show what would change (nothing is updated).")
@click.option("--wait", is_flag=True, help="Follow progress until the update is complete or "
                                           "failed.")
@click.argument("name")
@client_options
def update(client: Client, name: str, template: str | None, environment: tuple[str, ...],
           parameters: tuple[str, ...], parameter_file: tuple[str, ...], existing: bool,
           clear_parameter: tuple[str, ...], timeout: int | None, rollback: str,
           tags: str | None, override: str | None, dry_run: bool, wait: bool) -> None:
    """Update the stack NAME (name or id) to a new template or parameters."""
    if template is None and not existing:
        raise CliError("a template is required: give one with -t FILE, or use --existing to keep "
                       "the stack's current template.")
    body = _request(lambda: cli_files.update_body(
        template, environment, parameters, parameter_file, timeout, rollback, tags,
        clear_parameter))
    if override is not None:
        body["stack_policy_during_update"] = read_text(override)
    stack = find(client, name)
    if dry_run:
        console().print(changes_table(client.preview_update(stack, body, existing)))
        return
    marker = cli_render.last_event_id(client, stack) if wait else None
    client.update_stack(stack, body, existing)
    if wait:
        sys.exit(wait_and_report(client, stack, "UPDATE", marker=marker))
    shown = client.show(stack) or stack
    console().print(cli_render.stack_table({k: shown.get(k) for k in (
        "id", "stack_name", "stack_status", "updated_time") if k in shown}))


def changes_table(changes: dict[str, list[dict[str, Any]]]) -> Any:
    """``--dry-run``: one row per resource of Heat's preview lists, in Heat's key order."""
    from rich.table import Table
    table = Table("change", "resource_name", "resource_type", "physical_resource_id")
    for kind in sorted(changes):
        for res in changes[kind]:
            table.add_row(kind, str(res.get("resource_name")), str(res.get("resource_type")),
                          str(res.get("physical_resource_id") or ""))
    return table


@stack_group.command("list")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@click.option("--all-projects", is_flag=True,
              help="Every project's stacks, with their project (admins; Heat's global_tenant).")
@client_options
def list_(client: Client, fmt: str, all_projects: bool) -> None:
    """List the tenant's stacks: those `stack show NAME` finds."""
    if all_projects:
        emit(client.list_all_stacks(), fmt,
             lambda stacks: cli_render.stacks_table(stacks, projects=True))
    else:
        emit(client.list_stacks(), fmt, cli_render.stacks_table)


@stack_group.command("show")
@click.argument("name")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@client_options
def show(client: Client, name: str, fmt: str) -> None:
    """Show the stack NAME (name or id)."""
    emit(find(client, name), fmt, cli_render.stack_table)


@stack_group.command("delete")
@click.argument("name")
@click.option("--wait", is_flag=True, help="Follow progress until the stack is deleted.")
@click.option("-y", "--yes", is_flag=True, help="Do not ask for confirmation.")
@client_options
def delete(client: Client, name: str, wait: bool, yes: bool) -> None:
    """Delete the stack NAME (asks first on a terminal unless -y)."""
    stack = find(client, name)
    if not yes and sys.stdin.isatty() and not click.confirm(
            f"Delete stack {stack['stack_name']} ({stack['id']})?", default=False):
        raise CliError("not deleted")
    marker = cli_render.last_event_id(client, stack) if wait else None
    client.delete_stack(stack)
    if wait:
        sys.exit(wait_and_report(client, stack, "DELETE", outputs=False, marker=marker))
    click.echo(f"Deleting stack {stack['stack_name']} ({stack['id']})")


@stack_group.command("event-list")
@click.argument("name")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@client_options
def event_list(client: Client, name: str, fmt: str) -> None:
    """List the events of the stack NAME, oldest first."""
    emit(client.events(find(client, name)), fmt, cli_render.events_table)


@stack_group.command("resource-list")
@click.argument("name")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@client_options
def resource_list(client: Client, name: str, fmt: str) -> None:
    """List the resources of the stack NAME."""
    emit(client.resources(find(client, name)), fmt, cli_render.resources_table)


@stack_group.command("output-show")
@click.argument("name")
@click.argument("key")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@client_options
def output_show(client: Client, name: str, key: str, fmt: str) -> None:
    """Show the output KEY of the stack NAME."""
    output = client.output(find(client, name), key)
    if output.get("output_error") and fmt == "table":
        raise CliError(f"output {key}: {output['output_error']}")
    emit(output, fmt, lambda o: cli_render.outputs_table([o]))


@stack_group.command("template-show")
@click.argument("name")
@click.option("-f", "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml")
@client_options
def template_show(client: Client, name: str, fmt: str) -> None:
    """Print the template of the stack NAME."""
    emit(client.template(find(client, name)), fmt, lambda t: t)


@stack_group.command("drift")
@click.argument("name")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@click.option("--revert-drift", "revert", is_flag=True,
              help="Preview the update that brings the drifted resources back to the "
                   "template, then run it once confirmed.")
@click.option("-y", "--yes", is_flag=True, help="Revert without asking.")
@click.option("--wait", is_flag=True, help="Follow the revert until it is complete or failed.")
@client_options
def drift(client: Client, name: str, fmt: str, revert: bool, yes: bool, wait: bool) -> None:
    """Detect drift of the stack NAME against the cloud and print the differences (exit 1
    when it drifted, or its status is UNKNOWN because nothing could be read, unless
    --revert-drift reverted it; resources not checked are listed with the reason)."""
    stack = find(client, name)
    found = cli_drift.detect(client, stack)
    if fmt == "table":
        click.echo("\n".join(cli_drift.lines(found)))
    else:
        emit(found, fmt, lambda f: f)
    if not revert or found["stack_drift_status"] != "DRIFTED":
        raise SystemExit(0 if found["stack_drift_status"] == "IN_SYNC" else 1)
    click.echo("\n".join(cli_drift.revert_lines(
        cli_drift.revert_preview(client, stack, found["id"]))))
    if not yes and not (sys.stdin.isatty() and click.confirm("Revert?", default=False)):
        click.echo("not reverted (give --yes to revert)")
        raise SystemExit(1)
    marker = cli_render.last_event_id(client, stack) if wait else None
    started = cli_drift.revert(client, stack, found["id"])
    if wait:
        sys.exit(wait_and_report(client, stack, "UPDATE", outputs=False, marker=marker))
    click.echo(f"Reverting: stack {stack['stack_name']} is {started['stack']['stack_status']}")


@click.command("validate")
@click.option("-t", "--template", "template", required=True, metavar="FILE",
              help="Template file (or URL).")
@click.option("-e", "--environment", "environment", multiple=True, metavar="FILE",
              help="Environment file; repeatable.")
@click.option("-P", "--parameter", "parameters", multiple=True, metavar="KEY=VALUE")
@click.option("-f", "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml")
@click.option("--all-errors/--first-error", "all_errors", default=True,
              help="List every error found, with its path and line (default), or only the "
                   "first, as Heat answers.")
@client_options
def validate(client: Client, template: str, environment: tuple[str, ...],
             parameters: tuple[str, ...], fmt: str, all_errors: bool) -> None:
    """Validate a template with the API (exit 2 and the API's reasons when it is invalid)."""
    body = _request(lambda: cli_files.validate_body(template, environment, parameters))
    emit(client.validate(body, all_errors), fmt, lambda r: r)
