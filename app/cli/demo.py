"""``stoker demo`` (what ``make demo`` runs): the embedded system with the sandbox cloud, a real
multi-tier template created live and deleted, everything stopped again.

More in docs/code/cli.md (app.cli.demo).
"""
from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Any

import requests
from rich.console import Console

from app import config
from app.cli import files as cli_files
from app.cli import render as cli_render
from app.cli.client import Client, CliError
from app.cli.stack import console
from app.cli.up import Stop, Supervisor, _stop_quietly, child_env, port_open, start_all, stop_signals

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE = EXAMPLES / "demo.yaml"
CLOUD_EXAMPLE = EXAMPLES / "multi_tier.yaml"
#: The sandbox's values for the cloud example's parameters (the key pair is added at run time).
CLOUD_PARAMETERS = {"image": "cirros", "flavor": "m1.tiny", "public_net": "public"}
#: the demo's stack update (PATCH, ``--existing``): the servers are resized in place
UPDATE_PARAMETERS = {"flavor": "m1.small"}


class _Project:
    """The stack identity ``app.clients`` scopes a connection with (the CLI's tenant)."""

    def __init__(self, project_id: str) -> None:
        self.project_id = project_id


def _tail(path: Path, start: int, lines: int = 15) -> str:
    """The last ``lines`` lines written to ``path`` after byte offset ``start`` (this run's; the
    log is appended to across runs), or "" when this run wrote none."""
    try:
        with open(path, "rb") as f:
            f.seek(start)
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _free_port() -> int:
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _own_sandbox(settings: config.Settings) -> config.Settings:
    """``settings`` with the sandbox on a free port when the configured one is taken (the demo
    must drive its own sandbox, not whatever else listens there); unchanged when the cloud is
    configured elsewhere (``cloud_name``, or an ``cloud_auth_url`` of one's own)."""
    default_url = f"http://{settings.sandbox_host}:{settings.sandbox_port}/identity/v3"
    if settings.cloud_name or settings.cloud_auth_url != default_url:
        return settings
    if not port_open("127.0.0.1", settings.sandbox_port):
        return settings
    port = _free_port()
    return settings.replace(sandbox_port=port,
                            cloud_auth_url=f"http://{settings.sandbox_host}:{port}/identity/v3")


def _own_api_port(settings: config.Settings) -> config.Settings:
    """``settings`` with the API (unless ``api_url`` is set) and the CFN API on free ports when
    the configured ones are taken: the demo's APIs live only as long as the demo, and
    ``stoker up`` refuses a taken port."""
    if not settings.api_url and port_open(settings.api_host, settings.api_port):
        settings = settings.replace(api_port=_free_port())
    if port_open(settings.api_host, settings.cfn_port):
        settings = settings.replace(cfn_port=_free_port())
    return settings


def run_demo(settings: config.Settings, *, sandbox: bool = True, template: str | None = None,
             keep: bool = False) -> int:
    """Run the demo. :returns: 0 when the stack was created and deleted (and, on the sandbox,
    nothing it created is left), 1 otherwise, 2 when the system could not start.
    :raises CliError: the template is missing."""
    settings = _own_api_port(settings)
    if sandbox:
        settings = _own_sandbox(settings)
    config.set_current(settings)
    out = console()
    path = Path(template) if template else (CLOUD_EXAMPLE if sandbox else EXAMPLE)
    if not path.is_file():
        raise CliError(f"demo template {path} not found (run from the repository, or pass -t FILE)")
    logs = Path(settings.data_dir) / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / "demo.log"
    code = 1
    with open(log_path, "a", encoding="utf-8") as log, stop_signals():
        start = log.seek(0, os.SEEK_END)  # where this run's lines begin
        sup = Supervisor(child_env(settings), log)
        try:
            with out.status(f"Starting Stoker (data {settings.data_dir}, logs {log_path}) ..."):
                sandbox = start_all(sup, settings, sandbox=sandbox)
                if sandbox:
                    _wait_sandbox(sup, settings)
            out.print(f"[green]Stoker is up[/green]: {settings.api_endpoint}"
                      + (f"  sandbox cloud: {_sandbox_url(settings)}" if sandbox else ""))
            client = Client(settings.api_endpoint)
            if sandbox and template is None:
                code = _cloud_scenario(client, out, path, settings, keep)
            else:
                if template is None:
                    out.print("[yellow]no sandbox cloud: running the cloud-free "
                              f"{path.name}[/yellow]")
                code = _scenario(client, out, path, keep)
        except (KeyboardInterrupt, Stop):
            out.print("[yellow]interrupted[/yellow]")
            code = 130
        except CliError as exc:
            out.print(f"[red]demo failed:[/red] {exc.format_message()}", markup=True)
            log.flush()
            tail = _tail(log_path, start)
            if tail:
                out.print(f"[dim]last lines of {log_path}:[/dim]")
                out.print(tail, markup=False)
            code = 2
        finally:
            with out.status("Stopping Stoker ..."):
                _stop_quietly(sup)
    out.print("Stopped." if code == 0 else f"Stopped (exit {code}).")
    return code


def _sandbox_url(settings: config.Settings) -> str:
    return f"http://127.0.0.1:{settings.sandbox_port}"


