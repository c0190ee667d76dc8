"""``stoker sandbox``: run the sandbox cloud, or print a clouds.yaml entry for it.

    stoker sandbox [--host 127.0.0.1] [--port 8090] [--state PATH|:memory:] [--deterministic-ids]
                   [--latency 0.05|0.01-0.05|JSON] [--delay server_build=2 ...] [--fault JSON ...]
    stoker sandbox clouds-yaml [--port 8090]     # then: openstack --os-cloud sandbox server list

Defaults come from :mod:`app.config` (``STOKER_SANDBOX_*``); the state file defaults to
``<data_dir>/sandbox.json`` so the sandbox's clouds survive a restart like Stoker's own database.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import yaml

from app import config
from app.sandbox.seed import ADMIN_PASSWORD


def parse_delays(items: list[str] | tuple[str, ...] | str) -> dict[str, float]:
    """``"server_build=0.1,volume_create=0.2"`` (or a list of ``name=seconds``) as a dict.

    :raises click.BadParameter: an item is not ``name=number``.
    """
    if isinstance(items, str):
        items = [i for i in items.split(",") if i.strip()]
    out: dict[str, float] = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise click.BadParameter(f"expected name=seconds, got {item!r}") from None
    return out


def parse_latency(text: str) -> Any:
    """``"0.05"`` -> 0.05 seconds; ``"0.01-0.05"`` -> a (min, max) random range; a JSON list ->
    per-operation rules (``[{"match": "compute.*", "seconds": 0.2}]``); ``""`` -> None."""
    if not text:
        return None
    if text.lstrip().startswith("["):
        return parse_rules(text)
    low, sep, high = text.partition("-")
    try:
        return (float(low), float(high)) if sep else float(low)
    except ValueError:
        raise click.BadParameter(f"expected seconds or min-max, got {text!r}") from None


def parse_rules(text: str) -> list[dict[str, Any]]:
    """A JSON list of rule objects (latency or fault rules).

    :raises click.BadParameter: not a JSON list of objects.
    """
    try:
        rules = json.loads(text) if text.strip() else []
    except ValueError as err:
        raise click.BadParameter(f"not JSON: {err}") from None
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise click.BadParameter("expected a JSON list of objects")
    return rules


def state_path(settings: config.Settings, given: str | None) -> str | None:
    """The state file to use: ``given``, else the setting, else ``<data_dir>/sandbox.json``;
    ``":memory:"`` means no file."""
    path = given or settings.sandbox_state_path or str(Path(settings.data_dir) / "sandbox.json")
    return None if path == ":memory:" else path


def stoker_endpoints(settings: config.Settings) -> list[dict[str, str]]:
    """Stoker's own APIs as catalog entries (Heat's service types), so ``openstack stack ...`` and
    keystone-mode Stoker find them through the sandbox's Keystone."""
    host = settings.api_host if settings.api_host not in ("0.0.0.0", "") else "127.0.0.1"
    return [{"type": "orchestration", "name": "heat", "url": f"http://{host}:{settings.api_port}/v1/%(tenant_id)s"},
            {"type": "cloudformation", "name": "heat-cfn", "url": f"http://{host}:{settings.cfn_port}/v1"}]


def clouds_yaml_text(host: str, port: int) -> str:
    """A clouds.yaml document with one cloud, ``sandbox``, logging in as the bootstrap admin."""
    doc = {"clouds": {"sandbox": {
        "auth": {"auth_url": f"http://{host}:{port}/identity/v3", "username": "admin",
                 "password": ADMIN_PASSWORD, "project_name": "admin", "user_domain_name": "Default",
                 "project_domain_name": "Default"},
        "region_name": "RegionOne", "interface": "public", "identity_api_version": 3}}}
    return yaml.safe_dump(doc, sort_keys=False)


@click.group("sandbox", invoke_without_command=True)
@click.option("--host", default=None, help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port to listen on (default 8090).")
@click.option("--state", "state", default=None,
              help="State file (default <data_dir>/sandbox.json); ':memory:' keeps no file.")
@click.option("--deterministic-ids", is_flag=True, default=None, help="Predictable ids (tests).")
@click.option("--latency", default=None, help="Seconds added to each request, or a range min-max.")
@click.option("--delay", "delays", multiple=True, help="Transition delay, name=seconds (repeatable).")
@click.option("--fault", "faults", multiple=True,
              help='Fault rule as JSON, e.g. \'{"match": "compute.POST.servers", "rate": 0.2}\' (repeatable).')
@click.pass_context
def sandbox(ctx: click.Context, host: str | None, port: int | None, state: str | None,
            deterministic_ids: bool | None, latency: str | None, delays: tuple[str, ...],
            faults: tuple[str, ...]) -> None:
    """Run the sandbox cloud (Keystone, Nova, Neutron, Cinder, Glance, Octavia, Aodh)."""
    if ctx.invoked_subcommand is not None:
        return
    from app.sandbox import create_app
    from app.sandbox.serving import SandboxServer
    settings = config.get()
    host = host or settings.sandbox_host
    port = port or settings.sandbox_port
    path = state_path(settings, state)
    all_delays = parse_delays(settings.sandbox_delays)
    all_delays.update(parse_delays(list(delays)))
    # parsed here, so that a bad option is the command's error; the app itself is built in
    # the serving process (its state lives there)
    options: dict[str, Any] = {
        "latency": parse_latency(latency if latency is not None else settings.sandbox_latency),
        "delays": all_delays or None,
        "deterministic_ids": bool(deterministic_ids or settings.sandbox_deterministic_ids),
        "faults": parse_rules(settings.sandbox_faults) + [r for f in faults for r in parse_rules(f"[{f}]")],
        "extra_catalog": stoker_endpoints(settings),
        "agent": {"run_configs": settings.sandbox_run_configs,
               "config_timeout": settings.sandbox_config_timeout,
               "poll_seconds": settings.sandbox_poll_seconds}}
    click.echo(f"stoker sandbox cloud on http://{host}:{port}  "
               f"(auth_url http://{host}:{port}/identity/v3, admin/{ADMIN_PASSWORD}; "
               f"state: {path or 'memory'})")
    SandboxServer(lambda: create_app(path, **options), host, port,
                  lambda app: app.extensions["sandbox"].store.close()).run()


@sandbox.command("clouds-yaml")
@click.option("--host", default=None, help="Host the sandbox listens on (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port the sandbox listens on (default 8090).")
def clouds_yaml(host: str | None, port: int | None) -> None:
    """Print a clouds.yaml entry named 'sandbox' (for `openstack --os-cloud sandbox ...`)."""
    settings = config.get()
    click.echo(clouds_yaml_text(host or settings.sandbox_host, port or settings.sandbox_port), nl=False)
