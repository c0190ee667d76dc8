"""``stoker export list``: the project's cross-stack exports (``GET /v1/{tenant}/exports``):
each export's name, value and the stack (and output) exporting it."""
from __future__ import annotations

from typing import Any

import click

from app.cli import render as cli_render
from app.cli.client import Client
from app.cli.stack import FORMATS, client_options, emit


@click.group("export")
def export_group() -> None:
    """Cross-stack exports of the project (outputs other stacks import)."""


def exports_table(exports: list[dict[str, Any]]) -> Any:
    return cli_render.table(["Name", "Value", "Stack Name", "Output Key"],
                            ([e.get("name"), e.get("value"), e.get("stack_name"),
                              e.get("output_key")] for e in exports))


@export_group.command("list")
@click.option("-f", "--format", "fmt", type=FORMATS, default="table")
@client_options
def list_(client: Client, fmt: str) -> None:
    """List the project's exports, by name."""
    emit(list(client.request("GET", "exports")["exports"]), fmt, exports_table)
