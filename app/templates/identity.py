"""Who a stack is and where it sits: the data a template needs about its stack.

* :class:`StackIdentity` feeds the pseudo parameters (``OS::stack_name``, ``OS::stack_id``,
  ``OS::project_id``; CFN's ``AWS::StackName``, ``AWS::StackId``).
* :class:`Nesting` is the stack's depth below its root and Heat's ``max_nested_stack_depth``
  (``app.config`` settings, handed in by the caller): a template resource whose stack is already
  ``max_depth`` deep is Heat's ``RequestLimitExceeded`` "Recursion depth exceeds N."
  (``StackResource._parse_nested_stack``).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StackIdentity:
    """Who the stack is: feeds OS::stack_name, OS::stack_id, OS::project_id."""

    stack_name: str = "stack"
    stack_id: str = ""
    project_id: str = ""


@dataclass(frozen=True)
class Nesting:
    """``depth``: 0 for a top-level stack, the parent's depth + 1 for a nested one;
    ``max_depth``: Heat's ``max_nested_stack_depth`` (its default is 5)."""

    max_depth: int
    depth: int = 0

    @property
    def exhausted(self) -> bool:
        """True when this stack may not have children (Heat: ``nested_depth >= max``)."""
        return self.depth >= self.max_depth

    def child(self) -> Nesting:
        """The nesting of a child stack of this one."""
        return Nesting(max_depth=self.max_depth, depth=self.depth + 1)
