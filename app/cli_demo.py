"""``stoker demo`` (what ``make demo`` runs): the embedded system, one stack created live and
deleted, everything stopped again.

It reuses ``stoker up``'s machinery in-process (:func:`app.cli_up.start_all`); the children's output
goes to ``<data_dir>/logs/demo.log`` so that the terminal shows only the stack's progress.
"""
from __future__ import annotations

import secrets
from pathlib import Path

from rich.console import Console


from app import cli_files, cli_render, config
from app.cli_client import CliError, Client
from app.cli_stack import console
from app.cli_up import Stop, Supervisor, _stop_quietly, child_env, start_all
from app.cli_up import stop_signals

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "demo.yaml"


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def run_demo(settings: config.Settings, *, sandbox: bool = True, template: str | None = None,
             keep: bool = False) -> int:
    """Run the demo. :returns: 0 when the stack was created and deleted, 1 otherwise.
    :raises CliError: the template is missing or the system could not start."""
    config.set_current(settings)
    out = console()
    path = Path(template) if template else EXAMPLE
    if not path.is_file():
        raise CliError(f"demo template {path} not found (run from the repository, or pass -t FILE)")
    logs = Path(settings.data_dir) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / "demo.log"
    code = 1
    with open(log_path, "a", encoding="utf-8") as log, stop_signals():
        sup = Supervisor(child_env(settings), log)
        try:
            with out.status(f"Starting Stoker (data {settings.data_dir}, logs {log_path}) ..."):
                sandbox = start_all(sup, settings, sandbox=sandbox)
            out.print(f"[green]Stoker is up[/green]: {settings.api_endpoint}"
                      + (f"  sandbox cloud: http://127.0.0.1:{settings.sandbox_port}" if sandbox else ""))
            code = _scenario(Client(settings.api_endpoint), out, path, keep)
        except (KeyboardInterrupt, Stop):
            out.print("[yellow]interrupted[/yellow]")
            code = 130
        except CliError as exc:
            out.print(f"[red]demo failed:[/red] {exc.format_message()}", markup=True)
            tail = _tail(log_path)
            if tail:
                out.print(f"[dim]last lines of {log_path}:[/dim]")
                out.print(tail, markup=False)
            code = 2
        finally:
            with out.status("Stopping Stoker ..."):
                _stop_quietly(sup)
    out.print("Stopped." if code == 0 else f"Stopped (exit {code}).")
    return code


def _scenario(client: Client, out: Console, template: Path, keep: bool) -> int:
    name = f"demo-{secrets.token_hex(2)}"
    try:
        body = cli_files.stack_body(name, str(template), timeout=10)
    except cli_files.RequestError as exc:
        raise CliError(str(exc)) from None
    out.rule(f"stack create {name}  ({template.name})")
    created = client.create_stack(body)
    stack = {"stack_name": name, "id": created["id"]}
    final = cli_render.watch(client, stack, "CREATE", out)
    status = str(final.get("stack_status"))
    out.print(cli_render.status_text(status), final.get("stack_status_reason") or "")
    if status != "CREATE_COMPLETE":
        return 1
    shown = client.show(stack) or final
    if shown.get("outputs"):
        out.print(cli_render.outputs_table(shown["outputs"]))
    out.print(cli_render.resources_table(client.resources(stack)))
    if keep:
        return 0
    out.rule(f"stack delete {name}")
    marker = cli_render.last_event_id(client, stack)
    client.delete_stack(stack)
    final = cli_render.watch(client, stack, "DELETE", out, marker=marker)
    status = str(final.get("stack_status"))
    out.print(cli_render.status_text(status), final.get("stack_status_reason") or "")
    return 0 if status == "DELETE_COMPLETE" else 1
