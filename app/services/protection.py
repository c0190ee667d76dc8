"""Termination protection, as CloudFormation has it (Heat has none).

A stack's ``termination_protection`` is set at create or later on a top-level stack; a nested
stack inherits its root's (it cannot be set on the nested stack itself). While it is set, a
delete or an abandon of the stack — or of any of its nested stacks, directly — is refused and
nothing changes; a parent's delete or an update that removes a nested stack still deletes it,
as CloudFormation does.
"""
from __future__ import annotations

from typing import Any

from app import errors
from app.models import Stack, read_session

#: the Heat fault type of a refused delete (HTTP 409); the CFN API answers ValidationError
PROTECTED = "StackTerminationProtected"


def root_of(s: Any, st: Stack) -> Stack:
    """The top-level stack of ``st`` (itself when it has no parent), read in session ``s``.
    O(nesting depth) reads."""
    seen = {st.id}
    while st.parent_id is not None:
        parent = s.get(Stack, st.parent_id)
        if parent is None or parent.id in seen:
            break
        seen.add(parent.id)
        st = parent
    return st


def is_protected(st: Stack) -> bool:
    """Whether deleting ``st`` is refused: its own flag, or its root's for a nested stack."""
    if st.parent_id is None:
        return bool(st.termination_protection)
    with read_session() as s:
        return bool(root_of(s, st).termination_protection)


def check_deletable(s: Any, st: Stack) -> None:
    """Refuse a delete of ``st`` (read in the deleting transaction ``s``) while it or its root
    is protected.

    :raises errors.Conflict: ``StackTerminationProtected`` (409), CloudFormation's message
        ``Stack [<name>] cannot be deleted while TerminationProtection is enabled``."""
    if root_of(s, st).termination_protection:
        raise errors.Conflict(f"Stack [{st.name}] cannot be deleted while "
                              "TerminationProtection is enabled", heat_type=PROTECTED)
