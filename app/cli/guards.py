"""``stoker stack termination-protection`` / ``policy-show`` / ``policy-set``: a stack's guards
through the Orchestration API (``.../termination_protection``, ``.../policy``: Stoker's routes,
:mod:`app.api.guards`)."""
from __future__ import annotations

import json

import click

from app.cli.client import Client, CliError
from app.cli.stack import client_options, find, read_text


@click.command("termination-protection")
@click.argument("name")
@click.option("--enable", "on", is_flag=True, help="Refuse deletes of the stack.")
@click.option("--disable", "off", is_flag=True,
              help="Allow deletes again. Without --enable or --disable: show the setting.")
@client_options
def termination_protection(client: Client, name: str, on: bool, off: bool) -> None:
    """Show or set termination protection of the stack NAME (a nested stack's is its root's).
    ``--enable`` and ``--disable`` together are a usage error (exit 2)."""
    if on and off:
        raise click.UsageError("--enable and --disable are mutually exclusive.")
    enable = True if on else False if off else None
    path = f"{client.stack_path(find(client, name))}/termination_protection"
    body = client.request("GET" if enable is None else "PUT", path,
                          body=None if enable is None else {"termination_protection": enable})
    state = "enabled" if (body or {}).get("termination_protection") else "disabled"
    click.echo(f"Termination protection of stack {name}: {state}")


@click.command("policy-show")
@click.argument("name")
@client_options
def policy_show(client: Client, name: str) -> None:
    """Print the stack policy of the stack NAME as JSON (``null``: none)."""
    body = client.request("GET", f"{client.stack_path(find(client, name))}/policy")
    click.echo(json.dumps((body or {}).get("stack_policy"), indent=2, sort_keys=True))


@click.command("policy-set")
@click.argument("name")
@click.argument("policy", type=click.Path(exists=True, dir_okay=False))
@client_options
def policy_set(client: Client, name: str, policy: str) -> None:
    """Replace the stack policy of the stack NAME with the JSON document in POLICY."""
    body = client.request("PUT", f"{client.stack_path(find(client, name))}/policy",
                          body={"stack_policy": read_text(policy)})
    if not isinstance(body, dict) or "stack_policy" not in body:
        raise CliError("the API did not answer the stored policy")
    click.echo(f"Stack policy of stack {name} set.")


COMMANDS = (termination_protection, policy_show, policy_set)
