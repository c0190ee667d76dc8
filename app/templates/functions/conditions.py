"""Condition functions and ``if``.

As Heat's hot_spec (newton+): ``equals: [a, b]``, ``not: cond``, ``and: [c1, c2, ...]``,
``or: [c1, c2, ...]`` where a condition is a boolean, the name of a condition in the
``conditions`` section, or a nested condition function; ``if: [cond, value_if_true,
value_if_false]`` is a macro: the chosen branch replaces it once conditions are known. From
wallaby the false branch may be omitted: the ``if`` then removes the enclosing map entry or list
item (as a null property: unset). ``contains: [value, sequence]`` (pike) uses Python ``in`` so a
string sequence means substring containment.

In the ``conditions`` section only condition functions are allowed; another function of the
version is "The function "x" is invalid in this context" (:class:`InvalidInContext`).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, ClassVar

from app.templates.functions.base import ABSENT, Function, FunctionTable, Macro, Path, Resolver, parse


class If(Macro):
    """``if: [condition, value_if_true, value_if_false]``; the condition may be a name or an
    inline condition expression (parsed with the version's condition table, ``cond_table``,
    bound per version by :func:`bind`)."""

    nullable = False
    cond_table: ClassVar[FunctionTable] = MappingProxyType({})

    @classmethod
    def bind(cls, cond_table: FunctionTable) -> type[If]:
        """A subclass whose inline conditions parse with ``cond_table``."""
        return type(cls.__name__, (cls,), {"cond_table": cond_table,
                                           "__doc__": cls.__doc__})

    @classmethod
    def parse_args(cls, value: Any, table: FunctionTable, path: Path) -> Any:
        if isinstance(value, list) and value:
            return [parse(value[0], cls.cond_table, path + (0,))] + \
                [parse(v, table, path + (i,)) for i, v in enumerate(value) if i > 0]
        return parse(value, table, path)

    def _usage(self) -> str:
        return (f'Arguments to "{self.fn_name}" must be of the form: '
                f'[condition_name, value_if_true, value_if_false]')

    def check(self) -> None:
        args = self.args
        counts = (2, 3) if self.nullable else (3,)
        if not isinstance(args, list) or len(args) not in counts:
            raise self.error(self._usage())

    def expand(self, r: Resolver) -> Any:
        cond = self.args[0]
        if isinstance(cond, Function):
            cond = cond.evaluate(r)
        if r.condition(cond, self.path):
            return self.args[1]
        return self.args[2] if len(self.args) > 2 else ABSENT


class IfNullable(If):
    """wallaby ``if``: the false branch may be omitted."""

    nullable = True


class Equals(Function):
    """``equals: [value_1, value_2]`` -> bool (Python equality: ``1 != "1"``)."""

    condition_function = True

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: '
                             f'[value_1, value_2]')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: '
                             f'[value_1, value_2]')
        return args[0] == args[1]


class Not(Function):
    """``not: condition``."""

    condition_function = True

    def result(self, args: Any, r: Resolver) -> Any:
        return not r.condition(args, self.path)


class And(Function):
    """``and: [cond, cond, ...]`` (at least two)."""

    condition_function = True

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, list) or len(self.args) < 2:
            raise self.error(f'The minimum number of condition arguments to "{self.fn_name}" '
                             f'is 2.')

    def combine(self, values: list[bool]) -> bool:
        return all(values)

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) < 2:
            raise self.error(f'The minimum number of condition arguments to "{self.fn_name}" '
                             f'is 2.')
        return self.combine([r.condition(a, self.path) for a in args])


class Or(And):
    """``or: [cond, cond, ...]`` (at least two)."""

    def combine(self, values: list[bool]) -> bool:
        return any(values)


class Contains(Function):
    """``contains: [value, sequence]`` -> ``value in sequence``."""

    condition_function = True

    def check(self) -> None:
        """As Heat's ``Contains.__init__``: no arguments or not a list, then not two."""
        if isinstance(self.args, Function):
            return
        if not self.args or not isinstance(self.args, list):
            raise self.error(f'Incorrect arguments to "{self.fn_name}" should be: '
                             f'"{self.fn_name}" : [ "value1", [ "value1", "value2"]]')
        if len(self.args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: '
                             f'[value1, [value1, value2]]')

    def result(self, args: Any, r: Resolver) -> Any:
        if not isinstance(args, list) or len(args) != 2:
            raise self.error(f'Arguments to "{self.fn_name}" must be of the form: '
                             f'[value1, [value1, value2]]')
        value, seq = args
        if not isinstance(seq, (list, str)):
            raise self.error(f'Second argument to "{self.fn_name}" should be a sequence.')
        if isinstance(seq, str) and not isinstance(value, str):
            return False
        return value in seq


class InvalidInContext(Function):
    """A function of the version used where it is not allowed (the conditions section)."""

    def check(self) -> None:
        raise self.error(f'The function "{self.fn_name}" is invalid in this context')
