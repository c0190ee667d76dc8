"""Cloud clients: the only package that imports openstacksdk (DESIGN.md).

``for_stack(identity)`` returns the client factory a resource plugin is handed as ``clients``.
It is lazy: nothing connects until a plugin asks for a connection, so cloud-free types cost
nothing. (The factory is filled in by the OpenStack resource types work.)
"""
from __future__ import annotations

from typing import Any


class LazyClients:
    """Per-stack client factory; ``connection()`` gives an ``openstack.connection.Connection``
    scoped to the stack's project (cached per worker process)."""

    def __init__(self, stack: Any) -> None:
        self.stack = stack

    def connection(self) -> Any:
        raise NotImplementedError("no cloud is configured for this engine")


def for_stack(stack: Any) -> LazyClients:
    """The client factory for a stack (``stack``: ``.stack_name``, ``.stack_id``,
    ``.project_id``)."""
    return LazyClients(stack)
