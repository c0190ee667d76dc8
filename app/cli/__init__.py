"""The ``stoker`` command (console script ``stoker = app.cli:main``).

Server side: ``up`` (the whole embedded system in the foreground, :mod:`app.cli.up`), ``demo``
(:mod:`app.cli.demo`), ``db upgrade``, ``db purge-deleted``, ``api``, ``worker``, ``sandbox``.
Client side, against the Orchestration API v1: ``stack create|list|show|delete|event-list|resource-list|output-show|
template-show`` and ``validate`` (:mod:`app.cli.stack`).

Exit status: 0 success; 1 a stack operation ended ``*_FAILED`` or a process of ``up`` died; 2 bad
input, an unreachable API or an API fault (one line on stderr, never a traceback).

The commands are in :mod:`app.cli.commands`; this package's own import stays light, as the API
processes' WSGI entry (:mod:`app.cli.wsgi`) is in it.
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. A template that includes itself (directly or not) is a
    user error, reported in one line (exit 2), never a traceback."""
    from app.cli.commands import cli  # not at import: gunicorn's app.cli.wsgi needs none of it
    try:
        cli.main(args=argv, prog_name="stoker")
    except RecursionError:
        print("stoker: error: the template includes itself (a file used as its own type or "
              "get_file target, directly or through others)", file=sys.stderr)
        sys.exit(2)

