"""How large one intrinsic function's result may be: bounds on expansion bombs.

:data:`MAX_RESULT_SIZE` is 1,048,576: Heat's ``max_json_body_size`` default (``app/config.py``).
Why that value: everything a function works on arrives in one request body (template, files,
environment and parameters), which Heat caps at ``max_json_body_size``; a legitimate result (a
user_data script assembled from a file and a few parameters, a few hundred port definitions from
``repeat``) is of that order, while a result a thousand times larger is only ever an expansion.
The package is pure (``tests/unit/test_purity.py``), so the value mirrors Heat's default rather
than reading an operator's setting.

More in docs/code/templates.md (app.templates.functions.limits).
"""
from __future__ import annotations

from typing import Any

from app.templates.functions.base import Function, FunctionError

MAX_RESULT_SIZE = 1_048_576


def too_large(fn: Function, size: int | None = None) -> FunctionError:
    """The error for ``fn`` whose result would pass :data:`MAX_RESULT_SIZE` (``size`` if known)."""
    would = f" (it would be {size})" if size is not None else ""
    return fn.error(f'The result of "{fn.fn_name}" would be larger than {MAX_RESULT_SIZE} '
                    f'characters, the limit for one function\'s result{would}')


def check_size(fn: Function, size: int) -> None:
    """:raises FunctionError: ``size > MAX_RESULT_SIZE`` (:func:`too_large`)."""
    if size > MAX_RESULT_SIZE:
        raise too_large(fn, size)


def measure(value: Any, budget: int = MAX_RESULT_SIZE) -> int:
    """The size of ``value`` (see module doc), or some number above ``budget`` as soon as it is
    known to be above it. O(min(size, budget)) steps, so a value that is huge only because it
    refers to the same object many times is not walked in full; iterative (no recursion)."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += 1 + len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            total += 1 + len(item)
            stack.extend(item)
        else:
            total += 1
        if total > budget:
            return total
    return total


def split_size(text: str, delim: str) -> int:
    """:func:`measure` of ``text.split(delim)`` without splitting (``delim`` non-empty): the
    list, one per piece, and the characters that are not delimiters. O(len(text))."""
    count = text.count(delim)
    return 1 + (count + 1) + len(text) - count * len(delim)


class Budget:
    """What is left of :data:`MAX_RESULT_SIZE` while ``fn`` builds its result piece by piece."""

    def __init__(self, fn: Function, limit: int = MAX_RESULT_SIZE) -> None:
        self.fn = fn
        self.left = limit

    def allows(self, units: int) -> bool:
        """Whether ``units`` more would still fit (nothing is charged)."""
        return units <= self.left

    def charge(self, units: int) -> None:
        """Use ``units``. :raises FunctionError: the budget is spent (:func:`too_large`)."""
        self.left -= units
        if self.left < 0:
            raise too_large(self.fn)

    def charge_value(self, value: Any) -> None:
        """Charge :func:`measure` of an existing ``value`` (bounded by what is left)."""
        self.charge(measure(value, self.left))
