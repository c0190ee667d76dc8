"""The port through which the runtime creates and updates nested stacks.

Creating or updating a child stack is an API use case (validation, limits, the stored template),
so :mod:`app.services.children` implements it and the process's composition hands it to the
runtime (:class:`app.convergence.runtime.Runtime`'s ``child_stacks``); the runtime
(:mod:`app.convergence.nested.stacks`) only calls it. Imports keep pointing one way.
"""
from __future__ import annotations

from typing import Any, Protocol

from app.models import Stack


class ChildStacks(Protocol):
    """How the runtime creates and updates a nested stack (implemented by ``app.services``)."""

    def create(self, parent: Any, name: str, template: Any, params: dict[str, Any],
               files: dict[str, Any], environment: dict[str, Any], depth: int,
               info: dict[str, Any], timeout_mins: int | None = None,
               adopt_resources: dict[str, Any] | None = None) -> str:
        """Validate and create child stack ``name`` of ``parent`` and start its CREATE
        (``timeout_mins``: the child's own limit, None for the default), or its ADOPT of
        ``adopt_resources`` (the adopt data's ``resources``) when given;
        :returns: its id. :raises errors.StackExists: it exists already (a redelivery)."""

    def update(self, parent: Any, child: Stack, template: Any, params: dict[str, Any],
               files: dict[str, Any], environment: dict[str, Any],
               info: dict[str, Any], restore: dict[str, Any] | None = None) -> None:
        """Validate the child's new definition and start its UPDATE traversal (its RESTORE
        with ``restore``, the child's data in the snapshot being restored)."""
