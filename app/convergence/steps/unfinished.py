"""What a create, update or delete step returns while its resource's action is still going.

A nested resource's driver waits for its child stack's traversal to end, holding no task (a
batched group change that pauses between batches polls after the pause instead); a plugin
that waits (a wait condition, OS::Heat::Delay: :func:`~app.convergence.steps.waits.wait_outcome`)
waits for its event; anything else is polled again after the plugin's own backoff.
"""
from __future__ import annotations

from typing import Any

from app.convergence.nested.stacks import NestedResource
from app.convergence.results import Node, Outcome, Poll, Start, Wait
from app.convergence.steps import waits


def outcome(node: Node, plugin: Any, handle: Any, start: Start | None) -> Outcome:
    """The Wait or Poll of ``node`` whose ``plugin`` has not finished the action ``handle``
    names (``start``: the action this step started, else None)."""
    if isinstance(plugin, NestedResource) and plugin.pause_left is None:
        return Wait(plugin.wait_event(), node.deadline(), handle, plugin, start)
    waiting = waits.wait_outcome(node, plugin, handle, start)
    if waiting is not None:
        return waiting
    return Poll.next(plugin, handle, node.resource, start)
