"""The running sandbox: its store and behaviour, reachable from any view as :func:`sb`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from app.sandbox.behaviour import Behaviour
from app.sandbox.store import Store


@dataclass
class Sandbox:
    """State shared by every request of one sandbox app."""
    store: Store
    behaviour: Behaviour
    extra_catalog: list[dict[str, str]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)


def sb() -> Sandbox:
    """The sandbox of the current Flask app."""
    return current_app.extensions["sandbox"]  # type: ignore[no-any-return]


def store() -> Store:
    return sb().store
