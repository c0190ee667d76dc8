"""``stoker stack retry`` and ``stoker stack rollback``: the ways forward for a stack that ended
CREATE_FAILED or UPDATE_FAILED with rollback disabled; ``stoker stack continue-rollback`` for
one whose rollback failed (``POST .../actions``, :mod:`app.services.recovery`)."""
from __future__ import annotations

import sys
from typing import Any

import click

from app.cli import render as cli_render
from app.cli.client import Client
from app.cli.stack import client_options, console, find, wait_and_report


def _act(client: Client, name: str, action: str, traversal: str, wait: bool,
         value: Any = None) -> None:
    stack = find(client, name)
    marker = cli_render.last_event_id(client, stack) if wait else None
    client.request("POST", f"{client.stack_path(stack)}/actions", body={action: value})
    if wait:
        sys.exit(wait_and_report(client, stack, traversal, marker=marker))
    shown = client.show(stack) or stack
    console().print(cli_render.stack_table({k: shown.get(k) for k in (
        "id", "stack_name", "stack_status", "updated_time") if k in shown}))


@click.command("retry")
@click.option("--wait", is_flag=True, help="Follow the retry until it is complete or failed.")
@click.argument("name")
@client_options
def retry(client: Client, name: str, wait: bool) -> None:
    """Run the failed create or update of stack NAME again, keeping what completed."""
    _act(client, name, "retry", "UPDATE", wait)


@click.command("rollback")
@click.option("--wait", is_flag=True, help="Follow the rollback until it is complete or failed.")
@click.argument("name")
@client_options
def rollback(client: Client, name: str, wait: bool) -> None:
    """Roll the failed stack NAME back: a create deletes what it made, an update returns to the
    previous template."""
    _act(client, name, "rollback", "ROLLBACK", wait)


@click.command("continue-rollback")
@click.option("--skip", "skip", multiple=True, metavar="RESOURCE",
              help="A failed resource to keep in the cloud and drop from the stack; "
                   "repeatable.")
@click.option("--wait", is_flag=True, help="Follow the rollback until it is complete or failed.")
@click.argument("name")
@client_options
def continue_rollback(client: Client, name: str, skip: tuple[str, ...], wait: bool) -> None:
    """Continue the failed rollback of stack NAME (ROLLBACK_FAILED)."""
    _act(client, name, "continue_rollback", "ROLLBACK", wait,
         {"resources_to_skip": list(skip)} if skip else None)


COMMANDS = (retry, rollback, continue_rollback)
