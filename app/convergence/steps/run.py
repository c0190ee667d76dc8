"""The step of a node, chosen by its traversal's action and direction: create, update or adopt
forward; cleanup (an update's reverse node) or delete backward; suspend, resume, check or
snapshot either way. Called by :func:`app.convergence.check.check_resource` with the locked
node; what it returns goes to the applier (:func:`app.convergence.outcome.apply`).
"""
from __future__ import annotations

from app.convergence import traversal
from app.convergence.outcome import Ended, Node, Raised, Result
from app.convergence.steps import actions, adopt, cleanup, create, delete
from app.convergence.steps import update as updating
from app.convergence.store import definitions
from app.engine.states import Action, NodeState
from app.models import read_session


def run(node: Node) -> Result:
    """The node's step and its outcome; :class:`Ended` for a node that had ended already (it
    was not locked), :class:`Raised` for a step that raised. A DELETE's (or a create
    ROLLBACK's) step needs no template, and none is loaded; a DELETE's drops the process's
    cached definition of the stack (every worker that runs one, not only the last)."""
    if node.stack.state == NodeState.DONE:
        return Ended()
    try:
        return _step(node, node.stack.action)
    except Exception as exc:
        return Raised(exc)


def _step(node: Node, action: str) -> Result:
    cleans = not node.is_update and (action in (Action.UPDATE, Action.RESTORE) or (
        action == Action.ROLLBACK and _update_shaped(node.traversal_id)))
    if action not in actions.ACTIONS and (node.is_update or cleans):
        st = node.stack
        node.loaded = definitions.load(st.id, st.raw_template_id, st.name, st.tenant)
    if action == Action.DELETE and not node.is_update:
        definitions.forget(node.stack.id)
    if action in actions.ACTIONS:
        return actions.step(node)
    if node.is_update and action == Action.ADOPT:
        return adopt.forward(node)
    if node.is_update:
        return create.forward(node) if action == Action.CREATE else updating.forward(node)
    return cleanup.step(node) if cleans else delete.step(node)


def _update_shaped(traversal_id: str) -> bool:
    """Whether a ROLLBACK traversal rolls an update back (it has forward nodes) rather than a
    create (reverse nodes only)."""
    with read_session() as s:
        return traversal.has_forward_nodes(s, traversal_id)
