"""The Celery dispatcher's countdowns (app.tasks.dispatcher): a poll later than the broker's
visibility timeout is capped, never dropped."""
from __future__ import annotations

from typing import Any

from app import config
from app.tasks.dispatcher import CeleryDispatcher


class _App:
    """A Celery app that records what it is asked to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, tuple[Any, ...], Any]] = []

    def send_task(self, name: str, args: tuple[Any, ...], countdown: Any = None,
                  **_: Any) -> None:
        self.sent.append((name, args, countdown))


def test_the_celery_dispatcher_caps_countdowns_instead_of_dropping_them(settings):
    config.set_current(settings.replace(visibility_timeout=300))
    app = _App()
    d = CeleryDispatcher(app)  # type: ignore[arg-type]
    d.check_resource("s", "t", 1, True, countdown=900.0)
    d.safety_poll("s", "t", 1, True, 300.0)
    d.check_resource("s", "t", 2, False)
    assert app.sent == [("stoker.poll_resource", ("s", "t", 1, True), 240.0),
                        ("stoker.poll_resource", ("s", "t", 1, True), 240.0),
                        ("stoker.check_resource", ("s", "t", 2, False), None)]
