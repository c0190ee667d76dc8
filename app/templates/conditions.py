"""The ``conditions`` section (newton+): definitions, references between them, evaluation.

As Heat's ``heat/engine/conditions.py``: a definition is a boolean, the name of another
condition, or a condition function (``get_param``, ``equals``, ``not``, ``and``, ``or``; pike adds
``contains`` and ``yaql``). Anything else is "Condition validation error: The definition of
condition "c" is invalid: <value>". Cycles are "Circular definition for condition "a"". A
reference to an unknown name, or a value that is not a condition, is 'Invalid condition "x"',
reported at the place that uses it (``resources.r.condition``, ``outputs.o.value.if``).

Condition names must be strings: YAML 1.1 turns an unquoted ``off``/``on``/``yes``/``no`` key
into a boolean; Heat then fails with a 500, Stoker with a 400 saying so.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app import errors
from app.templates.functions.base import UNKNOWN, Function, FunctionError, Path, Resolver, parse
from app.templates.versions import HotVersion, condition_table


def _invalid_definition(name: Any, value: Any) -> errors.ValidationError:
    return errors.ValidationError(f'Condition validation error: The definition of condition '
                                  f'"{name}" is invalid: {value}', path=("conditions", name))


def parse_section(section: Any, version: HotVersion) -> dict[str, Any]:
    """Parse the ``conditions`` section into ``{name: bool | str | Function}``.

    :raises errors.ValidationError: not a map, non-string names, invalid definitions.
    :raises FunctionError: a non-condition function ("invalid in this context").
    """
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise errors.ValidationError('Condition validation error: "conditions" must be a map',
                                     path=("conditions",))
    table = condition_table(version)
    out: dict[str, Any] = {}
    for name, value in section.items():
        if not isinstance(name, str):
            raise errors.ValidationError(
                f"Condition validation error: condition name {name!r} is not a string (YAML "
                f"reads an unquoted on/off/yes/no/true/false as a boolean: quote it)",
                path=("conditions", str(name)))
        out[name] = parse(value, table, ("conditions", name))
    for name, tree in out.items():
        if isinstance(tree, bool):
            continue
        if isinstance(tree, str):
            if tree not in out:
                raise _invalid_definition(name, tree)
            continue
        if not isinstance(tree, Function):
            raise _invalid_definition(name, tree)
    return out


class Conditions:
    """Evaluates named conditions once each (cached), detecting cycles.

    ``make_resolver`` builds the resolver used inside definitions (parameters only).
    ``lenient`` (``POST /validate``, parameters may lack values): a condition whose value is
    not known counts as true, so everything it guards is validated.
    """

    def __init__(self, definitions: Mapping[str, Any],
                 make_resolver: Callable[[Conditions], Resolver], *,
                 lenient: bool = False) -> None:
        self.definitions = dict(definitions)
        self.lenient = lenient
        self._cache: dict[str, bool | FunctionError] = {}
        self._active: list[str] = []
        self._resolver = make_resolver(self)

    def names(self) -> list[str]:
        """Condition names in template order."""
        return list(self.definitions)

    def evaluate_all(self) -> dict[str, bool]:
        """Evaluate every condition (cycles raise now; other errors wait for a use site)."""
        out = {}
        for name in self.definitions:
            value = self._named(name)
            if isinstance(value, bool):
                out[name] = value
        return out

    def _named(self, name: str) -> bool | FunctionError:
        if name in self._cache:
            return self._cache[name]
        if name in self._active:
            raise errors.ValidationError(f'Condition validation error: Circular definition for '
                                         f'condition "{self._active[0]}"',
                                         path=("conditions", self._active[0]))
        self._active.append(name)
        try:
            tree = self.definitions[name]
            try:
                result: bool | FunctionError = self.value(tree, ("conditions", name))
            except FunctionError as exc:
                result = exc
        finally:
            self._active.pop()
        self._cache[name] = result
        return result

    def value(self, cond: Any, path: Path) -> bool:
        """Truth of ``cond`` (bool, name, or condition Function) used at ``path``.

        :raises FunctionError: 'Invalid condition "x"' at ``path``.
        """
        if isinstance(cond, bool):
            return cond
        if cond is UNKNOWN and self.lenient:
            return True
        if isinstance(cond, Function):
            try:
                result = cond.evaluate(self._resolver)
            except FunctionError as exc:
                raise FunctionError(exc.raw, path) from None
            return self.value(result, path)
        if isinstance(cond, str) and cond in self.definitions:
            named = self._named(cond)
            if isinstance(named, FunctionError):
                raise FunctionError(named.raw, path)
            return named
        raise FunctionError(f'Invalid condition "{cond}"', path)