def _wait_sandbox(sup: Supervisor, settings: config.Settings, timeout: float = 60.0) -> None:
    """Wait until the sandbox answers its admin API. :raises CliError: it died or timed out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{_sandbox_url(settings)}/sandbox/ids", timeout=2).ok:
                return
        except requests.RequestException:
            pass
        dead = sup.exited()
        if dead is not None and dead.popen is not None:
            raise CliError(f"{dead.name} exited with status {dead.popen.returncode} during start-up")
        if time.monotonic() > deadline:
            raise CliError(f"the sandbox cloud did not answer within {timeout:g}s")
        time.sleep(0.1)


def _created(settings: config.Settings) -> dict[str, set[str]]:
    """The sandbox's inventory of created objects: collection -> ids."""
    try:
        resp = requests.get(f"{_sandbox_url(settings)}/sandbox/inventory", timeout=10)
        resp.raise_for_status()
    except requests.RequestException as exc:
        raise CliError(f"cannot read the sandbox inventory: {exc}") from None
    return {k: {o["id"] for o in v} for k, v in resp.json()["created"].items()}


def _diff(now: dict[str, set[str]], before: dict[str, set[str]]) -> dict[str, set[str]]:
    return {k: v - before.get(k, set()) for k, v in now.items() if v - before.get(k, set())}


def _cloud_scenario(client: Client, out: Console, template: Path, settings: config.Settings,
                    keep: bool) -> int:
    """The multi-tier example on the sandbox: a key pair, the stack created and deleted, and the
    inventory proving the delete left nothing behind."""
    from app import clients
    cloud = clients.for_stack(_Project(settings.tenant)).cloud()
    key = f"stoker-demo-{secrets.token_hex(2)}"
    try:
        cloud.compute.create_keypair(name=key)
    except Exception as exc:
        raise CliError(f"cannot create the demo's key pair on the sandbox: {exc}") from None
    try:
        before = _created(settings)
        params = {**CLOUD_PARAMETERS, "key_name": key}
        out.print(f"sandbox project [bold]{settings.tenant}[/bold]; parameters: "
                  + ", ".join(f"{k}={v}" for k, v in params.items()), markup=True)
        during: dict[str, set[str]] = {}

        def created() -> None:
            during.update(_diff(_created(settings), before))
            out.print(cli_render.table(
                ["collection", "objects the stack created"],
                [[k, len(v)] for k, v in sorted(during.items())],
                title=f"sandbox inventory ({_sandbox_url(settings)}/sandbox/inventory)"))

        code = _scenario(client, out, template, keep, params=params, on_created=created,
                         update=UPDATE_PARAMETERS)
        if keep or code != 0:
            return code
        left = _settle(settings, before)
        out.print(cli_render.table(
            ["collection", "objects the stack created", "left after the delete"],
            [[k, len(during.get(k, ())), len(left.get(k, ()))]
             for k in sorted(set(during) | set(left))],
            title="sandbox inventory after the delete"))
        if left:
            out.print(f"[red]left behind in the sandbox:[/red] {left}")
            return 1
        out.print("[green]the sandbox holds nothing the stack created[/green]")
        return 0
    finally:
        if not keep:
            cloud.compute.delete_keypair(key)


def _settle(settings: config.Settings, before: dict[str, set[str]],
            timeout: float = 5.0) -> dict[str, set[str]]:
    """What is left of the stack's objects once the cloud's pending deletes have finished."""
    deadline = time.monotonic() + timeout
    while True:
        left = _diff(_created(settings), before)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _update(client: Client, out: Console, stack: dict[str, Any],
            params: dict[str, Any]) -> bool:
    """``stack update --existing`` with ``params``: the preview, then the update watched to
    its end. :returns: whether it ended UPDATE_COMPLETE."""
    name = stack["stack_name"]
    out.rule(f"stack update {name} --existing " + " ".join(f"-P {k}={v}"
                                                          for k, v in params.items()))
    body = {"parameters": dict(params)}
    changes = client.preview_update(stack, body, existing=True)
    out.print("preview: " + ", ".join(
        f"{kind} {sorted(c['resource_name'] for c in changes.get(kind) or [])}"
        for kind in ("updated", "replaced", "added", "deleted") if changes.get(kind)))
    marker = cli_render.last_event_id(client, stack)
    client.update_stack(stack, body, existing=True)
    final = cli_render.watch(client, stack, "UPDATE", out, marker=marker)
    status = str(final.get("stack_status"))
    out.print(cli_render.status_text(status), final.get("stack_status_reason") or "")
    if status == "UPDATE_COMPLETE":
        out.print(cli_render.resources_table(client.resources(stack)))
    return status == "UPDATE_COMPLETE"


def _scenario(client: Client, out: Console, template: Path, keep: bool, *,
              params: dict[str, Any] | None = None, on_created: Any = None,
              update: dict[str, Any] | None = None) -> int:
    name = f"demo-{secrets.token_hex(2)}"
    try:
        body = cli_files.stack_body(name, str(template), timeout=10)
    except cli_files.RequestError as exc:
        raise CliError(str(exc)) from None
    body["parameters"].update(params or {})
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
    if on_created is not None:
        on_created()
    if update and not _update(client, out, stack, update):
        return 1
    if keep:
        return 0
    out.rule(f"stack delete {name}")
    marker = cli_render.last_event_id(client, stack)
    client.delete_stack(stack)
    final = cli_render.watch(client, stack, "DELETE", out, marker=marker)
    status = str(final.get("stack_status"))
    out.print(cli_render.status_text(status), final.get("stack_status_reason") or "")
    return 0 if status == "DELETE_COMPLETE" else 1
