"""The Dispatcher: how the runtime enqueues its work without importing Celery.

A process's composition holds one (:class:`app.convergence.runtime.Runtime`): Celery's
(``app.tasks.dispatcher``) in API and worker processes,
:class:`app.convergence.inline.InlineDispatcher` in tests and with the ``always_eager``
setting. The runtime calls :func:`app.convergence.runtime.dispatcher` and never blocks on work.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

NodeKey = tuple[int, bool]  # (resource id, is_update)


class Dispatcher(Protocol):
    def check_resource(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                       countdown: float = 0.0) -> None:
        """Enqueue one node of a traversal (``is_update``: forward node, else reverse), due in
        ``countdown`` seconds. Never drops it."""

    def check_resources(self, stack_id: str, traversal_id: str,
                        nodes: Iterable[NodeKey]) -> None:
        """Enqueue many ready nodes of one traversal at once (a wide fan-out's siblings)."""

    def safety_poll(self, stack_id: str, traversal_id: str, resource_id: int, is_update: bool,
                    countdown: float) -> None:
        """Enqueue the slow safety poll of a node waiting for an event (``Wait``): a fallback
        only, so a test driver may drop it once nothing else is left to run."""


def batches(nodes: list[NodeKey], parallelism: int, largest: int,
            backlog: int = 0) -> list[list[NodeKey]]:
    """Split ready nodes into the messages that carry them: one node a message while there are
    no more than twice as many nodes as the fleet runs at once (``parallelism``: workers x
    threads), else ``ceil(len(nodes) / (2 * parallelism))`` nodes a message, at most
    ``largest``. Every worker thread still gets work (at least two messages each), while a
    wide fan-out pays the broker's per-message cost once a batch, not once a node.

    ``backlog``: messages already waiting in the queue, beyond what the workers have reserved.
    When that is at least ``parallelism`` the fleet is saturated (many stacks' fan-outs at once,
    as a group's member stacks), so more messages would only wait: the nodes go in as few
    messages as ``largest`` allows.
    Deterministic: order is kept, sizes differ by at most one.
    """
    n, p = len(nodes), max(1, parallelism)
    if largest <= 1 or n <= 1:
        return [[node] for node in nodes]
    if backlog >= p:
        count = -(-n // largest)
    elif n <= 2 * p:
        return [[node] for node in nodes]
    else:
        size = min(largest, -(-n // (2 * p)))
        count = min(n, max(-(-n // size), 2 * p))
    base, extra = divmod(n, count)
    out, at = [], 0
    for i in range(count):
        step = base + (1 if i < extra else 0)
        out.append(nodes[at:at + step])
        at += step
    return out
