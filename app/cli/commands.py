"""The ``stoker`` command's click group (run by :func:`app.cli.main`): server side ``up``,
``demo``, ``db upgrade``, ``db purge-deleted``, ``api``, ``worker``, ``sandbox``; client side
``stack ...``, ``validate``, ``export ...``. More in :mod:`app.cli`.
"""
from __future__ import annotations

import os
import sys
from typing import Any

import click

from app import config
from app.cli.change_sets import COMMANDS as CHANGE_SET_COMMANDS
from app.cli.client import CliError, load_settings
from app.cli.exports import export_group
from app.cli.guards import COMMANDS as GUARD_COMMANDS
from app.cli.recovery import COMMANDS as RECOVERY_COMMANDS
from app.cli.stack import stack_group, validate
from app.cli.timeline import COMMANDS as TIMELINE_COMMANDS


def _settings(**overrides: Any) -> config.Settings:
    return load_settings(**overrides)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="stoker", prog_name="stoker")
def cli() -> None:
    """Stoker: an orchestration service compatible with OpenStack Heat."""


@cli.group()
def db() -> None:
    """Database schema management."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
def db_upgrade(revision: str) -> None:
    """Apply the Alembic migrations to Settings.database_url (STOKER_DATABASE_URL); a
    --revision older than the database's is refused (exit 2), never a silent downgrade. A
    SQLite file that does not exist yet is created (and said so), but not in a directory
    that does not exist, other than the data directory, nor under a file (exit 2); an
    in-memory database and a path that is a directory are refused too (exit 2)."""
    from app import errors
    from app.models import migrate
    settings = _settings()
    new = _new_sqlite_file(settings.database_url, settings.data_dir)
    if settings.database_url.startswith("sqlite"):
        os.makedirs(settings.data_dir, exist_ok=True)
    try:
        before, now = migrate.upgrade(settings.database_url, revision)
    except (errors.Conflict, errors.BadRequest) as exc:
        raise CliError(f"database {settings.database_url} not upgraded: {exc}") from None
    except Exception as exc:
        raise CliError(f"database upgrade failed: {type(exc).__name__}: {exc}") from None
    if new:
        click.echo(f"database {settings.database_url} created at revision {now}")
    elif (before or "base") == now:
        click.echo(f"database {settings.database_url} is already at revision {now}")
    else:
        click.echo(f"database {settings.database_url} upgraded from revision "
                   f"{before or 'base'} to {now}")


def _new_sqlite_file(url: str, data_dir: str) -> str | None:
    """The path of the SQLite file ``url`` names when it does not exist yet (None: another
    database, or a file that exists). :raises CliError: the database is in memory (it keeps
    nothing once the command ends), the path is a directory, a file stands where a directory
    of it should be, or its directory does not exist and is not ``data_dir``: a mistyped path
    is refused, not made a new database."""
    from app.models.base import make_url
    if not url.startswith("sqlite"):
        return None
    parsed = make_url(url)
    path = parsed.database or ""
    if path in ("", ":memory:") or parsed.query.get("mode") == "memory":  # pysqlite's test
        raise CliError(f"database {url} not upgraded: an in-memory database keeps nothing "
                       "once the command ends; name a file (sqlite:///PATH)")
    if os.path.isdir(path):
        raise CliError(f"database {url} not upgraded: {path} is a directory, not a database "
                       "file")
    if os.path.exists(path):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    if (blocker := _not_a_directory(folder)) is not None:
        raise CliError(f"database {url} not created: {blocker} is not a directory")
    if not os.path.isdir(folder) and folder != os.path.abspath(data_dir):
        raise CliError(f"database {url} not created: the directory {folder} does not exist")
    return path


def _not_a_directory(folder: str) -> str | None:
    """The nearest of ``folder`` and its parents that exists, when it is not a directory (a
    regular file, say); None when it is one."""
    while not os.path.lexists(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return None if os.path.isdir(folder) else folder


@db.command("purge-deleted")
@click.option("--age", default="90", show_default=True,
              help="How long to keep deleted stacks, in --granularity units.")
@click.option("-g", "--granularity", default="days", show_default=True,
              type=click.Choice(["days", "hours", "minutes", "seconds"]))
@click.option("-p", "--project", "project_id", default=None,
              help="Only the deleted stacks of this project.")
@click.option("-b", "--batch-size", default="20", show_default=True,
              help="Stacks removed a transaction.")
def db_purge_deleted(age: str, granularity: str, project_id: str | None, batch_size: str) -> None:
    """Remove the stacks deleted more than --age ago, with their resources, events, sync points,
    snapshot records and unreferenced templates (Heat's heat-manage purge_deleted); safe while
    the API and workers run."""
    from app import errors
    from app.services import purge
    _settings()
    try:
        removed = purge.purge_deleted(age, granularity, project_id, batch_size)
    except errors.StokerError as exc:
        raise CliError(str(exc)) from None
    click.echo(", ".join(f"{key} {removed[key]}" for key in purge.COUNTED))


@cli.command("up")
@click.option("--workers", type=click.IntRange(min=0), default=None,
              help="Worker processes (default STOKER_WORKERS, 2).")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="API port (default STOKER_API_PORT, 8004).")
@click.option("--no-sandbox", is_flag=True, help="Do not start the sandbox cloud.")
@click.option("--flower", is_flag=True, help="Also start Flower (STOKER_FLOWER_PORT, 5555).")
@click.option("--auth", "auth_strategy", type=click.Choice(["noauth", "keystone"]), default=None,
              help="noauth (default, STOKER_AUTH_STRATEGY) or keystone: tokens validated against "
                   "STOKER_KEYSTONE_URL (the sandbox's Keystone), Heat's policy, a trust per stack.")
def up_command(workers: int | None, port: int | None, no_sandbox: bool, flower: bool,
               auth_strategy: str | None) -> None:
    """Start the embedded system (Redis, API, workers, beat, sandbox) until Ctrl-C."""
    from app import auth, errors
    from app.cli import up as cli_up
    settings = _settings(workers=workers, api_port=port)
    try:
        settings = auth.embedded_settings(settings, auth_strategy)
    except errors.StokerError as exc:
        raise CliError(str(exc)) from None
    sys.exit(cli_up.run_up(settings, sandbox=not no_sandbox, flower=flower))


@cli.command("demo")
@click.option("--workers", type=click.IntRange(min=1), default=None)
@click.option("--port", type=click.IntRange(1, 65535), default=None)
@click.option("--no-sandbox", is_flag=True, help="Do not start the sandbox cloud.")
@click.option("-t", "--template", default=None, metavar="FILE",
              help="Template to run, without parameters (default: examples/multi_tier.yaml on "
                   "the sandbox cloud; examples/demo.yaml with --no-sandbox).")
@click.option("--keep", is_flag=True, help="Keep the stack (do not delete it at the end).")
def demo_command(workers: int | None, port: int | None, no_sandbox: bool,
                 template: str | None, keep: bool) -> None:
    """Start everything, create the example stack live on the sandbox, delete it, show the
    sandbox holds nothing it created, stop everything."""
    from app.cli import demo as cli_demo
    settings = _settings(workers=workers, api_port=port)
    sys.exit(cli_demo.run_demo(settings, sandbox=not no_sandbox, template=template, keep=keep))


@cli.command()
@click.option("--host", default=None, help="Bind address (default STOKER_API_HOST).")
@click.option("--port", type=click.IntRange(1, 65535), default=None,
              help="Port (default STOKER_API_PORT, 8004).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=4, show_default=True)
def api(host: str | None, port: int | None, workers: int, threads: int) -> None:
    """Serve the Orchestration API v1 with gunicorn (one process, replaced by gunicorn)."""
    settings = _settings(api_host=host, api_port=port)
    from app.cli.up import child_env
    argv = [sys.executable, "-m", "gunicorn", "-c", "python:app.api.gunicorn_conf",
            "app.cli.wsgi:create_app()", "--bind", f"{settings.api_host}:{settings.api_port}",
            "--workers", str(workers), "--threads", str(threads)]
    os.execve(sys.executable, argv, child_env(settings))


@cli.command()
@click.option("-c", "--concurrency", type=click.IntRange(min=1), default=None,
              help="Threads or greenlets (default STOKER_WORKER_CONCURRENCY; unset: 200 "
                   "greenlets on PostgreSQL, 16 threads on SQLite).")
@click.option("-n", "--hostname", default="worker@%h", show_default=True)
@click.option("--loglevel", default="INFO", show_default=True)
def worker(concurrency: int | None, hostname: str, loglevel: str) -> None:
    """Run one Celery worker of the engine in the STOKER_WORKER_POOL setting's pool (unset:
    gevent on PostgreSQL, threads on SQLite)."""
    settings = _settings(worker_concurrency=concurrency)
    from app.cli.up import child_env
    argv = [sys.executable, "-m", "celery", "-A", "app.tasks", "worker",
            "--pool", settings.worker_pool, "-c", str(settings.worker_concurrency),
            "-n", hostname, "--loglevel", loglevel]
    os.execve(sys.executable, argv, child_env(settings))


#: ``stoker stack ...``: the stack commands with the change set, recovery, guard and timeline ones
STACK = click.Group(stack_group.name, help=stack_group.help, commands={
    **stack_group.commands,
    **{c.name: c for c in CHANGE_SET_COMMANDS + RECOVERY_COMMANDS + GUARD_COMMANDS
                           + TIMELINE_COMMANDS if c.name}})
cli.add_command(STACK)
cli.add_command(validate)
cli.add_command(export_group)

try:  # the sandbox cloud's own command (app/sandbox/commands.py)
    from app.sandbox.commands import sandbox as _sandbox
except ImportError:  # pragma: no cover - until the sandbox package provides it
    _sandbox = None
if _sandbox is not None:
    cli.add_command(_sandbox, "sandbox")
