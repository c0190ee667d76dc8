"""Flower, the Celery dashboard, as ``stoker up --flower`` and the Procfile's ``flower`` run it.

More in docs/code/tasks.md (app.tasks.flower).
"""
from __future__ import annotations

import sys
from typing import Any

from app import config

#: seconds between two looks for workers Flower has not inspected yet
WATCH_INTERVAL = 2.0


def authenticated(settings: config.Settings) -> bool:
    """True when Flower asks for credentials (basic auth or OAuth configured)."""
    return bool(settings.flower_basic_auth or settings.flower_auth)


def command(settings: config.Settings) -> tuple[list[str], dict[str, str]]:
    """``(argv, extra environment)`` of the Flower process for ``settings``."""
    address = settings.api_host if authenticated(settings) else "127.0.0.1"
    argv = [sys.executable, "-m", "app.tasks.flower",
            f"--port={settings.flower_port}", f"--address={address}"]
    env: dict[str, str] = {}
    if settings.flower_basic_auth:
        argv.append(f"--basic-auth={settings.flower_basic_auth}")
    if settings.flower_auth:
        argv.append(f"--auth={settings.flower_auth}")
    if not authenticated(settings):
        env["FLOWER_UNAUTHENTICATED_API"] = "true"
    return argv, env


def uninspected(inspected: set[str], heard: dict[str, bool]) -> bool:
    """Whether Flower should inspect its workers again: none listed yet, or an alive worker
    (``heard``: name -> alive, from the workers' heartbeats) is not among ``inspected``."""
    return not inspected or any(alive and name not in inspected for name, alive in heard.items())


def _watching_flower() -> type:
    """Flower's application class, watching for workers its inspection has not listed."""
    from flower.app import Flower
    from tornado.ioloop import PeriodicCallback

    class WatchingFlower(Flower):  # type: ignore[misc]
        def _look_for_workers(self) -> None:
            heard = {name: bool(w.alive) for name, w in self.events.state.workers.items()}
            if uninspected(set(self.inspector.workers), heard):
                self.update_workers()   # one inspection in flight at a time (Flower's Inspector)

        def start(self) -> None:
            PeriodicCallback(self._look_for_workers, WATCH_INTERVAL * 1000).start()
            super().start()

    return WatchingFlower


def main(argv: list[str] | None = None) -> Any:
    """Run ``celery -A app.tasks flower <argv>`` with the watching application class."""
    import flower.command
    from celery.bin.celery import main as celery_main

    flower.command.Flower = _watching_flower()   # the class Flower's command instantiates
    sys.argv = [sys.argv[0], "-A", "app.tasks", "flower",
                *(sys.argv[1:] if argv is None else argv)]
    return celery_main()


if __name__ == "__main__":
    sys.exit(main())
