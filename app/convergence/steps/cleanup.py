"""The cleanup nodes of an UPDATE traversal.

The cleanup node ``(x, False)`` of an update deletes ``x`` if it left the template, else deletes
the physical resources ``x`` replaced (:func:`app.convergence.steps.delete.drain`), else does
nothing. Once an update has failed and a rollback will follow, cleanup nodes delete nothing: the
rollback may restore what they would have deleted (Heat's convergence rollback).
"""
from __future__ import annotations

from app.convergence.outcome import Done, Node, Outcome, Record
from app.convergence.steps import delete
from app.convergence.store.rows import StepStack
from app.engine.states import Action


def step(node: Node) -> Outcome:
    """One step of the cleanup node of the node's resource."""
    assert node.loaded is not None
    if _rollback_coming(node.stack):  # keep everything: the rollback may restore or keep it
        return Done(record=Record.UNTOUCHED)
    if node.resource.name not in node.loaded.definition.resources:
        return delete.step(node)
    drained = delete.drain(node)
    if drained is None or isinstance(drained, delete.Drained):
        return delete.carried(drained, Done(record=Record.UNTOUCHED))
    return drained


def _rollback_coming(st: StepStack) -> bool:
    """The UPDATE has failed already and the stack will roll back (Heat's rollback restores
    the previous resources, so nothing is deleted in the meantime). ``st``: the stack as the
    step read it."""
    return bool(st.failed and not st.disable_rollback and st.action == Action.UPDATE)
